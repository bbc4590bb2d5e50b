//! The flags of `keystorm merge`: the shards' runs made into one.

use super::results_args::ResultsArgs;

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The shards' runs: ids (or unique prefixes) in the results folder, or folders.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<String>,

    /// Results folder to write the merged run to, as a run of its own named after the
    /// workload (default: the results folder the runs are looked up in).
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,

    #[command(flatten)]
    pub results: ResultsArgs,
}
