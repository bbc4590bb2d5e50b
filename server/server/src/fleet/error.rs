//! Why the controller refuses an agent's or a user's request.

use super::shard_folders::FolderRefusal;
use keystorm_link::bounds::BoundsError;
use keystorm_link::protocol::AGENT_KEY_HEADER;
use keystorm_workload::size::format_size;

/// A refused request; the API turns each into a JSON error with a 4xx.
#[derive(Debug, thiserror::Error)]
pub enum FleetError {
    #[error(
        "agent {name} runs keystorm {agent}, this controller runs {controller}: run one \
         version on the controller and every agent"
    )]
    VersionMismatch {
        name: String,
        agent: String,
        controller: String,
    },
    /// Something an agent says is out of bounds (see [`keystorm_link::bounds`]).
    #[error(transparent)]
    Bounds(#[from] BoundsError),
    #[error("an agent named {0} is connected already; give each agent its own name (--name)")]
    NameTaken(String),
    #[error("agent {0} is not registered (the controller restarted?): register again")]
    UnknownAgent(String),
    #[error(
        "a call of agent {0} carries the key the controller gave it when it registered, in \
         the {AGENT_KEY_HEADER} header; this one has none"
    )]
    AgentKeyMissing(String),
    #[error(
        "the {AGENT_KEY_HEADER} header does not hold agent {0}'s key: an agent calls with \
         its own id and the key given with it (both change when it registers again)"
    )]
    WrongAgentKey(String),
    /// A shard folder the calling agent's shard may not use.
    #[error(transparent)]
    NotShardFolder(#[from] FolderRefusal),
    #[error("{0}")]
    NotEnoughAgents(String),
    #[error("run {0} is still going across agents; stop it or wait for it (one at a time)")]
    RunInProgress(String),
    #[error("run {0} is not a run of this controller's agents, or it has ended")]
    UnknownRun(String),
    #[error(
        "the controller holds {have} bytes of {file}, less than where this piece starts: \
         send from there"
    )]
    PartBehind { file: String, have: u64 },
    #[error(
        "{file} of shard folder {local} would be {}, over the controller's cap of {} a \
         file: start `keystorm serve` with a larger --max-shard-file-size to take it",
        format_size(*size),
        format_size(*cap)
    )]
    FileOverCap {
        file: String,
        local: String,
        size: u64,
        cap: u64,
    },
    #[error(
        "the controller's copies of run {run}'s shard folders would hold {}, over its cap \
         of {} a run: start `keystorm serve` with a larger --max-run-copy-size to take more",
        format_size(*size),
        format_size(*cap)
    )]
    RunOverCap { run: String, size: u64, cap: u64 },
    #[error("this controller has {0} agents connected, its most")]
    Full(usize),
    #[error("{0}")]
    Io(String),
}
