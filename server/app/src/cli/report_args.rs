//! The flags of `keystorm report RUN [NEW…]`.

use std::path::PathBuf;

use super::judge_args::JudgeArgs;
use super::results_args::ResultsArgs;

/// Most runs one comparison report holds, the base among them (the compare page's and
/// the API's limit).
pub const MAX_REPORTED_RUNS: usize = 9;

/// An offline HTML report: one self-contained file that opens in any browser with no
/// server and no network.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "With one run, the report is its run page: rounds, phases, \
intervals, thresholds, the bucket index, tails. With more, the first is the base and the \
report is the compare page: each metric's change with its 95 % interval and verdict \
(judged as `keystorm compare` judges them), the study's paragraph (throughput ratios, \
reshards and write stalls per run), throughput across rounds and the latency \
distributions overlaid. Exit codes: 0 written, 1 the file could not be written, 2 bad \
input (a run that cannot be read, an unknown metric or operation)."
)]
pub struct ReportArgs {
    /// The run reported, or the base of a comparison: its id (or a unique prefix) in
    /// the results folder, or its folder.
    pub run: String,

    /// Runs compared with the first, each an id or a folder (at most 8).
    pub new: Vec<String>,

    /// Where to write the report (`-` for standard output). Default:
    /// `RUN-report.html`, or `BASE-vs-NEW.html` for a comparison, in the current
    /// folder.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub judge: JudgeArgs,

    #[command(flatten)]
    pub results: ResultsArgs,
}
