//! The flags of `keystorm agent`: the controller it dials and how this agent runs
//! its shards.

use keystorm_console::progress::ProgressMode;

use super::results_args::ResultsArgs;
use super::tls_args::LinkTlsArgs;

#[derive(Debug, clap::Args)]
pub struct AgentArgs {
    /// The controller's URL (https://HOST:PORT of `keystorm serve`; http:// on
    /// loopback).
    #[arg(
        long,
        value_name = "URL",
        env = "KEYSTORM_CONTROLLER",
        hide_env_values = true
    )]
    pub controller: String,

    #[command(flatten)]
    pub link: LinkTlsArgs,

    /// The controller's token (its --token); give it in KEYSTORM_TOKEN or --token-file
    /// rather than on the command line, where every user of the host can read it.
    #[arg(long, env = "KEYSTORM_TOKEN", hide_env_values = true)]
    pub token: Option<String>,

    /// A file whose first line is the controller's token.
    #[arg(
        long,
        value_name = "FILE",
        env = "KEYSTORM_TOKEN_FILE",
        hide_env_values = true
    )]
    pub token_file: Option<std::path::PathBuf>,

    /// This agent's name, unique among the controller's agents; started again under
    /// the same name (and results folder) it resumes the shard it held. Default: the
    /// host name.
    #[arg(long, env = "KEYSTORM_AGENT_NAME", hide_env_values = true)]
    pub name: Option<String>,

    /// Use this endpoint instead of the one the controller gives (this host's way to
    /// the store); several: give it again, or separate them by commas.
    #[arg(long, value_name = "URL")]
    pub endpoint: Vec<String>,

    /// Progress display of the shards it runs.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,

    #[command(flatten)]
    pub results: ResultsArgs,
}
