//! Shard tracking: during a run, poll every bucket's index through the admin API
//! (stats for the shard and object counts, the bucket-instance metadata for "reshard
//! in progress"), keep the latest answer for the interval records, and turn a change
//! of shard count into a reshard event linked to the write stalls around it.
//!
//! The tracker runs beside the phases on its own connection and never touches the
//! workers; what a poll costs is measured and reported at the end of the run. Memory
//! is fixed: the latest state per bucket and a short ring of recent events.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use tokio_util::sync::CancellationToken;

use super::{AdminClient, AdminError};
use keystorm_results::{BucketIndex, IndexPollingEvent, ReshardEvent};
use keystorm_results::{EventPosition, RunEvent};

/// Stalls and reshards this far apart (seconds, between their windows) are linked:
/// writers blocked by a reshard back off in 5-second steps, so the stall they make
/// ends a step or two after the reshard was seen to end.
const LINK_WINDOW_S: f64 = 15.0;
/// Recent events kept for linking.
const RECENT: usize = 64;

/// What the tracker needs of the run it serves: its clock, where it is, and its event
/// log. The executor's run context provides it; the tracker names no executor type, so
/// the executor depends on the tracker and not the other way round.
pub(crate) trait RunLog {
    /// Seconds from the run's first start to `at`.
    fn t_s(&self, at: Instant) -> f64;
    /// The phase running at `at` and its interval number.
    fn position(&self, at: Instant) -> Option<EventPosition>;
    /// Logs the event and tells the run's observer; its id in the event log.
    fn emit(&self, e: RunEvent) -> u64;
}

pub(crate) struct IndexTracker {
    admin: AdminClient,
    buckets: Vec<String>,
    poll: Duration,
    state: Mutex<State>,
    /// Set once the buckets exist; polling starts then.
    ready: CancellationToken,
}

struct State {
    buckets: Vec<Track>,
    /// Polls started; a poll's answers are dropped when a later poll's already landed
    /// (the phase's own polls can overlap the periodic ones).
    started: u64,
    applied: u64,
    reshards: VecDeque<Window>,
    stalls: VecDeque<Window>,
    /// Microseconds per poll of all buckets.
    cost: Histogram<u64>,
    failures: u64,
    warned: bool,
}

#[derive(Default, Clone)]
struct Track {
    latest: Option<BucketIndex>,
    /// When and where the last poll happened (the start of a reshard seen next).
    last_poll: Option<(f64, Option<EventPosition>)>,
    /// Seen in progress since.
    in_progress: Option<(f64, Option<EventPosition>)>,
}

#[derive(Clone, Copy)]
struct Window {
    id: u64,
    start: f64,
    end: f64,
    /// A stall already linked to a reshard (each stall links to one at most).
    linked: bool,
}

fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    if a.1 < b.0 {
        b.0 - a.1
    } else if b.1 < a.0 {
        a.0 - b.1
    } else {
        0.0
    }
}

/// See [`IndexTracker::nearest_reshard`].
fn choose_reshard(
    reshards: &VecDeque<Window>,
    reach_start: f64,
    start: f64,
    end: f64,
) -> Option<u64> {
    reshards
        .iter()
        .filter(|r| distance((r.start, r.end), (reach_start, end)) <= LINK_WINDOW_S)
        .map(|r| (distance((r.start, r.end), (start, end)), r.id))
        .min_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)))
        .map(|(_, id)| id)
}

impl IndexTracker {
    pub fn new(admin: AdminClient, buckets: Vec<String>, poll: Duration) -> IndexTracker {
        let n = buckets.len();
        IndexTracker {
            admin,
            buckets,
            poll,
            ready: CancellationToken::new(),
            state: Mutex::new(State {
                buckets: vec![Track::default(); n],
                started: 0,
                applied: 0,
                reshards: VecDeque::new(),
                stalls: VecDeque::new(),
                cost: Histogram::new_with_bounds(1, 3_600_000_000, 3)
                    .expect("static histogram bounds are valid"),
                failures: 0,
                warned: false,
            }),
        }
    }

    pub fn admin(&self) -> &AdminClient {
        &self.admin
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The latest known index of every bucket that answered.
    pub fn snapshot(&self) -> Vec<BucketIndex> {
        self.state()
            .buckets
            .iter()
            .filter_map(|t| t.latest.clone())
            .collect()
    }

    /// The buckets exist: polling may start.
    pub fn mark_ready(&self) {
        self.ready.cancel();
    }

    /// Polls until `stop`, from the moment the buckets are ready.
    pub async fn run(&self, ctx: &impl RunLog, stop: CancellationToken) {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = self.ready.cancelled() => {}
        }
        let mut ticker = tokio::time::interval(self.poll);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = ticker.tick() => self.poll_once(ctx).await,
            }
        }
    }

    /// Polls every bucket once and records what changed.
    pub async fn poll_once(&self, ctx: &impl RunLog) {
        let seq = {
            let mut state = self.state();
            state.started += 1;
            state.started
        };
        let started = Instant::now();
        let mut answers = Vec::with_capacity(self.buckets.len());
        for bucket in &self.buckets {
            answers.push(self.poll_bucket(bucket).await);
        }
        let cost = started.elapsed();
        let t = ctx.t_s(Instant::now());
        let position = ctx.position(Instant::now());
        let mut events = Vec::new();
        {
            let mut state = self.state();
            let _ = state.cost.record(cost.as_micros().max(1) as u64);
            if seq < state.applied {
                return;
            }
            state.applied = seq;
            for (i, answer) in answers.into_iter().enumerate() {
                let now = match answer {
                    Ok(now) => now,
                    Err(message) => {
                        state.failures += 1;
                        if !state.warned {
                            state.warned = true;
                            events.push(RunEvent::Warning {
                                message: format!(
                                    "shard tracking: {message} (further failures are counted, not shown)"
                                ),
                            });
                        }
                        continue;
                    }
                };
                let track = &mut state.buckets[i];
                if now.resharding && track.in_progress.is_none() {
                    track.in_progress =
                        Some(track.last_poll.clone().unwrap_or((t, position.clone())));
                }
                if let Some(before) = &track.latest
                    && before.shards != now.shards
                {
                    let (start_t, start) = track
                        .in_progress
                        .take()
                        .or_else(|| track.last_poll.clone())
                        .unwrap_or((t, position.clone()));
                    events.push(RunEvent::Reshard(ReshardEvent {
                        bucket: now.bucket.clone(),
                        from_shards: before.shards,
                        to_shards: now.shards,
                        objects: now.objects,
                        start_t_s: start_t,
                        end_t_s: t,
                        start,
                        end: position.clone(),
                        stalls: Vec::new(),
                    }));
                }
                if !now.resharding
                    && track
                        .latest
                        .as_ref()
                        .is_some_and(|b| b.shards == now.shards)
                {
                    track.in_progress = None;
                }
                track.latest = Some(now);
                track.last_poll = Some((t, position.clone()));
            }
        }
        for mut event in events {
            if let RunEvent::Reshard(r) = &mut event {
                let window = (r.start_t_s, r.end_t_s);
                // Stalls seen before this reshard was, and not linked yet, are its own.
                r.stalls = self
                    .state()
                    .stalls
                    .iter_mut()
                    .filter(|s| !s.linked && distance((s.start, s.end), window) <= LINK_WINDOW_S)
                    .map(|s| {
                        s.linked = true;
                        s.id
                    })
                    .collect();
                let id = ctx.emit(event.clone());
                let mut state = self.state();
                state.reshards.push_back(Window {
                    id,
                    start: window.0,
                    end: window.1,
                    linked: true,
                });
                if state.reshards.len() > RECENT {
                    state.reshards.pop_front();
                }
            } else {
                ctx.emit(event);
            }
        }
    }

    async fn poll_bucket(&self, bucket: &str) -> Result<BucketIndex, AdminError> {
        let stats = self.admin.bucket_stats(bucket).await?;
        let instance = self.admin.bucket_instance(bucket, &stats.id).await?;
        Ok(BucketIndex {
            bucket: bucket.to_string(),
            shards: stats.num_shards,
            objects: stats.num_objects,
            resharding: instance.reshard_status == 1,
        })
    }

    /// The recent reshard that most likely caused a stall, if any is close enough: one
    /// within reach of the span `[reach_start, end]` in which the stall's slowest writes
    /// were in flight, and of those the nearest to the stall's own window `[start,
    /// end]` (the latest on a tie). While a reshard is in progress, none: the stall is
    /// left for that reshard to claim when its new shard count is seen.
    pub fn nearest_reshard(&self, reach_start: f64, start: f64, end: f64) -> Option<u64> {
        let state = self.state();
        if state.buckets.iter().any(|b| b.in_progress.is_some()) {
            return None;
        }
        choose_reshard(&state.reshards, reach_start, start, end)
    }

    /// Remembers an emitted stall for reshards seen later.
    pub fn remember_stall(&self, id: u64, start: f64, end: f64, linked: bool) {
        let mut state = self.state();
        state.stalls.push_back(Window {
            id,
            start,
            end,
            linked,
        });
        if state.stalls.len() > RECENT {
            state.stalls.pop_front();
        }
    }

    /// What polling cost, for the end of the run.
    pub fn cost_event(&self) -> RunEvent {
        let state = self.state();
        let ms = |q: f64| state.cost.value_at_quantile(q) as f64 / 1000.0;
        RunEvent::IndexPolling(IndexPollingEvent {
            polls: state.cost.len(),
            failures: state.failures,
            buckets: self.buckets.len(),
            p50_ms: ms(0.5),
            p99_ms: ms(0.99),
            max_ms: state.cost.max() as f64 / 1000.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reshard(id: u64, start: f64, end: f64) -> Window {
        Window {
            id,
            start,
            end,
            linked: false,
        }
    }

    #[test]
    fn a_stall_links_to_the_reshard_inside_it_not_an_older_one_in_reach() {
        // Seen on RGW: reshards at 15-17 s and 46-47 s; a stall 43-61 s whose slowest
        // writes (40 s) were in flight since 3 s has both in reach.
        let reshards: VecDeque<_> = [reshard(21, 15.3, 17.3), reshard(53, 46.3, 47.3)].into();
        assert_eq!(choose_reshard(&reshards, 2.7, 42.7, 60.7), Some(53));
        // A stall released long after its reshard still finds it through its reach.
        assert_eq!(choose_reshard(&reshards, 10.0, 70.0, 75.0), Some(53));
        assert_eq!(choose_reshard(&reshards, 17.5, 17.7, 21.7), Some(21));
        // Nothing in reach.
        assert_eq!(choose_reshard(&reshards, 100.0, 101.0, 105.0), None);
    }
}
