//! `keystorm validate FILE...`: parse and validate only, and say what would run; one
//! line per file (shells expand `workloads/*.yaml`), exit 2 if any file is wrong.

use std::path::Path;

use crate::CliError;
use crate::cli::ValidateArgs;
use keystorm_console::exit;
use keystorm_engine::executor::schedule;
use keystorm_workload::plan::Endpoint;

pub fn validate(args: &ValidateArgs) -> Result<u8, CliError> {
    let mut failed = 0;
    for path in &args.workloads {
        match one(path) {
            Ok(line) => stdoutln!("{line}"),
            Err(e) => {
                failed += 1;
                stderrln!("error: {}", e.message);
            }
        }
    }
    Ok(if failed == 0 {
        exit::OK
    } else {
        exit::BAD_INPUT
    })
}

/// The summary line of a valid workload.
fn one(path: &Path) -> Result<String, CliError> {
    let (plan, _) = super::inputs::load(path)?;
    // A run here reads its key files from this disk: a wrong one is refused now too.
    keystorm_engine::keyfile::check_key_files(&plan, &path.display().to_string())
        .map_err(|e| CliError::bad_input(e.to_string()))?;
    let phases = schedule(&plan);
    let endpoint = match &plan.target.endpoint {
        Endpoint::Urls(urls) if urls.len() > 1 => format!(
            "{} endpoints ({}, spread {})",
            urls.len(),
            urls.join(", "),
            plan.target.gateways.spread.as_str()
        ),
        e => e.describe(),
    };
    Ok(format!(
        "{}: ok — workload {:?} on {endpoint}: {} before, {} of {}, {} after ({} in all)",
        path.display(),
        plan.name,
        count(plan.before.len(), "phase"),
        count(plan.rounds.count as usize, "round"),
        count(plan.rounds.phases.len(), "phase"),
        plan.after.len(),
        count(phases.len(), "phase"),
    ))
}

fn count(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}
