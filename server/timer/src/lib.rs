//! Sleeps that end when asked, to tens of microseconds.
//!
//! tokio's timer wheel has a resolution of one millisecond: a sleep ends at the first
//! tick at or after its deadline, so a 2 ms sleep lasts 2 to 3 ms. That slop is fine
//! for timeouts and back-offs, and wrong in two places: an open-loop schedule, whose
//! latency counts from the intended send time (a request sent a tick late reports the
//! tick as the store's latency), and an injected delay of the embedded target (a
//! store modelled to answer in 2 ms that answers in 3). Both sleep here instead: the
//! bulk of a long sleep on tokio's wheel, the last stretch on one thread of this
//! crate that waits with the kernel's high-resolution timers and wakes each sleeper
//! at its deadline. The thread holds one entry per sleeper in flight, never more.
//! Waking the runtime's own sleeping thread from there takes tens of microseconds more
//! on an idle machine: [`Alarms`] serve an open-loop schedule with one timerfd in the
//! runtime's own poll instead, so the kernel wakes the thread that runs the task.

mod alarms;
mod deadline_thread;
mod sleepers;
mod timerfd;
#[cfg(feature = "wheel-reference")]
pub mod wheel_reference;

use std::time::{Duration, Instant};

pub use alarms::Alarms;

/// Sleeps this close to the deadline or closer wait on the deadline thread from the
/// start; longer ones sleep on tokio's wheel until this far before it (the wheel may
/// wake them up to a tick late, still before the deadline).
const WHEEL_MARGIN: Duration = Duration::from_millis(2);

/// Returns at `deadline` or within tens of microseconds after it (later only when the
/// machine gives the deadline thread or the waiting task no CPU), never before it.
/// Dropping the future cancels the sleep.
pub async fn sleep_until(deadline: Instant) {
    let now = Instant::now();
    if deadline <= now {
        return;
    }
    if deadline - now > WHEEL_MARGIN {
        tokio::time::sleep_until((deadline - WHEEL_MARGIN).into()).await;
    }
    deadline_thread::wait_until(deadline).await;
}

/// [`sleep_until`] `now + duration`.
pub async fn sleep(duration: Duration) {
    sleep_until(Instant::now() + duration).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_sleep_never_ends_before_its_deadline() {
        for micros in [0, 1, 50, 300, 1_500, 2_000, 2_700, 4_000] {
            let asked = Duration::from_micros(micros);
            let started = Instant::now();
            sleep(asked).await;
            assert!(started.elapsed() >= asked, "{micros} µs");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn many_sleepers_each_wake_at_or_after_their_own_deadline() {
        let start = Instant::now();
        let tasks: Vec<_> = (0..200u64)
            .map(|i| {
                // Deadlines out of order, some equal, on both sides of the wheel margin.
                let deadline = start + Duration::from_micros((i * 7_919) % 5_000);
                tokio::spawn(async move {
                    sleep_until(deadline).await;
                    Instant::now() >= deadline
                })
            })
            .collect();
        for t in tasks {
            assert!(t.await.unwrap());
        }
    }
}
