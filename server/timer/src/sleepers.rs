//! What the two wakers of this crate (the deadline thread, a runtime's alarms) share:
//! a sleeper in flight (whether its deadline passed, whom to wake), the queue of them
//! earliest first, and the future a task awaits until its sleeper fires. Each waker
//! only says how a new sleeper is queued and how its own wait is woken for it.

use std::cmp::Ordering as Order;
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Instant;

/// One sleep in flight: whether its deadline passed, and whom to wake then.
#[derive(Default)]
pub(crate) struct Sleeper {
    fired: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Sleeper {
    fn waker(&self) -> MutexGuard<'_, Option<Waker>> {
        self.waker.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Whether its deadline passed (it was fired).
    pub fn fired(&self) -> bool {
        self.fired.load(Ordering::Acquire)
    }

    pub fn fire(&self) {
        self.fired.store(true, Ordering::Release);
        if let Some(w) = self.waker().take() {
            w.wake();
        }
    }
}

/// A queued sleeper, ordered so the heap's top is the earliest deadline (the first
/// queued among equal ones).
struct Entry {
    deadline: Instant,
    seq: u64,
    sleeper: Arc<Sleeper>,
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Order {
        (other.deadline, other.seq).cmp(&(self.deadline, self.seq))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Order> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Order::Equal
    }
}

impl Eq for Entry {}

/// The sleepers in flight, earliest first. A sleeper dropped before its deadline stays
/// queued until then but wakes nobody, so the queue holds at most the sleeps begun in
/// the last stretch any one of them waits.
#[derive(Default)]
pub(crate) struct Queue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

impl Queue {
    /// Queues a sleeper; whether it is now the earliest (its waker must wake sooner).
    pub fn push(&mut self, deadline: Instant, sleeper: Arc<Sleeper>) -> bool {
        self.seq += 1;
        let earliest = self.heap.peek().is_none_or(|e| deadline < e.deadline);
        self.heap.push(Entry {
            deadline,
            seq: self.seq,
            sleeper,
        });
        earliest
    }

    /// Moves every sleeper whose deadline is at or before `now` into `due`.
    pub fn take_due(&mut self, now: Instant, due: &mut Vec<Arc<Sleeper>>) {
        while let Some(sleeper) = self.pop_due(now) {
            due.push(sleeper);
        }
    }

    /// The earliest sleeper, if its deadline is at or before `now`.
    pub fn pop_due(&mut self, now: Instant) -> Option<Arc<Sleeper>> {
        if self.heap.peek()?.deadline <= now {
            self.heap.pop().map(|e| e.sleeper)
        } else {
            None
        }
    }

    /// The earliest deadline queued.
    pub fn next(&self) -> Option<Instant> {
        self.heap.peek().map(|e| e.deadline)
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A waker of sleepers: queues one and makes sure its own wait ends by its deadline.
pub(crate) trait Wakes {
    fn enqueue(&self, deadline: Instant, sleeper: Arc<Sleeper>);
}

/// Waits until `deadline` on the waker `W`; dropping it cancels the wait.
pub(crate) struct SleepOn<'w, W: Wakes> {
    deadline: Instant,
    wakes: &'w W,
    sleeper: Option<Arc<Sleeper>>,
}

impl<'w, W: Wakes> SleepOn<'w, W> {
    pub fn new(deadline: Instant, wakes: &'w W) -> SleepOn<'w, W> {
        SleepOn {
            deadline,
            wakes,
            sleeper: None,
        }
    }
}

impl<W: Wakes> Future for SleepOn<'_, W> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.deadline {
            return Poll::Ready(());
        }
        match &self.sleeper {
            Some(sleeper) => {
                // The waker first, then the flag: a waker firing in between finds this
                // waker; one that fired before is seen here.
                {
                    let mut waker = sleeper.waker();
                    if !waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                        *waker = Some(cx.waker().clone());
                    }
                }
                if sleeper.fired() {
                    return Poll::Ready(());
                }
            }
            None => {
                let sleeper = Arc::new(Sleeper::default());
                *sleeper.waker() = Some(cx.waker().clone());
                self.wakes.enqueue(self.deadline, sleeper.clone());
                self.sleeper = Some(sleeper);
            }
        }
        Poll::Pending
    }
}

impl<W: Wakes> Drop for SleepOn<'_, W> {
    fn drop(&mut self) {
        if let Some(sleeper) = &self.sleeper {
            sleeper.waker().take();
        }
    }
}
