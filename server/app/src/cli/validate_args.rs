//! The flags of `keystorm validate`: the workload files to check.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// Workload files (YAML), e.g. `workloads/*.yaml`.
    #[arg(required = true, value_name = "WORKLOAD")]
    pub workloads: Vec<PathBuf>,
}
