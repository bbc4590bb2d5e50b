//! A run across agents while it goes: the controller keeps a run folder of its own from
//! the start (manifest `running`, events, merged intervals and their histograms), fed by
//! the news agents send with their heartbeats. Intervals are added per phase and
//! wall-clock second exactly as the merge afterwards does (histograms added, never
//! percentiles averaged); phase starts, warnings, reshards and stalls are relayed. Every
//! event goes to the folder's log and to an observer (the server's live stream and
//! `/metrics`), so a run across agents is watched like a run of one process. At the end
//! the exact merge of the shards' own folders replaces this folder.
//!
//! Memory holds the seconds still open (a few) and one entry per shard and phase name.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde::Deserialize;

use keystorm_results::merge::{LiveInterval, LiveMerge};
use keystorm_results::{
    FORMAT_VERSION, IntervalRecord, Manifest, PhaseRef, ProcessId, ResultStore, ResultsError,
    RunStatus, Section, decode_histogram, timestamp,
};
use keystorm_results::{PhaseProgress, RunEvent};
use keystorm_workload::observer::Observer;

use super::new_run::NewFleetRun;
use keystorm_link::bounds::{MAX_ERROR_CHARS, clip, news_fits};
use keystorm_link::protocol::{SentInterval, ShardReport, now_ms};

/// How long a merged second waits for a shard that has not sent it yet.
pub const GRACE_S: u64 = 3;
/// Intervals timed this far from the run (ms) are not the run's: left out.
const PLAUSIBLE_MS: u64 = 60_000;

type PhaseKey = (Section, Option<u32>, String);

fn key_of(record: &IntervalRecord) -> PhaseKey {
    (record.section, record.round, record.phase.clone())
}

/// What the controller took from one shard.
#[derive(Default)]
struct Feed {
    stream: u64,
    next_seq: u64,
    /// The phase of its latest interval and how far the shard had got in it.
    progress: Option<(PhaseKey, PhaseProgress)>,
}

pub struct LiveRun {
    store: ResultStore,
    merge: LiveMerge,
    observer: Arc<dyn Observer>,
    start_ms: u64,
    feeds: Vec<Feed>,
    /// Each phase as the shards announced it.
    phases: HashMap<PhaseKey, PhaseRef>,
    /// How many phases the run has.
    phase_count: usize,
    latest_position: Option<usize>,
}

impl LiveRun {
    /// Creates the run's folder under `root` and logs its start.
    pub fn open(
        root: &Path,
        run_id: &str,
        spec: &NewFleetRun,
        observer: Arc<dyn Observer>,
    ) -> Result<LiveRun, ResultsError> {
        observer.named(run_id);
        let start_ms = now_ms();
        let started = std::time::UNIX_EPOCH + std::time::Duration::from_millis(start_ms);
        let manifest = Manifest {
            format_version: FORMAT_VERSION,
            run_id: run_id.to_string(),
            keystorm_version: env!("CARGO_PKG_VERSION").to_string(),
            workload: spec.workload.clone(),
            workload_file: spec.workload_file.clone(),
            host: gethostname::gethostname().to_string_lossy().into_owned(),
            endpoint: spec.target.clone(),
            endpoints: Vec::new(),
            client: spec.client.clone(),
            seed: spec.seed,
            labels: spec.labels.clone(),
            started_at: timestamp(started),
            ended_at: None,
            status: RunStatus::Running,
            error: None,
            created_buckets: Vec::new(),
            buckets: spec.buckets.clone(),
            resumed_at: Vec::new(),
            command_line: spec.command_line.clone(),
            overrides: Default::default(),
            peak_rss_kib: None,
            peak_rss_anon_kib: None,
            // The controller's: if it dies, the run shows as killed.
            process: ProcessId::current(),
            cleanup: None,
            merged_from: Vec::new(),
            findings: None,
            expect: Vec::new(),
            stopped_by_threshold: None,
            latency_clock: None,
        };
        let store = ResultStore::create(
            root,
            &manifest,
            &keystorm_workload::spec::redact_secrets(&spec.text),
            &spec.plan,
            start_ms as f64 / 1000.0,
        )?;
        let mut live = LiveRun::logging_into(store, spec, start_ms, observer);
        let dir = live.store.dir().to_path_buf();
        live.emit(RunEvent::Started {
            run_id: run_id.to_string(),
            dir,
            endpoint: spec.target.clone(),
            phases: spec.phases,
        });
        Ok(live)
    }

    /// Opens the folder of run `run_id` again after a controller restart, to go on
    /// logging into it: the manifest names this process as the run's, and the seconds
    /// merged before the restart stay as they were (the live view resumes as the agents
    /// report; the exact merge at the end covers every second from the shards' files).
    pub fn reopen(
        root: &Path,
        run_id: &str,
        spec: &NewFleetRun,
        start_ms: u64,
        observer: Arc<dyn Observer>,
    ) -> Result<LiveRun, ResultsError> {
        observer.named(run_id);
        let dir = root.join(run_id);
        let mut manifest = ResultStore::read_manifest(&dir)?;
        let store = ResultStore::open_append(&dir)?;
        manifest.status = RunStatus::Running;
        manifest.process = ProcessId::current();
        store.write_manifest(&manifest)?;
        Ok(LiveRun::logging_into(store, spec, start_ms, observer))
    }

    /// The live view of a run whose folder `store` is, nothing merged yet.
    fn logging_into(
        store: ResultStore,
        spec: &NewFleetRun,
        start_ms: u64,
        observer: Arc<dyn Observer>,
    ) -> LiveRun {
        let shards = spec.agents as usize;
        LiveRun {
            store,
            merge: LiveMerge::new(start_ms, shards),
            observer,
            start_ms,
            feeds: (0..shards).map(|_| Feed::default()).collect(),
            phases: HashMap::new(),
            phase_count: spec.phases,
            latest_position: None,
        }
    }

    /// Takes the news in shard `shard`'s report; news already taken is skipped.
    pub fn take(&mut self, shard: usize, report: &ShardReport) {
        let Some(feed) = self.feeds.get_mut(shard) else {
            return;
        };
        if report.stream != feed.stream {
            // The shard runs afresh on an agent (a restart): its news counts from 0.
            feed.stream = report.stream;
            feed.next_seq = 0;
        }
        let from = feed.next_seq;
        if let Some(last) = report.news.iter().map(|n| n.seq).max() {
            feed.next_seq = feed.next_seq.max(last + 1);
        }
        // News out of bounds (a string too long, a control character) is left out.
        for news in report.news.iter().filter(|n| n.seq >= from && news_fits(n)) {
            if let Some(event) = news
                .event
                .as_ref()
                .and_then(|v| RunEvent::deserialize(v).ok())
            {
                self.relay(shard, &event);
            }
            if let Some(interval) = news
                .interval
                .as_ref()
                .and_then(|v| SentInterval::deserialize(v).ok())
            {
                self.add(shard, &interval);
            }
        }
    }

    /// Logs the merged seconds that are ready: those every shard of `waiting_for` has
    /// passed, and those older than the grace period.
    pub fn publish(&mut self, waiting_for: &[usize]) {
        let ready = self.merge.ready(waiting_for, now_ms() / 1000, GRACE_S);
        self.log_intervals(ready);
    }

    /// Logs every second still open (every shard ended).
    pub fn flush(&mut self) {
        let rest = self.merge.finish();
        self.log_intervals(rest);
    }

    /// The run ended. With `replaced`, the merge of the shards' folders took this
    /// folder's place and only watchers are told; otherwise this folder is the run's
    /// record and says how it ended.
    pub fn close(mut self, status: RunStatus, error: Option<String>, replaced: bool) {
        if !replaced && let Ok(mut manifest) = ResultStore::read_manifest(self.store.dir()) {
            manifest.status = status;
            manifest.error = error.clone();
            manifest.ended_at = Some(timestamp(std::time::SystemTime::now()));
            manifest.process = None;
            let _ = self.store.write_manifest(&manifest);
        }
        // Once replaced, the log written to is gone with the folder: only the ids count.
        self.emit(RunEvent::Finished { status, error });
    }

    /// A warning of the controller's own, shown on the live page.
    pub fn warn(&mut self, message: String) {
        self.emit(RunEvent::Warning { message });
    }

    fn relay(&mut self, shard: usize, event: &RunEvent) {
        match event {
            RunEvent::PhaseStarted {
                phase, position, ..
            } => {
                let key = (phase.section, phase.round, phase.name.clone());
                // As many as the run has: a shard naming others cannot grow the map.
                if self.phases.len() < self.phase_count || self.phases.contains_key(&key) {
                    self.phases.insert(key, phase.clone());
                }
                // The first shard to start a phase announces it for all, with the rate
                // of the whole phase (each shard asks its equal part).
                if self.latest_position.is_none_or(|p| p < *position) {
                    self.latest_position = Some(*position);
                    let mut whole = event.clone();
                    if let RunEvent::PhaseStarted { rate: Some(r), .. } = &mut whole {
                        *r *= self.feeds.len() as f64;
                    }
                    self.emit(whole);
                }
            }
            RunEvent::Warning { message } => self.emit(RunEvent::Warning {
                message: format!("shard {shard}: {}", clip(message, MAX_ERROR_CHARS, true)),
            }),
            RunEvent::Reshard(_) | RunEvent::Stall(_) => self.emit(event.clone()),
            _ => {}
        }
    }

    fn add(&mut self, shard: usize, sent: &SentInterval) {
        let now = now_ms();
        if sent.at_ms + PLAUSIBLE_MS < self.start_ms || sent.at_ms > now + PLAUSIBLE_MS {
            return;
        }
        let histograms = sent
            .histograms
            .iter()
            .filter_map(|(op, text)| Some((*op, decode_histogram(text)?)))
            .collect();
        let endpoint_histograms = sent
            .endpoint_histograms
            .iter()
            .filter_map(|(url, op, text)| Some((url.clone(), *op, decode_histogram(text)?)))
            .collect();
        if let Some(feed) = self.feeds.get_mut(shard) {
            feed.progress = Some((key_of(&sent.record), sent.progress));
        }
        self.merge.add(
            shard,
            LiveInterval {
                at_ms: sent.at_ms,
                record: sent.record.clone(),
                histograms,
                endpoint_histograms,
            },
        );
    }

    fn log_intervals(
        &mut self,
        merged: Vec<(IntervalRecord, keystorm_results::metrics::IntervalStats)>,
    ) {
        for (record, stats) in merged {
            // The interval files are what the live page's history reads; a write that
            // fails leaves the stream going.
            let _ = self.store.write_interval(&record, &stats);
            let key = key_of(&record);
            let phase = self.phases.get(&key).cloned().unwrap_or(PhaseRef {
                section: record.section,
                round: record.round,
                index: 0,
                name: record.phase.clone(),
            });
            let progress = self.progress_of(&key);
            self.emit(RunEvent::Interval {
                phase,
                record: Box::new(record),
                progress,
                folded: None,
            });
        }
    }

    /// How far the shards in phase `key` got, added up: operations, errors and live
    /// objects summed, the longest elapsed time, the least fraction done.
    fn progress_of(&self, key: &PhaseKey) -> PhaseProgress {
        let mut total = PhaseProgress::default();
        for (k, p) in self.feeds.iter().filter_map(|f| f.progress.as_ref()) {
            total.objects += p.objects;
            if k != key {
                continue;
            }
            total.ops += p.ops;
            total.errors += p.errors;
            total.elapsed_s = total.elapsed_s.max(p.elapsed_s);
            total.fraction = match (total.fraction, p.fraction) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        total
    }

    /// Logs what happened to the run's hosts (an agent lost, a takeover, a restart).
    pub fn note(&mut self, event: keystorm_results::FleetEvent) {
        self.emit(RunEvent::Fleet(event));
    }

    fn emit(&mut self, event: RunEvent) {
        let id = self.store.write_event(&event);
        self.observer.event(id, &event);
    }
}
