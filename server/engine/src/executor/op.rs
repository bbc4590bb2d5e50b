//! Running one S3 operation on a computed key or a key of a key file: choosing the
//! index from the window (or the position in the key file), issuing the request (and
//! its retries, each one counted by the class of the attempt it follows), keeping the
//! window right, and shaping the result for recording.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::context::RunContext;
use super::draws::OpDraw;
use super::integrity::Finding;
use super::parted::Parted;
use super::verify::{self, BodyCheck, Md5Table, Mismatch};
use crate::gateways::{Gateways, Retried, Seat};
use crate::keyset::{EpochPick, KeyReader};
use crate::keyspace::{Keyspace, Window};
use crate::metrics::{IntervalStats, OpStats, micros};
use crate::plan::{PartPlan, PhasePlan, PhaseWork, Selection};
use keystorm_results::PhaseEnd;
use keystorm_s3::ListRequest;
use keystorm_s3::arrival::Arrival;
use keystorm_types::{ErrorClass, OpError, OpKind};

/// What a finished operation produced.
pub(crate) struct OpResult {
    finished: Instant,
    outcome: Result<Moved, OpError>,
    /// The classes of its failed attempts that were tried again, each with the endpoint
    /// it went to (empty, without an allocation, unless one was; at most the
    /// workload's `retries`).
    retried: Retried,
    /// The endpoint its last attempt went to.
    endpoint: usize,
    /// The window's record of a write, made once the result is recorded (see
    /// [`OpRunner::settle`]).
    settle: Option<Settle>,
    /// A read that found its object corrupt or missing: which and why.
    finding: Option<Box<Finding>>,
    /// When its responses arrived, where it timed them itself (a GET in ranges, each
    /// range in a scope of its own).
    own_arrival: Option<Arrival>,
}

/// A write the window learns of after its result is recorded.
enum Settle {
    Put { index: u64, ok: bool },
    Delete { index: u64 },
}

#[derive(Default)]
struct Moved {
    bytes: u64,
    keys: u64,
    ttfb: Option<Duration>,
}

impl OpResult {
    /// The failure, if the operation failed.
    pub fn error(&self) -> Option<&OpError> {
        self.outcome.as_ref().err()
    }

    /// The object found corrupt or missing, if the operation found one.
    pub fn finding(&self) -> Option<&Finding> {
        self.finding.as_deref()
    }

    /// The response arrived at `arrival.last` (between the request's start and when
    /// it was seen): the operation finished then. Whether it did.
    fn arrived(&mut self, arrival: Option<Arrival>, started: Instant) -> bool {
        match arrival {
            Some(a) if a.last >= started && a.last <= self.finished => {
                self.finished = a.last;
                true
            }
            _ => false,
        }
    }

    /// Records `op` into `stats`, latency measured from `start`: the operation with its
    /// retries, all in the interval it finished in; with `by_endpoint`, also each
    /// attempt into its endpoint's share. Returns the operation's stats (for what only
    /// the whole counts, such as schedule lag).
    pub fn record<'s>(
        &self,
        stats: &'s mut IntervalStats,
        op: OpKind,
        start: Instant,
        by_endpoint: bool,
    ) -> &'s mut OpStats {
        if by_endpoint {
            for (class, e) in &self.retried {
                stats.endpoint_op_mut(*e, op).record_retry(*class);
            }
            self.record_outcome(stats.endpoint_op_mut(self.endpoint, op), start);
        }
        let whole = stats.op_mut(op);
        for (class, _) in &self.retried {
            whole.record_retry(*class);
        }
        self.record_outcome(whole, start);
        whole
    }

    fn record_outcome(&self, stats: &mut OpStats, start: Instant) {
        match &self.outcome {
            Ok(m) => {
                stats.record_ok(self.finished.saturating_duration_since(start), m.bytes);
                stats.keys += m.keys;
                if let Some(t) = m.ttfb {
                    let _ = stats.ttfb.record(micros(t));
                }
            }
            Err(e) => stats.record_error(e.class),
        }
    }
}

pub(crate) enum Outcome {
    Done {
        latency_from: Instant,
        result: OpResult,
    },
    /// Nothing to operate on (empty window, fill target reached).
    NothingToDo,
    /// The key file could not be read: the worker stops with this message.
    KeyFile(String),
}

pub(crate) struct OpRunner {
    /// The endpoints: each attempt goes to one, and is counted there.
    gateways: Arc<Gateways>,
    /// This worker's place in the spread over them.
    seat: Seat,
    keyspace: Keyspace,
    window: Arc<Window>,
    buckets: Arc<[String]>,
    key: String,
    fill_limit: Option<u64>,
    drain_floor: Option<u64>,
    page_size: u32,
    prefix: Option<String>,
    /// Check each GET's body and MD5 ETag against what was written.
    verify: bool,
    md5s: Arc<Md5Table>,
    /// Reads take their keys here when the phase reads a key file or a listing.
    keys: Option<KeyReader>,
    /// Where the client times responses by the kernel's stamps: the run's count of
    /// those it could not, timed by the client's clock instead.
    user_timed: Option<Arc<AtomicU64>>,
    /// How PUTs and GETs of big objects go in parts.
    parts: PartPlan,
}

impl OpRunner {
    pub fn new(
        ctx: &RunContext,
        plan: &PhasePlan,
        keys: Option<KeyReader>,
        worker: u32,
    ) -> OpRunner {
        let (fill_limit, drain_floor) = match (&plan.work, &plan.end) {
            (PhaseWork::Single(OpKind::Put), PhaseEnd::UntilObjects(n)) => (Some(*n), None),
            (PhaseWork::Single(OpKind::Delete), PhaseEnd::UntilObjects(n)) => (None, Some(*n)),
            _ => (None, None),
        };
        let prefix = ctx.keyspace.prefix();
        OpRunner {
            gateways: ctx.gateways.clone(),
            seat: Seat::new(worker),
            keyspace: ctx.keyspace.clone(),
            window: ctx.window.clone(),
            buckets: ctx.plan.buckets.names.clone().into(),
            key: String::with_capacity(64),
            fill_limit,
            drain_floor,
            page_size: plan.page_size,
            prefix: (!prefix.is_empty()).then(|| prefix.to_string()),
            verify: plan.verify,
            md5s: ctx.md5s.clone(),
            keys,
            user_timed: ctx.client.times_arrival().then(|| ctx.user_timed.clone()),
            parts: plan.parts,
        }
    }

    pub fn puts_settled(&self) -> bool {
        self.window.puts_settled()
    }

    /// Tells the window a recorded write finished. A checkpoint's watermarks therefore
    /// never run ahead of the recorded intervals: every write below them was measured.
    pub fn settle(&self, result: &OpResult) {
        match result.settle {
            Some(Settle::Put { index, ok }) => self.window.finish_put(index, ok),
            Some(Settle::Delete { index }) => self.window.finish_delete(index),
            None => {}
        }
    }

    /// Runs `op`; an epochs phase's read reads `pick`. Its latency ends when the
    /// response reached the socket, where the client can tell (see
    /// [`keystorm_s3::arrival`]), not when this task ran again to see it.
    pub async fn run(
        &mut self,
        op: OpKind,
        draw: &mut OpDraw,
        selection: Selection,
        pick: Option<EpochPick>,
    ) -> Outcome {
        let (mut outcome, arrival) =
            keystorm_s3::arrival::timed(self.run_op(op, draw, selection, pick)).await;
        if let Outcome::Done {
            latency_from,
            result,
        } = &mut outcome
            && !result.arrived(result.own_arrival.or(arrival), *latency_from)
            && result.outcome.is_ok()
            && let Some(count) = &self.user_timed
        {
            count.fetch_add(1, Ordering::Relaxed);
        }
        outcome
    }

    async fn run_op(
        &mut self,
        op: OpKind,
        draw: &mut OpDraw,
        selection: Selection,
        pick: Option<EpochPick>,
    ) -> Outcome {
        match op {
            OpKind::Put => self.put().await,
            OpKind::Get | OpKind::Head if self.keys.is_some() => {
                self.read_listed(op, draw, selection, pick).await
            }
            OpKind::Get | OpKind::Head => self.read(op, draw, selection).await,
            OpKind::Delete => self.delete().await,
            OpKind::List if self.keys.is_some() => self.list_listed_page(draw).await,
            OpKind::List => self.list_page(draw).await,
        }
    }

    /// A GET or HEAD of a key of the key file: the epoch's pick, or a position drawn
    /// uniformly or by Zipf rank over the shuffled positions.
    async fn read_listed(
        &mut self,
        op: OpKind,
        draw: &mut OpDraw,
        selection: Selection,
        pick: Option<EpochPick>,
    ) -> Outcome {
        let Some(reader) = self.keys.as_mut() else {
            return Outcome::NothingToDo;
        };
        let n = reader.set().part_keys();
        if n == 0 {
            return Outcome::NothingToDo;
        }
        let position = match (pick, selection) {
            (Some(p), _) => p.position,
            (None, Selection::Uniform) => draw.offset(selection, n),
            // Rank 1 (offset n - 1) is the hottest.
            (None, Selection::Zipf { .. }) => reader.set().hot(n - 1 - draw.offset(selection, n)),
        };
        match reader.at(position) {
            Ok(entry) => {
                self.key.clear();
                self.key.push_str(&entry.key);
            }
            Err(e) => return Outcome::KeyFile(e.to_string()),
        }
        let set = reader.set();
        let (key, bucket) = (self.key.as_str(), set.bucket());
        let mut retried = Vec::new();
        let start = Instant::now();
        let (r, endpoint) = get_or_head(
            &self.gateways,
            &mut self.seat,
            op,
            bucket,
            key,
            &mut retried,
        )
        .await;
        let finished = Instant::now();
        let (r, finding) = judge(r, None, op, bucket, key, Listed::Yes);
        let mut outcome = done(start, finished, r, retried, endpoint);
        if let (Some(f), Outcome::Done { result, .. }) = (finding, &mut outcome) {
            result.finding = Some(Box::new(f));
        }
        outcome
    }

    /// One page of the key file's bucket (under its listing's prefix), starting after
    /// one of its keys drawn uniformly.
    async fn list_listed_page(&mut self, draw: &mut OpDraw) -> Outcome {
        let Some(reader) = self.keys.as_mut() else {
            return Outcome::NothingToDo;
        };
        let n = reader.set().part_keys();
        let start_after = if n == 0 {
            None
        } else {
            match reader.at(draw.below(n)) {
                Ok(e) => Some(e.key.clone()),
                Err(e) => return Outcome::KeyFile(e.to_string()),
            }
        };
        let set = reader.set();
        let request = ListRequest {
            prefix: set.prefix().map(str::to_string),
            max_keys: Some(self.page_size),
            start_after,
            keys_and_sizes_only: true,
            ..ListRequest::default()
        };
        list_one(&self.gateways, &mut self.seat, set.bucket(), &request).await
    }

    async fn put(&mut self) -> Outcome {
        let Some(i) = self.window.begin_put(self.fill_limit) else {
            return Outcome::NothingToDo;
        };
        self.keyspace.key_into(i, &mut self.key);
        let bucket = &self.buckets[self.keyspace.bucket_index(i)];
        let body = self.keyspace.body(i);
        let bytes = body.len();
        let metadata = self.keyspace.metadata(i);
        let key = self.key.as_str();
        let mut retried = Vec::new();
        let start = Instant::now();
        let (r, endpoint) = if self.parts.splits(bytes) {
            let parted = Parted {
                gateways: &self.gateways,
                parts: self.parts,
                bucket,
                key,
            };
            parted
                .put(&mut self.seat, &mut retried, &body, &metadata)
                .await
        } else {
            self.gateways
                .run(&mut self.seat, &mut retried, |client| {
                    client.put_object(bucket, key, body.clone(), &metadata)
                })
                .await
        };
        let settle = Settle::Put {
            index: i,
            ok: r.is_ok(),
        };
        let moved = r.map(|_| Moved {
            bytes,
            ..Moved::default()
        });
        done(start, Instant::now(), moved, retried, endpoint).settling(settle)
    }

    async fn read(&mut self, op: OpKind, draw: &mut OpDraw, selection: Selection) -> Outcome {
        let Some(i) = self.window.begin_read(|len| draw.offset(selection, len)) else {
            return Outcome::NothingToDo;
        };
        self.keyspace.key_into(i, &mut self.key);
        let bucket = &self.buckets[self.keyspace.bucket_index(i)];
        let key = self.key.as_str();
        let mut retried = Vec::new();
        let start = Instant::now();
        let mut mismatch = None;
        let mut own_arrival = None;
        let size = self.keyspace.size(i);
        let (r, endpoint) = if op == OpKind::Get && self.parts.splits(size) {
            let expected = self.verify.then(|| self.keyspace.body_with_id(i));
            let parted = Parted {
                gateways: &self.gateways,
                parts: self.parts,
                bucket,
                key,
            };
            let (r, endpoint) = parted
                .get(&mut self.seat, &mut retried, size, expected.map(|(w, _)| w))
                .await;
            let r = r.map(|got| {
                if let Some((expected, id)) = expected {
                    let outcome = keystorm_s3::GetOutcome {
                        bytes: got.bytes,
                        ttfb: got.ttfb,
                        md5: got.md5,
                    };
                    mismatch = verify::verdict(got.mismatch, &outcome, id, expected, &self.md5s);
                }
                own_arrival = got.arrival;
                Moved {
                    bytes: got.bytes,
                    keys: 0,
                    ttfb: Some(got.ttfb),
                }
            });
            (r, endpoint)
        } else if op == OpKind::Get && self.verify {
            let (expected, id) = self.keyspace.body_with_id(i);
            let (r, endpoint) = self
                .gateways
                .run(&mut self.seat, &mut retried, |client| async move {
                    let mut check = BodyCheck::new(expected);
                    let mut sink = |chunk: &[u8]| {
                        check.feed(chunk);
                        Ok(())
                    };
                    let got = client.get_object_to(bucket, key, None, &mut sink).await?;
                    Ok((got, check.finish()))
                })
                .await;
            let r = r.map(|(g, body)| {
                mismatch = verify::verdict(body, &g, id, expected, &self.md5s);
                Moved {
                    bytes: g.bytes,
                    keys: 0,
                    ttfb: Some(g.ttfb),
                }
            });
            (r, endpoint)
        } else {
            get_or_head(
                &self.gateways,
                &mut self.seat,
                op,
                bucket,
                key,
                &mut retried,
            )
            .await
        };
        let finished = Instant::now();
        self.window.finish_read(i);
        let (r, finding) = judge(r, mismatch, op, bucket, key, Listed::No);
        let mut outcome = done(start, finished, r, retried, endpoint);
        if let Outcome::Done { result, .. } = &mut outcome {
            result.finding = finding.map(Box::new);
            result.own_arrival = own_arrival;
        }
        outcome
    }

    async fn delete(&mut self) -> Outcome {
        let Some(i) = self.window.begin_delete(self.drain_floor).await else {
            return Outcome::NothingToDo;
        };
        self.keyspace.key_into(i, &mut self.key);
        let bucket = &self.buckets[self.keyspace.bucket_index(i)];
        let key = self.key.as_str();
        let mut retried = Vec::new();
        let start = Instant::now();
        let (r, endpoint) = self
            .gateways
            .run(&mut self.seat, &mut retried, |client| {
                client.delete_object(bucket, key)
            })
            .await;
        let moved = r.map(|_| Moved::default());
        done(start, Instant::now(), moved, retried, endpoint).settling(Settle::Delete { index: i })
    }

    /// One page, starting after a random live key (or at the start of the prefix).
    async fn list_page(&mut self, draw: &mut OpDraw) -> Outcome {
        let state = self.window.state();
        let (bucket, start_after) = if state.is_empty() {
            (draw.below(self.buckets.len() as u64) as usize, None)
        } else {
            let i = state.tail + draw.below(state.len());
            (self.keyspace.bucket_index(i), Some(self.keyspace.key(i)))
        };
        let request = ListRequest {
            prefix: self.prefix.clone(),
            max_keys: Some(self.page_size),
            start_after,
            // Only the count is kept.
            keys_and_sizes_only: true,
            ..ListRequest::default()
        };
        list_one(
            &self.gateways,
            &mut self.seat,
            &self.buckets[bucket],
            &request,
        )
        .await
    }
}

/// A GET (its body counted and dropped) or a HEAD of one key, with its retries; and
/// the endpoint its last attempt went to.
async fn get_or_head(
    gateways: &Gateways,
    seat: &mut Seat,
    op: OpKind,
    bucket: &str,
    key: &str,
    retried: &mut Retried,
) -> (Result<Moved, OpError>, usize) {
    if op == OpKind::Get {
        let (r, endpoint) = gateways
            .run(seat, retried, |client| client.get_object(bucket, key, None))
            .await;
        let moved = r.map(|g| Moved {
            bytes: g.bytes,
            keys: 0,
            ttfb: Some(g.ttfb),
        });
        (moved, endpoint)
    } else {
        let (r, endpoint) = gateways
            .run(seat, retried, |client| client.head_object(bucket, key))
            .await;
        (r.map(|_| Moved::default()), endpoint)
    }
}

/// One LIST page, with its retries; only its key count is kept.
async fn list_one(
    gateways: &Gateways,
    seat: &mut Seat,
    bucket: &str,
    request: &ListRequest,
) -> Outcome {
    let mut retried = Vec::new();
    let start = Instant::now();
    let (r, endpoint) = gateways
        .run(seat, &mut retried, |client| {
            client.list_objects_v2(bucket, request)
        })
        .await;
    let moved = r.map(|page| Moved {
        keys: page.entries.len() as u64,
        ..Moved::default()
    });
    done(start, Instant::now(), moved, retried, endpoint)
}

/// Whether a read's key came from a key file (a listing) or the keyspace.
#[derive(Clone, Copy, PartialEq)]
enum Listed {
    Yes,
    No,
}

/// A read of a live key as counted: a body not as written is `corrupt`, a 404 is
/// `missing` (the key was written and not deleted, or listed), each with what was
/// found.
fn judge(
    r: Result<Moved, OpError>,
    mismatch: Option<Mismatch>,
    op: OpKind,
    bucket: &str,
    key: &str,
    listed: Listed,
) -> (Result<Moved, OpError>, Option<Finding>) {
    let (class, detail) = match (&r, mismatch) {
        (Ok(_), Some(m)) => (ErrorClass::Corrupt, m.describe()),
        (Err(e), _) if e.class == ErrorClass::Http(404) && listed == Listed::Yes => (
            ErrorClass::Missing,
            format!(
                "{op} answered 404 for a key the key file lists (deleted since it was listed?)"
            ),
        ),
        (Err(e), _) if e.class == ErrorClass::Http(404) => (
            ErrorClass::Missing,
            format!("{op} answered 404 for a key written and not deleted"),
        ),
        _ => return (r, None),
    };
    let error = OpError::new(class, format!("{op} {bucket}/{key}: {detail}"));
    let finding = Finding {
        class,
        bucket: bucket.to_string(),
        key: key.to_string(),
        detail,
    };
    (Err(error), Some(finding))
}

fn done(
    start: Instant,
    finished: Instant,
    r: Result<Moved, OpError>,
    retried: Retried,
    endpoint: usize,
) -> Outcome {
    Outcome::Done {
        latency_from: start,
        result: OpResult {
            finished,
            outcome: r,
            retried,
            endpoint,
            settle: None,
            finding: None,
            own_arrival: None,
        },
    }
}

impl Outcome {
    fn settling(mut self, settle: Settle) -> Outcome {
        if let Outcome::Done { result, .. } = &mut self {
            result.settle = Some(settle);
        }
        self
    }
}
