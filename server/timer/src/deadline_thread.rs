//! The one thread that ends short sleeps on time. It holds the sleepers in flight in a
//! heap by deadline, waits for the earliest with the kernel's high-resolution timer
//! (its timer slack lowered to the minimum on Linux, where the default adds up to
//! 50 µs), and wakes each sleeping task as its deadline passes. A sleeper dropped
//! before its deadline stays queued until then (at most a few milliseconds: only the
//! last stretch of a sleep waits here) but wakes nobody.

use std::sync::{Arc, Mutex, OnceLock};
use std::thread::Thread;
use std::time::Instant;

use crate::sleepers::{Queue, SleepOn, Sleeper, Wakes, lock};

struct DeadlineThread {
    queue: Arc<Mutex<Queue>>,
    thread: Thread,
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
            q.take_due(Instant::now(), &mut due);
            q.next()
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
        Some(thread) => SleepOn::new(deadline, thread).await,
        None => tokio::time::sleep_until(deadline.into()).await,
    }
}

impl Wakes for DeadlineThread {
    fn enqueue(&self, deadline: Instant, sleeper: Arc<Sleeper>) {
        if lock(&self.queue).push(deadline, sleeper) {
            self.thread.unpark();
        }
    }
}
