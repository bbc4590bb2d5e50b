//! What the target's delays came to. Each injected delay (per operation, per LIST page
//! and index shard, a reshard's own time, a blocked writer's retry step) is slept on
//! `keystorm_timer`, which ends sleeps within tens of microseconds of their deadline,
//! and recorded twice: the time drawn (what the configuration asked of this request)
//! and the time applied (measured around the sleep). A client in another process reads
//! both at `/admin/keystorm/delays` and checks that a modelled store answered as
//! modelled; a benchmark compares them. Histograms only: memory does not grow with the
//! requests.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::Serialize;

/// The delays the target applies, each recorded apart (in `DelayRecord::kinds`, at
/// the index of its discriminant: keep `ALL` in this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DelayKind {
    Put,
    Get,
    Head,
    List,
    Delete,
    /// A LIST page's cost per index shard (`list_time_per_shard`), all shards.
    ListShards,
    /// A reshard's own time (`reshard_time_per_object` × objects).
    Reshard,
    /// A blocked writer's wait for its next retry step (`retry_step`).
    ReshardRetry,
    /// The latency a port adds to the requests it receives (`SimHandle::listen_also`),
    /// every operation's together, after the target's own.
    Port,
    /// A request's wait for one of the target's `max_inflight` places (drawn and
    /// applied are both the wait), every request counted, those that found a place
    /// free with 0.
    Queue,
}

impl DelayKind {
    pub const ALL: [DelayKind; 10] = [
        DelayKind::Put,
        DelayKind::Get,
        DelayKind::Head,
        DelayKind::List,
        DelayKind::Delete,
        DelayKind::ListShards,
        DelayKind::Reshard,
        DelayKind::ReshardRetry,
        DelayKind::Port,
        DelayKind::Queue,
    ];

    pub fn name(self) -> &'static str {
        match self {
            DelayKind::Put => "put",
            DelayKind::Get => "get",
            DelayKind::Head => "head",
            DelayKind::List => "list",
            DelayKind::Delete => "delete",
            DelayKind::ListShards => "list_shards",
            DelayKind::Reshard => "reshard",
            DelayKind::ReshardRetry => "reshard_retry",
            DelayKind::Port => "port",
            DelayKind::Queue => "queue",
        }
    }
}

/// Percentiles of one histogram, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DelayPercentiles {
    pub min: u64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
    pub mean: f64,
}

/// What one kind of delay came to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DelayStats {
    pub kind: &'static str,
    /// Delays applied.
    pub count: u64,
    /// What was asked.
    pub drawn_us: DelayPercentiles,
    /// What the sleep lasted.
    pub applied_us: DelayPercentiles,
    /// Applied minus drawn, per delay (never negative: a sleep never ends early).
    pub late_us: DelayPercentiles,
}

struct Histograms {
    drawn: Histogram<u64>,
    applied: Histogram<u64>,
    late: Histogram<u64>,
}

impl Histograms {
    fn new() -> Histograms {
        // One microsecond to an hour, three significant digits.
        let h = || {
            Histogram::new_with_bounds(1, 3_600_000_000, 3)
                .expect("static histogram bounds are valid")
        };
        Histograms {
            drawn: h(),
            applied: h(),
            late: h(),
        }
    }
}

pub struct DelayRecord {
    kinds: [Mutex<Histograms>; DelayKind::ALL.len()],
}

impl std::fmt::Debug for DelayRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.stats()).finish()
    }
}

impl Default for DelayRecord {
    fn default() -> Self {
        DelayRecord {
            kinds: std::array::from_fn(|_| Mutex::new(Histograms::new())),
        }
    }
}

fn micros(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

fn percentiles(h: &Histogram<u64>) -> DelayPercentiles {
    DelayPercentiles {
        min: h.min(),
        p50: h.value_at_quantile(0.5),
        p99: h.value_at_quantile(0.99),
        max: h.max(),
        mean: h.mean(),
    }
}

impl DelayRecord {
    fn of(&self, kind: DelayKind) -> MutexGuard<'_, Histograms> {
        self.kinds[kind as usize]
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Sleeps `drawn` and records it.
    pub async fn sleep(&self, kind: DelayKind, drawn: Duration) {
        if drawn.is_zero() {
            return;
        }
        self.sleep_from(kind, Instant::now(), drawn).await;
    }

    /// Sleeps the delays one after the other, each recorded under its kind. Each begins
    /// at the deadline of the one before, not when that one's sleep returned, so their
    /// sum ends as precisely as a single delay of that length does.
    pub async fn sleep_in_turn(&self, delays: [Option<(DelayKind, Duration)>; 2]) {
        let mut began = None;
        for (kind, drawn) in delays.into_iter().flatten() {
            if drawn.is_zero() {
                continue;
            }
            let from = *began.get_or_insert_with(Instant::now);
            self.sleep_from(kind, from, drawn).await;
            began = Some(from + drawn);
        }
    }

    /// Sleeps until `until` and records it, drawn as the time from now to then.
    pub async fn sleep_until(&self, kind: DelayKind, until: Instant) {
        let began = Instant::now();
        self.sleep_from(kind, began, until.saturating_duration_since(began))
            .await;
    }

    async fn sleep_from(&self, kind: DelayKind, began: Instant, drawn: Duration) {
        keystorm_timer::sleep_until(began + drawn).await;
        let applied = began.elapsed();
        let mut h = self.of(kind);
        // Values beyond an hour are clamped: a histogram never refuses one.
        h.drawn.saturating_record(micros(drawn));
        h.applied.saturating_record(micros(applied));
        h.late
            .saturating_record(micros(applied.saturating_sub(drawn)));
    }

    /// Records a wait that was no sleep of the target's own (a queue's).
    pub fn record_wait(&self, kind: DelayKind, waited: Duration) {
        let mut h = self.of(kind);
        h.drawn.saturating_record(micros(waited));
        h.applied.saturating_record(micros(waited));
        h.late.saturating_record(0);
    }

    /// Every kind of delay applied at least once.
    pub fn stats(&self) -> Vec<DelayStats> {
        DelayKind::ALL
            .into_iter()
            .filter_map(|kind| {
                let h = self.of(kind);
                (!h.drawn.is_empty()).then(|| DelayStats {
                    kind: kind.name(),
                    count: h.drawn.len(),
                    drawn_us: percentiles(&h.drawn),
                    applied_us: percentiles(&h.applied),
                    late_us: percentiles(&h.late),
                })
            })
            .collect()
    }
}
