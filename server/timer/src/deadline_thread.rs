//! The one thread that ends short sleeps on time. It holds the sleepers in flight in a
//! heap by deadline, waits for the earliest with the kernel's high-resolution timer
//! (its timer slack lowered to the minimum on Linux, where the default adds up to
//! 50 µs), and wakes each sleeping task as its deadline passes. A sleeper dropped
//! before its deadline stays queued until then (at most a few milliseconds: only the
//! last stretch of a sleep waits here) but wakes nobody.

use std::cmp::Ordering as Order;
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll, Waker};
use std::thread::Thread;
use std::time::Instant;

/// One sleep in flight: whether its deadline passed, and whom to wake then.
#[derive(Default)]
struct Sleeper {
    fired: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Sleeper {
    fn waker(&self) -> MutexGuard<'_, Option<Waker>> {
        self.waker.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn fire(&self) {
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

#[derive(Default)]
struct Queue {
    heap: BinaryHeap<Entry>,
    seq: u64,
}

struct DeadlineThread {
    queue: Arc<Mutex<Queue>>,
    thread: Thread,
}

fn lock(queue: &Mutex<Queue>) -> MutexGuard<'_, Queue> {
    queue.lock().unwrap_or_else(|p| p.into_inner())
}

/// The thread, started on first use; `None` if the system would not start one (the
/// sleeps then end on tokio's wheel, a tick late at worst).
fn deadline_thread() -> Option<&'static DeadlineThread> {
    static THREAD: OnceLock<Option<DeadlineThread>> = OnceLock::new();
    THREAD
        .get_or_init(|| {
            let queue = Arc::new(Mutex::new(Queue::default()));
            let served = queue.clone();
            let handle = std::thread::Builder::new()
                .name("keystorm-deadlines".into())
                .spawn(move || serve(&served))
                .ok()?;
            Some(DeadlineThread {
                queue,
                thread: handle.thread().clone(),
            })
        })
        .as_ref()
}

/// The thread's loop: wake everyone whose deadline passed, then wait for the next.
fn serve(queue: &Mutex<Queue>) {
    lower_timer_slack();
    let mut due = Vec::new();
    loop {
        let next = {
            let mut q = lock(queue);
            let now = Instant::now();
            while q.heap.peek().is_some_and(|e| e.deadline <= now) {
                if let Some(e) = q.heap.pop() {
                    due.push(e.sleeper);
                }
            }
            q.heap.peek().map(|e| e.deadline)
        };
        for sleeper in due.drain(..) {
            sleeper.fire();
        }
        match next {
            Some(deadline) => {
                let now = Instant::now();
                if deadline > now {
                    std::thread::park_timeout(deadline - now);
                }
            }
            None => std::thread::park(),
        }
    }
}

/// Timer slack lets the kernel end a timed wait up to that much late to batch wake-ups
/// (50 µs by default); this thread exists to be on time.
fn lower_timer_slack() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl with PR_SET_TIMERSLACK takes one integer argument and changes only
    // the calling thread's timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
}

/// Waits on the deadline thread until `deadline`.
pub(crate) async fn wait_until(deadline: Instant) {
    match deadline_thread() {
        Some(thread) => {
            WaitUntil {
                deadline,
                thread,
                sleeper: None,
            }
            .await
        }
        None => tokio::time::sleep_until(deadline.into()).await,
    }
}

struct WaitUntil {
    deadline: Instant,
    thread: &'static DeadlineThread,
    sleeper: Option<Arc<Sleeper>>,
}

impl Future for WaitUntil {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if Instant::now() >= self.deadline {
            return Poll::Ready(());
        }
        match &self.sleeper {
            Some(sleeper) => {
                // The waker first, then the flag: a deadline thread firing in between
                // finds this waker; one that fired before is seen here.
                {
                    let mut waker = sleeper.waker();
                    if !waker.as_ref().is_some_and(|w| w.will_wake(cx.waker())) {
                        *waker = Some(cx.waker().clone());
                    }
                }
                if sleeper.fired.load(Ordering::Acquire) {
                    return Poll::Ready(());
                }
            }
            None => {
                let sleeper = Arc::new(Sleeper::default());
                *sleeper.waker() = Some(cx.waker().clone());
                let earliest = {
                    let mut q = lock(&self.thread.queue);
                    q.seq += 1;
                    let seq = q.seq;
                    let earliest = q.heap.peek().is_none_or(|e| self.deadline < e.deadline);
                    q.heap.push(Entry {
                        deadline: self.deadline,
                        seq,
                        sleeper: sleeper.clone(),
                    });
                    earliest
                };
                if earliest {
                    self.thread.thread.unpark();
                }
                self.sleeper = Some(sleeper);
            }
        }
        Poll::Pending
    }
}

impl Drop for WaitUntil {
    fn drop(&mut self) {
        if let Some(sleeper) = &self.sleeper {
            sleeper.waker().take();
        }
    }
}
