//! What a run changes of its workload's plan (the command line's `--index`,
//! `--client`, `--verify` and `--shard`, recorded in the run's manifest), applied in one place.

use keystorm_results::RunOverrides;

use super::Plan;
use super::shard::ShardPlanError;

impl Plan {
    /// Applies a run's plan-level overrides (index layout, client, verify, shard); the endpoint
    /// is used when the run connects.
    pub fn apply_overrides(&mut self, overrides: &RunOverrides) -> Result<(), ShardPlanError> {
        if let Some(layout) = overrides.index {
            self.set_index(layout);
        }
        if let Some(client) = overrides.client {
            self.target.client = client;
        }
        if overrides.verify {
            self.verify_all_gets();
        }
        match overrides.shard {
            Some(shard) => self.for_shard(shard),
            None => Ok(()),
        }
    }
}
