//! The recorders of a phase that runs one pass of its own (a complete listing, a
//! metadata scan, a download or upload) instead of op workers: every request the pass
//! reports — LIST page, HEAD, GET, PUT or part — lands in the recorder of its lister or
//! worker slot, so intervals, summaries and stalls work as for any phase.

use std::time::Instant;

use crate::listing::{PageEvent, PageObserver};
use crate::metrics::Recorder;
use crate::scan::{HeadEvent, HeadObserver};
use crate::transfer::{RequestEvent, TransferObserver};
use keystorm_types::{ErrorClass, OpKind};

pub(crate) struct PassRecorders(Vec<Recorder>);

impl PassRecorders {
    pub fn new(recorders: &[Recorder]) -> PassRecorders {
        PassRecorders(recorders.to_vec())
    }

    /// One request of `op` in `slot`: bytes and keys it moved, or why it failed.
    fn record(
        &self,
        slot: usize,
        op: OpKind,
        (start, end): (Instant, Instant),
        outcome: Result<(u64, u64), ErrorClass>,
    ) {
        self.0[slot % self.0.len()].with(|s| {
            let stats = s.op_mut(op);
            match outcome {
                Ok((bytes, keys)) => {
                    stats.record_ok(end.saturating_duration_since(start), bytes);
                    stats.keys += keys;
                }
                Err(class) => stats.record_error(class),
            }
        });
    }
}

impl PageObserver for PassRecorders {
    fn page(&self, e: PageEvent) {
        let outcome = e.outcome.map(|keys| (0, keys));
        self.record(e.lister, OpKind::List, (e.start, e.end), outcome);
    }
}

impl HeadObserver for PassRecorders {
    fn head(&self, e: HeadEvent) {
        let outcome = e.outcome.map(|()| (0, 0));
        self.record(e.worker, OpKind::Head, (e.start, e.end), outcome);
    }
}

impl TransferObserver for PassRecorders {
    fn request(&self, e: RequestEvent) {
        let outcome = e.outcome.map(|bytes| (bytes, 0));
        self.record(e.worker, e.op, (e.start, e.end), outcome);
    }
}
