//! The work the listers share: ranges waiting to be listed (handed out from a lazy
//! source in prefix mode, or cut from busy ranges in adaptive mode), how many listers
//! are busy and how many wait, and when everything is done.
//!
//! Ranges are only cut while a lister waits for work, and never more than there are
//! waiting listers, so the queue holds at most `listers` ranges.
//!
//! The queue is also the listing's ledger: listers hand in each page's count and
//! key-file lines under its lock, along with where their range now stands, so a
//! checkpoint taken under that lock is one consistent cut of the whole listing.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::Notify;

use super::checkpoint::ListCheckpoint;
use super::outputs::KeySink;
use super::prefix_cells::PrefixCells;
use super::range::KeyRange;
use super::split::{CharSet, midpoint};
use super::totals::Totals;

/// At most this many new ranges from one cut.
const MAX_PIECES_PER_CUT: usize = 8;

pub(crate) struct Queue {
    state: Mutex<State>,
    changed: Notify,
}

struct State {
    ready: VecDeque<KeyRange>,
    cells: Option<PrefixCells>,
    busy: usize,
    waiting: usize,
    /// Set when a lister failed for good or the listing was stopped: no more work.
    closed: bool,
    chars: CharSet,
    ranges: u64,
    cuts: u64,
    /// Each lister's range, from just after the last key it handed in.
    in_flight: Vec<Option<KeyRange>>,
    /// What the listers handed in (and what a resumed listing had counted before).
    counted: Totals,
    /// Bytes of key-file lines handed in.
    keys_file_bytes: u64,
}

/// Where a listing starts from: fresh, or a checkpoint's counts.
#[derive(Default)]
pub(crate) struct Start {
    pub counted: Totals,
    pub ranges: u64,
    pub cuts: u64,
    pub keys_file_bytes: u64,
}

impl Queue {
    pub fn new(
        ready: Vec<KeyRange>,
        cells: Option<PrefixCells>,
        listers: usize,
        start: Start,
    ) -> Queue {
        Queue {
            state: Mutex::new(State {
                ready: ready.into(),
                cells,
                busy: 0,
                waiting: 0,
                closed: false,
                chars: CharSet::default(),
                ranges: start.ranges,
                cuts: start.cuts,
                in_flight: vec![None; listers],
                counted: start.counted,
                keys_file_bytes: start.keys_file_bytes,
            }),
            changed: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next range for lister `id`, waiting while busy listers may still cut theirs;
    /// `None` when all is listed (or the queue was closed).
    pub async fn take(&self, id: usize) -> Option<KeyRange> {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            {
                let mut s = self.lock();
                if s.closed {
                    return None;
                }
                let next = match s.ready.pop_front() {
                    Some(r) => Some(r),
                    None => s.cells.as_mut().and_then(Iterator::next),
                };
                if let Some(r) = next {
                    s.busy += 1;
                    s.ranges += 1;
                    s.in_flight[id] = Some(r.clone());
                    return Some(r);
                }
                if s.busy == 0 {
                    drop(s);
                    self.changed.notify_waiters();
                    return None;
                }
                // Register before unlocking, so a cut or finish in between wakes us.
                notified.as_mut().enable();
                s.waiting += 1;
            }
            notified.await;
            self.lock().waiting -= 1;
        }
    }

    /// Lister `id` is done with its range: all of it listed (`listed`), or stopped or
    /// failed part way, which leaves the rest for a checkpoint.
    pub fn finish(&self, id: usize, listed: bool) {
        let mut s = self.lock();
        s.busy -= 1;
        if listed {
            s.in_flight[id] = None;
        }
        if s.busy == 0 {
            drop(s);
            self.changed.notify_waiters();
        }
    }

    /// No more work for anyone (an error that ends the listing, or a stop).
    pub fn close(&self) {
        self.lock().closed = true;
        self.changed.notify_waiters();
    }

    /// Adds what a lister saw to the characters cuts are chosen from.
    pub fn learn(&self, chars: &CharSet) {
        self.lock().chars.merge(chars);
    }

    /// Lister `id` read a page of its range: counts what it kept (`page`, reset for the
    /// next page) and writes its key-file `lines`; the range now goes on after `last`,
    /// the page's last key.
    pub fn page_done(
        &self,
        id: usize,
        last: Option<&str>,
        page: &mut Totals,
        lines: &str,
        keys_file: Option<&KeySink>,
    ) -> std::io::Result<()> {
        let mut s = self.lock();
        if let Some(out) = keys_file
            && !lines.is_empty()
        {
            out.lock()
                .unwrap_or_else(|e| e.into_inner())
                .write_all(lines.as_bytes())?;
            s.keys_file_bytes += lines.len() as u64;
        }
        s.counted.merge_page(page);
        if let (Some(range), Some(last)) = (&mut s.in_flight[id], last) {
            match &mut range.after {
                Some(after) => after.replace_range(.., last),
                None => range.after = Some(last.to_string()),
            }
            range.probe_first = false;
        }
        Ok(())
    }

    /// Everything the listers handed in, taken out at the end.
    pub fn take_counted(&self) -> Totals {
        std::mem::take(&mut self.lock().counted)
    }

    /// The listing's progress in `into` (which names the job): what is left, what was
    /// counted, and the key file flushed up to the length the counts account for.
    pub fn checkpoint(
        &self,
        into: &mut ListCheckpoint,
        keys_file: Option<&KeySink>,
    ) -> std::io::Result<()> {
        let s = self.lock();
        if let Some(out) = keys_file {
            out.lock().unwrap_or_else(|e| e.into_inner()).flush()?;
        }
        into.keys_file_bytes = s.keys_file_bytes;
        into.keys = s.counted.keys;
        into.bytes = s.counted.bytes;
        into.requests = s.counted.requests;
        into.errors = s.counted.errors;
        into.report = s.counted.report.as_ref().map(|r| r.report().clone());
        into.todo = s
            .in_flight
            .iter()
            .flatten()
            .chain(&s.ready)
            .cloned()
            .collect();
        // Ranges being listed are handed out (and counted) again on resuming.
        into.ranges = s.ranges - s.in_flight.iter().flatten().count() as u64;
        into.cuts = s.cuts;
        into.cells = s.cells.as_ref().map(PrefixCells::position);
        Ok(())
    }

    /// If listers wait and nothing is queued, cuts the rest of lister `id`'s `range`
    /// (everything after `last`, the last key listed) into pieces for them; `range`
    /// keeps the first.
    pub fn offer_cut(&self, id: usize, range: &mut KeyRange, last: &str) {
        let mut s = self.lock();
        let hungry = s.waiting.saturating_sub(s.ready.len());
        if hungry == 0 || s.closed {
            return;
        }
        let pieces = hungry.min(MAX_PIECES_PER_CUT);
        let mut cut = Vec::with_capacity(pieces);
        bisect(range, last, pieces, &s.chars, &mut cut);
        if cut.is_empty() {
            return;
        }
        s.cuts += cut.len() as u64;
        s.ready.extend(cut);
        if let Some(position) = &mut s.in_flight[id] {
            position.end = range.end.clone();
        }
        drop(s);
        self.changed.notify_waiters();
    }

    /// Ranges handed out and cuts made so far.
    pub fn counts(&self) -> (u64, u64) {
        let s = self.lock();
        (s.ranges, s.cuts)
    }
}

/// Cuts `range` (whose keys up to `low` are listed) into up to `pieces + 1` parts:
/// `range` keeps the lowest, the others go to `out`.
fn bisect(
    range: &mut KeyRange,
    low: &str,
    pieces: usize,
    chars: &CharSet,
    out: &mut Vec<KeyRange>,
) {
    if pieces == 0 {
        return;
    }
    let Some(m) = midpoint(&range.prefix, low, range.end_key(), chars) else {
        return;
    };
    let mut upper = range.split_at(m.clone());
    let upper_pieces = pieces / 2;
    let lower_pieces = pieces - 1 - upper_pieces;
    bisect(&mut upper, &m, upper_pieces, chars, out);
    out.push(upper);
    bisect(range, low, lower_pieces, chars, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::listing::range::{RangeEnd, Verdict};
    use crate::listing::{ListJob, ListMode};

    fn base62() -> CharSet {
        let mut chars = CharSet::default();
        keystorm_results::BASE62_ALPHABET
            .chars()
            .for_each(|c| chars.add(c));
        chars
    }

    #[tokio::test]
    async fn a_checkpoint_right_after_a_cut_owns_every_key_once() {
        let queue = std::sync::Arc::new(Queue::new(
            vec![KeyRange::whole("p/")],
            None,
            2,
            Start::default(),
        ));
        queue.learn(&base62());
        let mut range = queue.take(0).await.expect("a range");
        // Lister 0 read a page up to p/0x; lister 1 waits for work.
        queue
            .page_done(0, Some("p/0x"), &mut Totals::default(), "", None)
            .unwrap();
        let waiter = tokio::spawn({
            let queue = queue.clone();
            async move { queue.take(1).await }
        });
        while queue.lock().waiting == 0 {
            tokio::task::yield_now().await;
        }
        queue.offer_cut(0, &mut range, "p/0x");
        assert_ne!(range.end, RangeEnd::Open, "the range was cut");
        let job = ListJob {
            bucket: "b".into(),
            prefix: "p/".into(),
            mode: ListMode::Serial,
            listers: 2,
            page_size: 1000,
            retries: 0,
            report_depth: None,
            shard: Default::default(),
        };
        let mut checkpoint = ListCheckpoint::of(&job, false, 0);
        queue.checkpoint(&mut checkpoint, None).unwrap();
        for key in ["p/0y", "p/1", "p/A", "p/M0", "p/a", "p/zz", "p/~"] {
            let owners = checkpoint
                .todo
                .iter()
                .filter(|r| r.verdict(key) == Verdict::Take)
                .count();
            assert_eq!(owners, 1, "{key}");
        }
        // Keys up to the position were counted already: nobody lists them again.
        assert!(
            checkpoint
                .todo
                .iter()
                .all(|r| r.verdict("p/0x") != Verdict::Take)
        );
        queue.close();
        let _ = waiter.await;
    }

    #[test]
    fn a_cut_covers_the_rest_once() {
        let chars = base62();
        let mut range = KeyRange::whole("p/");
        let mut out = Vec::new();
        bisect(&mut range, "p/0x", 7, &chars, &mut out);
        assert_eq!(out.len(), 7);
        let mut all = out.clone();
        all.push(range);
        for key in ["p/0y", "p/1", "p/A", "p/M0", "p/a", "p/zz", "p/~", "p/é"] {
            let owners = all
                .iter()
                .filter(|r| r.verdict(key) == Verdict::Take)
                .count();
            assert_eq!(owners, 1, "{key}");
        }
        assert!(all.iter().any(|r| r.end == RangeEnd::Open));
    }
}
