//! How an agent was started: its name, where it keeps its shards' runs, its own way
//! to the store, and how it shows progress.

use std::path::PathBuf;

use keystorm_console::progress::ProgressMode;

/// How an agent was started.
pub struct AgentConfig {
    pub name: String,
    /// The host it reports (this machine's name, made printable if it was not).
    pub host: String,
    pub results_root: PathBuf,
    /// Used instead of the endpoint the controller gives (this host's way to the store).
    pub endpoint: Option<String>,
    pub progress: ProgressMode,
}
