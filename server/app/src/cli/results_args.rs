//! The flag every command that reads or writes runs takes: the results folder.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct ResultsArgs {
    /// Folder holding one sub-folder per run.
    #[arg(
        long,
        env = "KEYSTORM_RESULTS",
        default_value = "results",
        hide_env_values = true
    )]
    pub results: PathBuf,
}
