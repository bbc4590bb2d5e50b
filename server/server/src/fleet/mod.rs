//! The controller's side of scale-out: the agents that dialled in, and the run split
//! over them. Agents register (each given a key of its own, which its every later call
//! carries: [`agent_key`]) and heartbeat; a run started with `agents: N` gives shard I
//! of N to each of N idle agents; every phase starts behind a barrier; each agent keeps
//! sending its shard's run folder as it grows (every second), and at the end the
//! controller merges the folders exactly into one run (the parts kept under its
//! `shards/`); an agent reaches only the copy of the shard it holds ([`shard_folders`]).
//! An agent silent for [`keystorm_link::protocol::LOST_AFTER_MS`] is lost: the others
//! go on, and an idle agent takes its shard over (or the same agent started again, same
//! name, takes it back), resuming it from the copy of its folder. While the run goes,
//! the agents' news (each interval with its histograms) is merged live into the run's
//! folder and stream, which the exact merge replaces at the end. The run's record is
//! kept on disk beside the copies, so a controller killed mid-run and started again on
//! the same results folder picks the run up and its agents carry on.
//!
//! Memory holds one record per agent and one per shard of the current run.

mod agent_key;
mod agent_record;
mod caps;
mod copies;
mod error;
mod finish;
mod incoming;
mod keys_stay_home;
mod live;
mod new_run;
mod pick_up;
mod registry;
mod run_record;
mod saved_run;
mod search;
mod search_record;
mod shard_folders;
mod shards;
mod silence;
mod state;
mod takeover;
mod views;

pub use caps::PartCaps;
pub use copies::PartUpload;
pub use error::FleetError;
pub use keys_stay_home::inline_keys_refusal;
pub use new_run::NewFleetRun;
pub use search::SEARCH_WAIT;
pub use search_record::SearchSpec;
pub use state::Fleet;
pub use takeover::waited_words;
pub use views::{AgentView, AgentsView, FleetRunView, ShardView};

#[cfg(test)]
mod copies_tests;
#[cfg(test)]
mod live_tests;
#[cfg(test)]
mod pick_up_tests;
#[cfg(test)]
mod scope_tests;
#[cfg(test)]
mod search_tests;
#[cfg(test)]
mod tests;
