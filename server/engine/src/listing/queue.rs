//! The work the listers share: ranges waiting to be listed (handed out from a lazy
//! source in prefix mode, or cut from busy ranges in adaptive mode), how many listers
//! are busy and how many wait, and when everything is done.
//!
//! Ranges are only cut while a lister waits for work, and never more than there are
//! waiting listers, so the queue holds at most `concurrency` ranges.

use std::collections::VecDeque;
use std::sync::Mutex;

use tokio::sync::Notify;

use super::prefix_cells::PrefixCells;
use super::range::KeyRange;
use super::split::{CharSet, midpoint};

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
}

impl Queue {
    pub fn new(ready: Vec<KeyRange>, cells: Option<PrefixCells>) -> Queue {
        Queue {
            state: Mutex::new(State {
                ready: ready.into(),
                cells,
                busy: 0,
                waiting: 0,
                closed: false,
                chars: CharSet::default(),
                ranges: 0,
                cuts: 0,
            }),
            changed: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The next range to list, waiting while busy listers may still cut theirs; `None`
    /// when all is listed (or the queue was closed).
    pub async fn take(&self) -> Option<KeyRange> {
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

    /// A lister finished its range.
    pub fn finish(&self) {
        let mut s = self.lock();
        s.busy -= 1;
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

    /// If listers wait and nothing is queued, cuts the rest of `range` (everything after
    /// `last`, the last key listed) into pieces for them; `range` keeps the first.
    pub fn offer_cut(&self, range: &mut KeyRange, last: &str) {
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

    #[test]
    fn a_cut_covers_the_rest_once() {
        let mut chars = CharSet::default();
        crate::listing::prefix_cells::BASE62_ALPHABET
            .chars()
            .for_each(|c| chars.add(c));
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
