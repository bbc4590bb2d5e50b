//! `keystorm validate FILE`: parse and validate only, and say what would run.

use crate::cli::ValidateArgs;
use crate::{CliError, exit};
use keystorm_engine::executor::schedule;
use keystorm_engine::plan::Endpoint;

pub fn validate(args: &ValidateArgs) -> Result<u8, CliError> {
    let (plan, _) = super::load(&args.workload)?;
    let phases = schedule(&plan);
    let endpoint = match &plan.target.endpoint {
        Endpoint::Embedded { .. } => "embedded".to_string(),
        Endpoint::Url(u) => u.clone(),
    };
    println!(
        "{}: ok — workload {:?} on {endpoint}: {} phases before, {} round(s) of {}, {} after ({} phases in all)",
        args.workload.display(),
        plan.name,
        plan.before.len(),
        plan.rounds.count,
        plan.rounds.phases.len(),
        plan.after.len(),
        phases.len()
    );
    Ok(exit::OK)
}
