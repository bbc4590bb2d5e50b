//! The flags of `keystorm compare BASE NEW…`.

use super::judge_args::JudgeArgs;
use super::results_args::ResultsArgs;

/// What makes `keystorm compare` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    /// Any judged metric regressed.
    Regressed,
}

/// Runs compared with a base, each metric's change judged against the noise.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Each metric of each phase, round and operation the runs share \
(throughput, bandwidth, p50/p99/p99.9 latency, error and tail shares; for a round phase \
also its rounds together) is given as a change with its 95 % interval and a verdict: \
improved or regressed (the interval clear of no change and the change beyond the noise \
floor), no change (within the floor), inconclusive (the interval reaches past the floor \
on both sides, or too few seconds: it says how many would settle it), or not judged (a \
percentile that was mostly an open loop's schedule lag). docs/intervals.md explains how \
to read them. Exit codes: 0 compared (and, with --fail-on regressed, nothing regressed), \
1 with --fail-on regressed when a judged metric regressed, 2 bad input (a run that cannot \
be read, an unknown metric or operation)."
)]
pub struct CompareArgs {
    /// The base run: its id (or a unique prefix) in the results folder, or its folder.
    pub base: String,

    /// The runs compared with it, each an id or a folder (runs from other results
    /// folders are given by their folder; merged runs of agents as any other).
    #[arg(required = true, num_args = 1..)]
    pub new: Vec<String>,

    /// Print the comparison as JSON (every metric, with its intervals and verdict).
    #[arg(long)]
    pub json: bool,

    /// Exit 1 when a judged metric regressed (for CI: gate a release on it).
    #[arg(long, value_enum, value_name = "WHAT")]
    pub fail_on: Option<FailOn>,

    #[command(flatten)]
    pub judge: JudgeArgs,

    #[command(flatten)]
    pub results: ResultsArgs,
}
