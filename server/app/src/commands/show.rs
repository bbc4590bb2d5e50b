//! `keystorm show RUN`: a past run's summary as a table (or JSON).

use std::path::PathBuf;

use keystorm_engine::results::{ResultStore, find_run};

use crate::cli::ShowArgs;
use crate::{CliError, exit};

pub fn show(args: &ShowArgs) -> Result<u8, CliError> {
    let as_path = PathBuf::from(&args.run);
    let dir = if as_path.join("manifest.json").is_file() {
        as_path
    } else {
        find_run(&args.results.results, &args.run)
            .map_err(|e| CliError::bad_input(e.to_string()))?
    };
    let manifest = ResultStore::read_manifest(&dir).map_err(|e| CliError::failed(e.to_string()))?;
    let summary = ResultStore::read_summary(&dir).map_err(|e| CliError::failed(e.to_string()))?;
    if args.json {
        let text =
            serde_json::to_string_pretty(&summary).map_err(|e| CliError::failed(e.to_string()))?;
        println!("{text}");
        return Ok(exit::OK);
    }
    println!(
        "run {} — workload {} on {} — {} (started {})",
        manifest.run_id,
        manifest.workload,
        manifest.endpoint,
        manifest.status.as_str(),
        manifest.started_at
    );
    print!("{}", crate::table::summary_table(&summary.rows));
    Ok(exit::OK)
}
