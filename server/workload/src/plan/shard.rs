//! A plan cut down to one shard of its workload (`keystorm run W --shard I/N`): the
//! shard's part of every count, of every open-loop rate and of the keys that already
//! exist, while durations and what a phase keeps going at once (its workers, listers,
//! HEAD workers or objects in flight) stay as written: they are per process.
//! What only one process may do — poll the RGW bucket index, create the buckets — is
//! left to shard 0. The shards of one workload together do what the whole plan does.

use keystorm_results::Shard;

use super::{PhaseEnd, PhaseKind, Plan};

/// A workload that cannot be split.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardPlanError {
    #[error(
        "phase {phase} is a {direction}: transfers run in one process (leave --shard out, \
         or split the folder into workloads of their own)"
    )]
    Transfer {
        phase: String,
        direction: &'static str,
    },
    #[error(
        "phase {phase} audits the whole bucket against every key written, and a shard knows \
         only its own keys: run the audit in one process (a workload of its own, without \
         --shard or agents, whose `keyspace: existing` is the keys the shards wrote)"
    )]
    Audit { phase: String },
    #[error(
        "`cleanup: buckets` deletes the buckets when the run ends, and a shard ends before \
         the others do: leave it out of a sharded workload (`cleanup: objects` is fine)"
    )]
    CleanupBuckets,
    #[error(
        "phase {phase} searches for its sustainable rate, choosing each step on what every \
         shard measured of the one before: a controller does that for its agents (`keystorm \
         run --controller URL --agents N`), and a shard run on its own (`--shard`) cannot. \
         Leave --shard out, run the workload over agents, or sweep rates you choose \
         (`rates:`)"
    )]
    Search { phase: String },
}

impl Plan {
    /// Why this plan cannot run as a shard without a controller choosing its search's
    /// steps (`--shard` alone), if it cannot.
    pub fn search_without_controller(&self) -> Option<ShardPlanError> {
        self.phases()
            .find(|p| p.search.is_some())
            .map(|p| ShardPlanError::Search {
                phase: p.name.clone(),
            })
    }

    /// Turns the plan of the whole workload into the plan of `shard` (a whole run's plan
    /// is left as it is).
    pub fn for_shard(&mut self, shard: Shard) -> Result<(), ShardPlanError> {
        if shard.is_whole() {
            return Ok(());
        }
        if self.cleanup.buckets {
            return Err(ShardPlanError::CleanupBuckets);
        }
        for phase in self.phases_mut() {
            if let PhaseKind::Audit { .. } = &phase.kind {
                return Err(ShardPlanError::Audit {
                    phase: phase.name.clone(),
                });
            }
            if let PhaseKind::Transfer(t) = &phase.kind {
                return Err(ShardPlanError::Transfer {
                    phase: phase.name.clone(),
                    direction: match t.direction {
                        super::TransferDirection::Download => "download",
                        super::TransferDirection::Upload => "upload",
                    },
                });
            }
            phase.end = match phase.end {
                PhaseEnd::Operations(n) => PhaseEnd::Operations(shard.share_of(n)),
                PhaseEnd::UntilObjects(n) => PhaseEnd::UntilObjects(shard.share_of(n)),
                ref other => other.clone(),
            };
            phase.rate = phase.rate.map(|r| r / f64::from(shard.count));
        }
        self.keyspace.existing = shard.share_of(self.keyspace.existing);
        self.keyspace.shard = shard;
        if !shard.is_first() {
            self.target.rgw.admin = None;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORKLOAD: &str = "\
name: split
target:
  endpoint: http://127.0.0.1:9
  rgw:
    admin:
      credentials: { env: { access_key: A, secret_key: B } }
buckets: { names: [split] }
keyspace: { existing: 10 }
before:
  - { name: fill, op: put, workers: 8, until_objects: 1001 }
rounds:
  count: 2
  phases:
    - { name: write, op: put, workers: 4, duration: 5s, rate: 900 }
    - { name: read, op: get, workers: 4, operations: 100 }
after:
  - { name: list, op: list, mode: prefix }
";

    fn plan(text: &str) -> Plan {
        crate::spec::parse_workload(text, "split.yaml").unwrap().0
    }

    #[test]
    fn a_shard_gets_its_part_of_every_count_rate_and_existing_key() {
        let whole = plan(WORKLOAD);
        let mut fills = 0;
        let mut reads = 0;
        let mut existing = 0;
        for index in 0..3 {
            let shard = Shard::new(index, 3).unwrap();
            let mut p = whole.clone();
            p.for_shard(shard).unwrap();
            assert_eq!(p.keyspace.shard, shard);
            let PhaseEnd::UntilObjects(n) = p.before[0].end else {
                panic!("{:?}", p.before[0].end)
            };
            fills += n;
            let PhaseEnd::Operations(n) = p.rounds.phases[1].end else {
                panic!("{:?}", p.rounds.phases[1].end)
            };
            reads += n;
            existing += p.keyspace.existing;
            assert_eq!(p.rounds.phases[0].rate, Some(300.0));
            assert_eq!(
                p.rounds.phases[0].end, whole.rounds.phases[0].end,
                "durations stay"
            );
            assert_eq!(
                p.before[0].kind,
                PhaseKind::Operations { workers: 8 },
                "workers are per process"
            );
            assert_eq!(p.target.rgw.admin.is_some(), index == 0, "one index poller");
        }
        assert_eq!((fills, reads, existing), (1001, 100, 10));
        let mut same = whole.clone();
        same.for_shard(Shard::WHOLE).unwrap();
        assert_eq!(same.keyspace.existing, 10);
        assert!(same.target.rgw.admin.is_some());
    }

    #[test]
    fn transfers_and_bucket_cleanup_are_refused_with_a_reason() {
        let shard = Shard::new(1, 2).unwrap();
        let mut cleanup = plan(&format!("{WORKLOAD}cleanup: {{ buckets: true }}\n"));
        assert_eq!(
            cleanup.for_shard(shard),
            Err(ShardPlanError::CleanupBuckets)
        );
        let mut transfer = plan(&WORKLOAD.replace(
            "{ name: list, op: list, mode: prefix }",
            "{ name: get-all, op: download, dir: out }",
        ));
        let e = transfer.for_shard(shard).unwrap_err();
        assert!(
            e.to_string().starts_with("phase get-all is a download"),
            "{e}"
        );
        let mut search = plan(&WORKLOAD.replace(
            "rate: 900",
            "search: { slo: \"put.p99 < 50ms\", from: 100, to: 1000 }",
        ));
        assert_eq!(
            search.search_without_controller(),
            Some(ShardPlanError::Search {
                phase: "write".into()
            })
        );
        // A controller chooses the steps of its agents' shards: the split leaves the
        // search whole (its rates are the run's, split at each step).
        let whole = search.clone();
        search.for_shard(shard).unwrap();
        assert_eq!(
            search.rounds.phases[0].search,
            whole.rounds.phases[0].search
        );
        assert_eq!(search.rounds.phases[0].rate, None);
    }
}
