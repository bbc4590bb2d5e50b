//! What an agent tells its controller about its shard in every heartbeat, kept up to
//! date from the run's events (and shown on the agent's terminal as `keystorm run`
//! shows a run): the shard's state, and its news — each interval with its latency
//! histograms, and the events the live view shows — queued until the controller took
//! them. The queue is bounded: an agent cut off from its controller for long drops the
//! oldest news (the live view misses those seconds; the merge at the end, from the
//! shard's files, does not).

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use keystorm_results::RunEvent;
use keystorm_results::metrics::IntervalStats;
use keystorm_results::{IntervalRecord, PhaseRef, encode_histogram};
use keystorm_types::OpKind;
use keystorm_workload::observer::Observer;

use keystorm_console::progress::Progress;
use keystorm_link::bounds::{MAX_PHASE_CHARS, clip};
use keystorm_link::protocol::{MAX_NEWS_PER_BEAT, SentInterval, ShardNews, ShardReport, now_ms};

/// News kept for the controller at most: ten minutes of one interval a second with
/// an event now and then.
pub const MAX_QUEUED_NEWS: usize = 1_200;

#[derive(Default)]
struct State {
    report: Option<ShardReport>,
    news: VecDeque<ShardNews>,
    next_seq: u64,
    dropped: u64,
    /// The controller's clock minus this agent's, as last measured (ms).
    offset_ms: i64,
    /// The target's clock minus this agent's (ms), once measured.
    target_skew_ms: Option<i64>,
    /// The histograms of the interval being recorded, until its event comes.
    histograms: Option<(u64, Recorded)>,
}

/// An interval's encoded histograms: per operation, and per endpoint and operation.
type Recorded = (BTreeMap<OpKind, String>, Vec<(String, OpKind, String)>);

/// The shard's state, shared by the run's observer and the heartbeat loop.
#[derive(Clone, Default)]
pub struct ShardStatus(Arc<Mutex<State>>, Arc<Notify>);

impl ShardStatus {
    /// The report for the next heartbeat, with the oldest news not yet taken.
    pub fn report(&self) -> Option<ShardReport> {
        let state = self.lock();
        let mut report = state.report.clone()?;
        report.news = state.news.iter().take(MAX_NEWS_PER_BEAT).cloned().collect();
        Some(report)
    }

    /// The controller took the news up to `seq`.
    pub fn taken(&self, seq: u64) {
        let mut state = self.lock();
        while state.news.front().is_some_and(|n| n.seq <= seq) {
            state.news.pop_front();
        }
        if state.news.is_empty() {
            self.1.notify_waiters();
        }
    }

    /// Returns once the controller took every piece of news queued.
    pub async fn drained(&self) {
        loop {
            let taken = self.1.notified();
            if self.lock().news.is_empty() {
                return;
            }
            taken.await;
        }
    }

    /// A new shard (or none): its news starts afresh, under a stream of its own.
    pub fn set(&self, report: Option<ShardReport>) {
        let mut state = self.lock();
        state.news.clear();
        state.next_seq = 0;
        state.histograms = None;
        state.report = report.map(|mut r| {
            // Later for each new shard run on this agent, and for a restarted agent.
            r.stream = now_ms().max(1);
            r.news = Vec::new();
            r
        });
    }

    /// The shard's run folder here, once the run made it (at once for a resume).
    pub fn local_run_id(&self) -> Option<String> {
        self.lock().report.as_ref()?.local_run_id.clone()
    }

    pub fn target_skew_ms(&self) -> Option<i64> {
        self.lock().target_skew_ms
    }

    pub fn set_target_skew(&self, skew_ms: Option<i64>) {
        self.lock().target_skew_ms = skew_ms;
    }

    pub fn set_offset(&self, offset_ms: i64) {
        self.lock().offset_ms = offset_ms;
    }

    fn update(&self, change: impl FnOnce(&mut ShardReport)) {
        if let Some(r) = self.lock().report.as_mut() {
            change(r);
        }
    }

    fn push(&self, interval: Option<SentInterval>, event: Option<RunEvent>) {
        let mut state = self.lock();
        if state.report.is_none() {
            return;
        }
        if state.news.len() >= MAX_QUEUED_NEWS {
            state.news.pop_front();
            state.dropped += 1;
            if state.dropped == 1 {
                stderrln!(
                    "the controller has not taken this shard's news for a while: the oldest \
                     is dropped from its live view (the merged results at the end are whole)"
                );
            }
        }
        let seq = state.next_seq;
        state.next_seq += 1;
        state.news.push_back(ShardNews {
            seq,
            interval: interval.and_then(|i| serde_json::to_value(i).ok()),
            event: event.and_then(|e| serde_json::to_value(e).ok()),
        });
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Feeds the status and shows progress.
pub struct AgentObserver {
    pub status: ShardStatus,
    pub progress: Progress,
}

fn label(p: &PhaseRef) -> String {
    match p.round {
        Some(r) => format!("round {r} · {}", p.name),
        None => format!("{} · {}", p.section.as_str(), p.name),
    }
}

impl Observer for AgentObserver {
    fn event(&self, id: u64, event: &RunEvent) {
        self.progress.event(id, event);
        match event {
            RunEvent::Started { run_id, .. } => self.status.update(|r| {
                r.local_run_id = Some(run_id.clone());
            }),
            RunEvent::PhaseStarted { phase, .. } => {
                self.status.update(|r| {
                    r.phase = Some(clip(&label(phase), MAX_PHASE_CHARS, false));
                    r.operations = 0;
                });
                self.status.push(None, Some(event.clone()));
            }
            RunEvent::Interval {
                record, progress, ..
            } => {
                self.status.update(|r| {
                    r.operations = progress.ops;
                });
                let (histograms, offset_ms) = {
                    let mut state = self.status.lock();
                    let histograms: Recorded = state
                        .histograms
                        .take()
                        .filter(|(n, _)| *n == record.interval)
                        .map(|(_, h)| h)
                        .unwrap_or_default();
                    (histograms, state.offset_ms)
                };
                // It began `duration_s` ago on this clock; the controller's clock is
                // `offset_ms` ahead.
                let began = now_ms() as i64 - (record.duration_s * 1000.0) as i64 + offset_ms;
                self.status.push(
                    Some(SentInterval {
                        at_ms: began.max(0) as u64,
                        record: (**record).clone(),
                        progress: *progress,
                        histograms: histograms.0,
                        endpoint_histograms: histograms.1,
                    }),
                    None,
                );
            }
            RunEvent::Warning { .. }
            | RunEvent::Reshard(_)
            | RunEvent::Stall(_)
            | RunEvent::Endpoint(_) => {
                self.status.push(None, Some(event.clone()));
            }
            _ => {}
        }
    }

    fn interval_recorded(&self, record: &IntervalRecord, stats: &IntervalStats) {
        let histograms = stats
            .active()
            .filter(|(_, s)| !s.latency.is_empty())
            .map(|(op, s)| (op, encode_histogram(&s.latency)))
            .collect();
        // The record lists the endpoints that did anything, in the order of the stats.
        let active = stats
            .endpoints
            .iter()
            .filter(|s| s.active().next().is_some());
        let endpoint_histograms = active
            .zip(&record.endpoints)
            .flat_map(|(s, e)| {
                s.active()
                    .filter(|(_, s)| !s.latency.is_empty())
                    .map(|(op, s)| (e.endpoint.clone(), op, encode_histogram(&s.latency)))
            })
            .collect();
        self.status.lock().histograms = Some((record.interval, (histograms, endpoint_histograms)));
    }
}
