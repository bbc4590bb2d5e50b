//! A phase worker: picks the next operation (single or weighted mix), paces it (closed
//! loop, or an open-loop schedule whose latency counts from the intended start), runs
//! it and records the outcome. One worker has one request in flight at a time.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::context::RunContext;
use super::draws::{OpDraw, WorkerDraws};
use super::first_errors::Seen;
use super::op::{OpRunner, Outcome};
use super::phase_shared::PhaseShared;
use crate::keyset::EpochPick;
use crate::metrics::Recorder;
use crate::plan::{PhasePlan, PhaseWork};
use keystorm_results::PhaseEnd;
use keystorm_types::OpKind;

/// How long a fill worker waits before looking again for failed puts to redo.
const RETRY_POLL: Duration = Duration::from_millis(2);

pub(crate) struct Worker {
    runner: OpRunner,
    plan: PhasePlan,
    shared: Arc<PhaseShared>,
    recorder: Recorder,
    /// Where this worker's per-operation choices come from.
    draws: WorkerDraws,
    /// How many operations this worker has drawn so far.
    sequence: u64,
    /// Cumulative mix weights, for a weighted pick.
    mix: Vec<(OpKind, u32)>,
    mix_total: u32,
    /// Error classes already passed on to the run's first errors.
    seen: Seen,
    /// Why the key file could not be opened for this worker, if it could not.
    keys_failed: Option<String>,
    /// The run drives several endpoints: each is measured apart too.
    by_endpoint: bool,
}

/// What the worker should do next.
enum Next {
    /// The op, its draws, and an epochs phase's pick.
    Go(OpKind, OpDraw, Option<EpochPick>),
    Done,
}

impl Worker {
    pub fn new(
        ctx: &RunContext,
        plan: &PhasePlan,
        shared: Arc<PhaseShared>,
        recorder: Recorder,
        phase: usize,
        id: u32,
    ) -> Worker {
        let (mix, mix_total) = match &plan.work {
            PhaseWork::Mix(weights) => {
                let mut acc = 0;
                let cumulative = weights
                    .iter()
                    .map(|(op, w)| {
                        acc += w;
                        (*op, acc)
                    })
                    .collect();
                (cumulative, acc)
            }
            PhaseWork::Single(_) => (Vec::new(), 0),
        };
        let (keys, keys_failed) = match shared.keys.as_ref().map(|k| k.reader()) {
            Some(Ok(r)) => (Some(r), None),
            Some(Err(e)) => (None, Some(e.to_string())),
            None => (None, None),
        };
        Worker {
            runner: OpRunner::new(ctx, plan, keys, id),
            by_endpoint: ctx.gateways.several(),
            plan: plan.clone(),
            shared,
            recorder,
            // Workers of the shards of one workload are numbered apart, so shards
            // draw their own streams, each the same wherever the shard runs (an ops
            // phase's tasks are its workers).
            draws: WorkerDraws::new(
                ctx.plan.keyspace.seed,
                phase,
                ctx.plan
                    .keyspace
                    .shard
                    .index
                    .wrapping_mul(plan.tasks())
                    .wrapping_add(id),
            ),
            sequence: 0,
            mix,
            mix_total,
            seen: Seen::default(),
            keys_failed,
        }
    }

    /// Runs until the phase ends; returns a warning to show, if any.
    pub async fn run(mut self) -> Option<String> {
        if let Some(e) = self.keys_failed.take() {
            return Some(e);
        }
        loop {
            if self.shared.stop.is_cancelled() {
                return None;
            }
            let (op, mut draw, pick) = match self.next_op() {
                Next::Go(op, draw, pick) => (op, draw, pick),
                Next::Done => return None,
            };
            let intended = match self.pace().await {
                Some(t) => t,
                // A pick handed out and not read: the phase ended (its resume reads it).
                None => return None,
            };
            // How late this request leaves after its slot: the client's own delay.
            let lag = intended.map(|at| Instant::now().saturating_duration_since(at));
            let selection = self.plan.selection;
            let outcome = self.runner.run(op, &mut draw, selection, pick).await;
            match outcome {
                Outcome::Done {
                    latency_from,
                    result,
                } => {
                    let start = intended.unwrap_or(latency_from);
                    let by_endpoint = self.by_endpoint;
                    self.recorder.with(|s| {
                        let stats = result.record(s, op, start, by_endpoint);
                        if let Some(lag) = lag {
                            stats.record_lag(lag);
                        }
                    });
                    if let Some(e) = result.error() {
                        self.seen.note(e, &self.shared.first_errors);
                    }
                    if let Some(f) = result.finding() {
                        self.shared.integrity.note(f);
                    }
                    self.runner.settle(&result);
                    // Recorded: the checkpoint's watermark may pass it.
                    if let (Some(p), Some(e)) = (pick, &self.shared.epochs) {
                        e.finish(p.number);
                    }
                }
                Outcome::KeyFile(message) => return Some(message),
                Outcome::NothingToDo => match (&self.plan.work, op) {
                    (PhaseWork::Single(OpKind::Put), _) => {
                        // A fill reached its target; failed puts may still need redoing.
                        if self.runner.puts_settled() {
                            return None;
                        }
                        tokio::select! {
                            _ = tokio::time::sleep(RETRY_POLL) => {}
                            _ = self.shared.stop.cancelled() => return None,
                        }
                    }
                    (PhaseWork::Single(OpKind::Delete), _) => return None,
                    (PhaseWork::Single(_), _) => {
                        if !self.shared.empty_warned.swap(true, Ordering::Relaxed) {
                            return Some(match &self.shared.keys {
                                Some(k) => format!(
                                    "the key file {} holds no keys for this run to read",
                                    k.path().display()
                                ),
                                None => "the keyspace window is empty: nothing to read".into(),
                            });
                        }
                        return None;
                    }
                    (PhaseWork::Mix(_), _) => tokio::task::yield_now().await,
                },
            }
        }
    }

    fn next_op(&mut self) -> Next {
        if let PhaseEnd::Operations(n) = self.plan.end
            && self.shared.issued.fetch_add(1, Ordering::Relaxed) >= n
        {
            return Next::Done;
        }
        let pick = match &self.shared.epochs {
            Some(e) => match e.begin() {
                Some(p) => Some(p),
                None => return Next::Done,
            },
            None => None,
        };
        let mut draw = self.draws.op(self.sequence);
        self.sequence += 1;
        let op = match &self.plan.work {
            PhaseWork::Single(op) => *op,
            PhaseWork::Mix(_) => draw.mix_op(&self.mix, self.mix_total),
        };
        Next::Go(op, draw, pick)
    }

    /// Open loop: waits for this operation's slot (on the phase's alarms, which end
    /// within microseconds of it without a thread waiting awake, not at tokio's next
    /// millisecond tick, so a request is not charged the client's own timer slop) and
    /// returns its intended start (from which latency is measured). Closed loop: returns `Some(None)` at once. `None` when
    /// the phase ended while waiting.
    async fn pace(&mut self) -> Option<Option<Instant>> {
        let Some(rate) = self.plan.rate else {
            return Some(None);
        };
        let slot = self.shared.slot();
        let intended = self.shared.start + Duration::from_secs_f64(slot as f64 / rate);
        if self.shared.deadline().is_some_and(|at| intended >= at) {
            return None;
        }
        if intended > Instant::now() {
            let slot = async {
                match &self.shared.alarms {
                    Some(alarms) => alarms.sleep_until(intended).await,
                    None => keystorm_timer::sleep_until(intended).await,
                }
            };
            tokio::select! {
                biased;
                _ = slot => {}
                // The deadline's stop does not drop a slot due before it that this
                // worker was waiting for when a busy machine woke the deadline first:
                // it leaves now, late, with its lag; any other stop ends the wait.
                _ = self.shared.stop.cancelled() => {
                    if !self.shared.past_deadline() {
                        return None;
                    }
                }
            }
        }
        Some(Some(intended))
    }
}
