//! The live window `[tail, head)` of a keyspace, shared by all workers of a run.
//!
//! Puts reserve the next index and the head advances only over contiguous finished puts,
//! so readers never pick a key still being written. Deletes take the tail and wait for
//! any in-flight read of that very key, so a mix never reads a key that is gone. All
//! bookkeeping is bounded by the number of requests in flight, never by the key count.
//!
//! Keys finish out of order, so what a checkpoint may save is each end's contiguous
//! watermark ([`Window::checkpoint_state`]): every put below `head` finished, every
//! delete below `tail` finished. A resume from it redoes the writes above either mark
//! (a PUT or DELETE done twice leaves the same bucket) and never skips one.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Mutex;

use tokio::sync::Notify;

pub(crate) use keystorm_results::WindowState;

#[derive(Debug, Default)]
struct Inner {
    /// First index not yet handed to a delete.
    tail: u64,
    /// All puts below `head` finished.
    head: u64,
    /// Next fresh index for a put.
    next_put: u64,
    /// Puts above `head` that finished out of order: those that finished while an older
    /// put was still in flight (as many as the rate times the slowest put's latency).
    finished_ahead: BTreeSet<u64>,
    /// Failed puts to be written again before fresh indices are used.
    retry: VecDeque<u64>,
    /// Reads in flight per index (at most the reads in flight).
    reading: HashMap<u64, u32>,
    /// Deletes waiting for a read of their key to finish.
    deletes_waiting: usize,
    /// All deletes below this finished (`<= tail`).
    deleted: u64,
    /// Deletes at or above `deleted` that finished out of order (at most the deletes
    /// in flight).
    deleted_ahead: BTreeSet<u64>,
}

/// A window shared between workers; all methods are cheap and never await while locked.
#[derive(Debug, Default)]
pub struct Window {
    inner: Mutex<Inner>,
    read_finished: Notify,
}

impl Window {
    pub fn new(state: WindowState) -> Window {
        Window {
            inner: Mutex::new(Inner {
                tail: state.tail,
                head: state.head,
                next_put: state.head,
                deleted: state.tail,
                ..Inner::default()
            }),
            read_finished: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A worker that panicked while holding the lock left consistent integers behind.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The window as it can be checkpointed: every index below `head` is written.
    pub fn state(&self) -> WindowState {
        let g = self.lock();
        WindowState {
            tail: g.tail,
            head: g.head,
        }
    }

    /// The window as a checkpoint saves it: the contiguous watermarks of finished
    /// deletes (`tail`) and finished puts (`head`). Writes in flight above either mark
    /// are not counted, so a resume redoes them.
    pub fn checkpoint_state(&self) -> WindowState {
        let g = self.lock();
        WindowState {
            tail: g.deleted,
            head: g.head,
        }
    }

    /// Live objects counting every put that finished, those above `head` (finished
    /// while an older one is still in flight) too: what a progress counter shows, so it
    /// moves with each completed PUT while a few blocked ones hold `head` back.
    pub fn written_len(&self) -> u64 {
        let g = self.lock();
        (g.head + g.finished_ahead.len() as u64).saturating_sub(g.tail)
    }

    /// Live objects, counting puts that are reserved but not finished.
    pub fn reserved_len(&self) -> u64 {
        let g = self.lock();
        g.next_put.saturating_sub(g.tail) - g.retry.len() as u64
    }

    /// Reserves an index to put. With `limit`, only while the window (finished and in
    /// flight) holds fewer than `limit` objects, so a fill ends at exactly `limit`.
    pub fn begin_put(&self, limit: Option<u64>) -> Option<u64> {
        let mut g = self.lock();
        if let Some(i) = g.retry.pop_front() {
            return Some(i);
        }
        if let Some(limit) = limit {
            let reserved = g.next_put.saturating_sub(g.tail);
            if reserved >= limit {
                return None;
            }
        }
        let i = g.next_put;
        g.next_put += 1;
        Some(i)
    }

    /// Records the end of a put; a failed index is handed out again by `begin_put`.
    pub fn finish_put(&self, i: u64, ok: bool) {
        let mut g = self.lock();
        if !ok {
            g.retry.push_back(i);
            return;
        }
        let Inner {
            head,
            finished_ahead,
            ..
        } = &mut *g;
        advance_watermark(head, finished_ahead, i);
    }

    /// Records the end of a delete taken with `begin_delete`, whether it succeeded or
    /// not (a failed delete is counted as an error, not tried again).
    pub fn finish_delete(&self, i: u64) {
        let mut g = self.lock();
        let Inner {
            deleted,
            deleted_ahead,
            ..
        } = &mut *g;
        advance_watermark(deleted, deleted_ahead, i);
    }

    /// True when every reserved put has finished and none waits for a retry.
    pub fn puts_settled(&self) -> bool {
        let g = self.lock();
        g.head == g.next_put && g.retry.is_empty()
    }

    /// Picks a live index to read (`pick` maps the window length to an offset from the
    /// tail) and marks it as being read. `None` when the window is empty.
    pub fn begin_read(&self, pick: impl FnOnce(u64) -> u64) -> Option<u64> {
        let mut g = self.lock();
        let len = g.head.saturating_sub(g.tail);
        if len == 0 {
            return None;
        }
        let i = g.tail + pick(len).min(len - 1);
        *g.reading.entry(i).or_insert(0) += 1;
        Some(i)
    }

    pub fn finish_read(&self, i: u64) {
        let mut g = self.lock();
        if let Some(n) = g.reading.get_mut(&i) {
            *n -= 1;
            if *n == 0 {
                g.reading.remove(&i);
            }
        }
        if g.deletes_waiting > 0 {
            self.read_finished.notify_waiters();
        }
    }

    /// Takes the oldest live index for deletion, waiting until nobody reads it. With
    /// `floor`, only while more than `floor` objects are live. `None` when empty.
    pub async fn begin_delete(&self, floor: Option<u64>) -> Option<u64> {
        let i = {
            let mut g = self.lock();
            let len = g.head.saturating_sub(g.tail);
            if len == 0 || floor.is_some_and(|f| len <= f) {
                return None;
            }
            let i = g.tail;
            g.tail += 1;
            i
        };
        loop {
            let notified = self.read_finished.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut g = self.lock();
                if !g.reading.contains_key(&i) {
                    return Some(i);
                }
                g.deletes_waiting += 1;
            }
            notified.await;
            self.lock().deletes_waiting -= 1;
        }
    }
}

/// Moves a contiguous watermark over `i` (and whatever finished ahead of it), or keeps
/// `i` aside until the indices below it finish.
fn advance_watermark(mark: &mut u64, ahead: &mut BTreeSet<u64>, i: u64) {
    if i == *mark {
        *mark += 1;
        while ahead.remove(mark) {
            *mark += 1;
        }
    } else if i > *mark {
        ahead.insert(i);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_advances_only_over_contiguous_finished_puts() {
        let w = Window::new(WindowState::default());
        let a = w.begin_put(None).unwrap();
        let b = w.begin_put(None).unwrap();
        let c = w.begin_put(None).unwrap();
        assert_eq!((a, b, c), (0, 1, 2));
        w.finish_put(c, true);
        assert_eq!(w.state().head, 0);
        w.finish_put(a, true);
        assert_eq!(w.state().head, 1);
        w.finish_put(b, true);
        assert_eq!(w.state().head, 3);
        assert!(w.puts_settled());
    }

    #[test]
    fn the_written_count_moves_with_each_finished_put_behind_a_blocked_one() {
        let w = Window::new(WindowState { tail: 0, head: 10 });
        let blocked = w.begin_put(None).unwrap();
        for _ in 0..5 {
            let i = w.begin_put(None).unwrap();
            w.finish_put(i, true);
        }
        assert_eq!((w.state().len(), w.written_len()), (10, 15));
        w.finish_put(blocked, true);
        assert_eq!((w.state().len(), w.written_len()), (16, 16));
    }

    #[test]
    fn failed_put_is_retried_before_fresh_indices() {
        let w = Window::new(WindowState::default());
        let a = w.begin_put(Some(2)).unwrap();
        let b = w.begin_put(Some(2)).unwrap();
        assert_eq!(w.begin_put(Some(2)), None, "limit reached");
        w.finish_put(a, false);
        w.finish_put(b, true);
        assert_eq!(w.state().head, 0);
        assert!(!w.puts_settled());
        assert_eq!(w.begin_put(Some(2)), Some(a));
        w.finish_put(a, true);
        assert_eq!(w.state(), WindowState { tail: 0, head: 2 });
        assert!(w.puts_settled());
    }

    #[test]
    fn reads_stay_inside_the_finished_window() {
        let w = Window::new(WindowState { tail: 5, head: 10 });
        assert_eq!(w.begin_read(|_| 0), Some(5));
        assert_eq!(w.begin_read(|len| len + 100), Some(9));
        let _ = w.begin_put(None);
        assert_eq!(
            w.begin_read(|len| len),
            Some(9),
            "in-flight put not readable"
        );
    }

    #[test]
    fn empty_window_gives_nothing_to_read() {
        let w = Window::new(WindowState { tail: 3, head: 3 });
        assert_eq!(w.begin_read(|_| 0), None);
    }

    #[tokio::test]
    async fn delete_takes_the_tail_and_respects_the_floor() {
        let w = Window::new(WindowState { tail: 0, head: 3 });
        assert_eq!(w.begin_delete(Some(1)).await, Some(0));
        assert_eq!(w.begin_delete(Some(1)).await, Some(1));
        assert_eq!(w.begin_delete(Some(1)).await, None);
        assert_eq!(w.state(), WindowState { tail: 2, head: 3 });
        assert_eq!(w.begin_read(|_| 0), Some(2));
    }

    #[tokio::test]
    async fn the_checkpoint_keeps_deletes_in_flight_above_the_tail() {
        let w = Window::new(WindowState { tail: 10, head: 20 });
        let a = w.begin_delete(None).await.unwrap();
        let b = w.begin_delete(None).await.unwrap();
        let c = w.begin_delete(None).await.unwrap();
        assert_eq!((a, b, c), (10, 11, 12));
        w.finish_delete(c);
        w.finish_delete(b);
        assert_eq!(w.state().tail, 13, "readers never see a key being deleted");
        assert_eq!(
            w.checkpoint_state(),
            WindowState { tail: 10, head: 20 },
            "10 is still being deleted: a resume deletes it again"
        );
        w.finish_delete(a);
        assert_eq!(w.checkpoint_state(), WindowState { tail: 13, head: 20 });
    }

    #[test]
    fn the_checkpoint_head_stops_below_a_put_in_flight() {
        let w = Window::new(WindowState { tail: 0, head: 5 });
        let slow = w.begin_put(None).unwrap();
        for _ in 0..3 {
            let i = w.begin_put(None).unwrap();
            w.finish_put(i, true);
        }
        assert_eq!(w.checkpoint_state(), WindowState { tail: 0, head: 5 });
        w.finish_put(slow, true);
        assert_eq!(w.checkpoint_state(), WindowState { tail: 0, head: 9 });
    }

    #[tokio::test]
    async fn delete_waits_for_a_read_of_its_key() {
        let w = std::sync::Arc::new(Window::new(WindowState { tail: 0, head: 2 }));
        let r = w.begin_read(|_| 0).unwrap();
        assert_eq!(r, 0);
        let w2 = w.clone();
        let deleter = tokio::spawn(async move { w2.begin_delete(None).await });
        // The delete cannot complete while the read is in flight; it completes after.
        tokio::task::yield_now().await;
        assert!(!deleter.is_finished());
        w.finish_read(r);
        assert_eq!(deleter.await.unwrap(), Some(0));
    }
}
