//! `keystorm merge RUN... [-o DIR]`: the runs of a workload's shards as one run, its
//! percentiles from the shards' histograms added together (never averaged).

use keystorm_results::merge::{MergeError, MergeRequest, MergedPart, merge_runs};
use keystorm_results::{ResultStore, RunOverrides};

use crate::CliError;
use crate::cli::MergeArgs;
use keystorm_console::exit;
use keystorm_console::table::Table;

pub fn merge(args: &MergeArgs, command_line: Vec<String>) -> Result<u8, CliError> {
    let root = &args.results.results;
    let parts = args
        .runs
        .iter()
        .map(|run| super::inputs::run_dir(root, run))
        .collect::<Result<Vec<_>, _>>()?;
    let request = MergeRequest {
        parts: &parts,
        results_root: args.out.as_deref().unwrap_or(root),
        plan: whole_plan(&parts[0]),
        command_line,
        run_id: None,
        clock_offsets_ms: &[],
        takeovers: &[],
        fleet: None,
    };
    let merged = merge_runs(&request).map_err(|e| match e {
        MergeError::Results(e) => CliError::failed(e.to_string()),
        e => CliError::bad_input(e.to_string()),
    })?;
    for warning in &merged.warnings {
        stderrln!("warning: {warning}");
    }
    if !merged.summary.rows.is_empty() {
        stdout!(
            "{}",
            keystorm_console::table::summary_text(&merged.summary.rows)
        );
        stdout!("{}", keystorm_console::table::curves_text(&merged.summary));
        stdout!("\n{}", per_shard_table(&merged.manifest.merged_from));
    }
    stderrln!(
        "merged {} runs into run {} ({}) in {}; the shards' own runs are in its shards/",
        parts.len(),
        merged.manifest.run_id,
        merged.manifest.status.as_str(),
        merged.dir.display()
    );
    Ok(exit::OK)
}

/// The plan of the whole workload, from the first shard's workload and the overrides it
/// ran with (its shard aside); `None` if the workload no longer validates.
fn whole_plan(run: &std::path::Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(run.join(keystorm_results::WORKLOAD_FILE)).ok()?;
    let manifest = ResultStore::read_manifest(run).ok()?;
    let (mut plan, _) = keystorm_workload::spec::parse_workload(&text, "workload.yaml").ok()?;
    plan.apply_overrides(&RunOverrides {
        shard: None,
        ..manifest.run_overrides()
    })
    .ok()?;
    serde_json::to_value(&plan).ok()
}

/// Each shard's own throughput and tail latency per operation, to spot a slow client.
pub(super) fn per_shard_table(parts: &[MergedPart]) -> Table {
    let mut table =
        Table::new(&["shard", "host", "run", "op", "ops", "ops/s", "p99", "max"]).align_right(4);
    for part in parts {
        for total in &part.totals {
            table.row(vec![
                part.shard.to_string(),
                part.host.clone(),
                part.run_id.clone(),
                total.op.to_string(),
                total.stats.ops.to_string(),
                format!("{:.1}", total.stats.ops_per_sec),
                keystorm_console::table::latency(total.stats.latency_us.p99),
                keystorm_console::table::latency(total.stats.latency_us.max),
            ]);
        }
    }
    table
}
