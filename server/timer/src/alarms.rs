//! Alarms for the tasks of one runtime: an open-loop schedule's send times, kept
//! without a thread of their own and without waiting awake.
//!
//! The deadline thread ends a sleep on time, but at a low rate each wake-up costs two
//! (the deadline thread, then the runtime's sleeping thread it wakes), and the second
//! takes tens of microseconds on an idle machine; waiting the last stretch awake hides
//! that at the price of a spinning thread. Here one timerfd is registered with the
//! runtime's own poll: the thread that would sleep anyway sleeps in the kernel until
//! the earliest alarm, and the kernel wakes it directly. What that wake-up still takes
//! (the machine's wake latency) is learnt as it goes: the timer is set that much early,
//! the median of what wake-ups took, so about half of them arrive a little before
//! their alarm and wait out the rest (a few microseconds) awake, the other half a
//! little after. An alarm closer than that gets the timer at its own time: at high
//! rates the runtime is busy between alarms anyway, no thread waits awake, and every
//! alarm due when it looks is fired at once, a batch per wake-up; so is every alarm due
//! when a task queues its next sleep (at a high rate, all the time), the runtime's poll
//! being looked at only between many tasks when it is busy.
//!
//! Where timerfds are not available (not Linux, or no runtime with I/O), the alarms
//! are ordinary [`crate::sleep_until`] sleeps.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::Interest;
use tokio::io::unix::AsyncFd;
use tokio::task::JoinHandle;

use crate::sleepers::{Queue, SleepOn, Sleeper, Wakes, lock};
use crate::timerfd::TimerFd;

/// The most a timer is set ahead of its alarm: what a thread may spend awake per
/// wake-up when the machine's wake-ups are slow.
const MOST_EARLY: Duration = Duration::from_micros(50);
/// How far one wake-up moves the estimate of the next.
const EARLY_STEP: Duration = Duration::from_micros(1);

/// Alarms of one runtime (make them inside it): a schedule's tasks sleep on them.
pub struct Alarms {
    inner: Arc<Inner>,
    serve: Option<JoinHandle<()>>,
}

struct Inner {
    fd: Option<AsyncFd<TimerFd>>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    queue: Queue,
    /// When the timer is set to expire, if it is.
    armed: Option<Instant>,
    /// Whether it was set ahead of a far alarm by the estimate (only such wake-ups
    /// teach it: one for a close alarm, at a high rate, mostly waited for a busy
    /// runtime, and waking earlier for it would only spin).
    armed_ahead: bool,
    /// How far ahead of the earliest alarm the timer is set.
    early: Duration,
}

impl Alarms {
    /// Alarms served on the current tokio runtime (which must have its I/O driver
    /// enabled); ordinary sleeps outside one.
    pub fn new() -> Alarms {
        let fd = tokio::runtime::Handle::try_current()
            .ok()
            .and_then(|_| TimerFd::new().ok())
            // SAFETY: the timerfd owns its descriptor, which stays open and the same
            // until the `AsyncFd` (its only owner) drops it.
            .and_then(|t| unsafe { AsyncFd::register_with_interest(t, Interest::READABLE) }.ok());
        let served = fd.is_some();
        let inner = Arc::new(Inner {
            fd,
            state: Mutex::new(State::default()),
        });
        let serve = served.then(|| tokio::spawn(serve(inner.clone())));
        Alarms { inner, serve }
    }

    /// Whether the alarms wait on a timerfd of the runtime's own poll.
    pub fn on_timerfd(&self) -> bool {
        self.serve.is_some()
    }

    /// Returns at `deadline` or after it, never before it. Dropping the future cancels
    /// the sleep.
    pub async fn sleep_until(&self, deadline: Instant) {
        if self.serve.is_none() {
            return crate::sleep_until(deadline).await;
        }
        SleepOn::new(deadline, &*self.inner).await
    }
}

impl Default for Alarms {
    fn default() -> Self {
        Alarms::new()
    }
}

impl Drop for Alarms {
    fn drop(&mut self) {
        if let Some(task) = self.serve.take() {
            task.abort();
        }
    }
}

impl Inner {
    /// Sets the timer to expire at `at` (now if that passed), `ahead` of its alarm or
    /// not.
    fn arm(&self, state: &mut State, (at, ahead): (Instant, bool)) {
        if let Some(fd) = &self.fd
            && fd
                .get_ref()
                .arm(at.saturating_duration_since(Instant::now()))
                .is_ok()
        {
            state.armed = Some(at);
            state.armed_ahead = ahead;
        }
    }
}

impl Wakes for Inner {
    fn enqueue(&self, deadline: Instant, sleeper: Arc<Sleeper>) {
        let now = Instant::now();
        let mut due = {
            let mut state = lock(&self.state);
            if state.queue.push(deadline, sleeper) {
                let timer = timer_for(deadline, state.early, now);
                if state.armed.is_none_or(|armed| timer.0 < armed) {
                    self.arm(&mut state, timer);
                }
            }
            state.queue.pop_due(now)
        };
        // Alarms already due fire now rather than when the serving task next runs: at
        // a high rate the runtime is busy, its poll (and so the timer) looked at only
        // between many tasks, and tasks queue new sleeps all the time.
        while let Some(sleeper) = due {
            sleeper.fire();
            due = lock(&self.state).queue.pop_due(now);
        }
    }
}

/// What the serving task does after firing the alarms due.
enum Then {
    /// Wait for the timer (set, or to be set by the next sleeper).
    Wait,
    /// The timer woke it ahead of the next alarm, as asked: stay awake for it.
    StayAwake,
}

/// Alarms at least this far off get the timer ahead of them: the runtime's threads
/// likely sleep until then, and waking one takes time. Closer ones (rates of
/// thousands a second) get it at their own time: the runtime is busy between them,
/// and waiting awake for each would keep a thread spinning.
const AHEAD_ONLY_BEYOND: Duration = Duration::from_micros(250);

/// When to set the timer for an alarm at `deadline`, and whether it is set ahead of it
/// by the estimate (so its wake-up says how long wake-ups take).
fn timer_for(deadline: Instant, early: Duration, now: Instant) -> (Instant, bool) {
    match deadline.checked_sub(early) {
        Some(at) if deadline.saturating_duration_since(now) >= AHEAD_ONLY_BEYOND => (at, true),
        _ => (deadline, false),
    }
}

/// The serving task: fire every alarm due, then wait for the timer, or, woken by it
/// ahead of an alarm, stay awake until that alarm.
async fn serve(inner: Arc<Inner>) {
    let Some(fd) = &inner.fd else { return };
    let mut due = Vec::new();
    // The alarm the timer woke this task ahead of.
    let mut awake_for: Option<Instant> = None;
    loop {
        let then = {
            let mut state = lock(&inner.state);
            let now = Instant::now();
            state.queue.take_due(now, &mut due);
            match state.queue.next() {
                None => Then::Wait,
                Some(deadline) if awake_for == Some(deadline) => Then::StayAwake,
                Some(deadline) => {
                    let timer = timer_for(deadline, state.early, now);
                    if state.armed != Some(timer.0) {
                        inner.arm(&mut state, timer);
                    }
                    Then::Wait
                }
            }
        };
        for sleeper in due.drain(..) {
            sleeper.fire();
        }
        match then {
            Then::StayAwake => tokio::task::yield_now().await,
            Then::Wait => {
                if expired(fd).await.is_err() {
                    // The runtime is shutting down: nobody is left to wake.
                    return;
                }
                let now = Instant::now();
                let mut state = lock(&inner.state);
                if let Some(armed) = state.armed.take()
                    && state.armed_ahead
                {
                    learn(&mut state, now.saturating_duration_since(armed));
                }
                // Woken ahead of the next alarm (by at most the estimate): wait it out
                // awake, rather than sleep again for a few microseconds.
                awake_for = state
                    .queue
                    .next()
                    .filter(|&d| d > now && d - now <= state.early);
            }
        }
    }
}

/// Waits until the timer expired (reading its count, which clears it).
async fn expired(fd: &AsyncFd<TimerFd>) -> io::Result<()> {
    loop {
        let mut ready = fd.readable().await?;
        match ready.get_inner().read() {
            Ok(_) => {
                // One read takes every expiry: the next would only find it empty. (An
                // expiry after the read is a newer readiness, which this keeps.)
                ready.clear_ready();
                return Ok(());
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => ready.clear_ready(),
            Err(e) => return Err(e),
        }
    }
}

/// Moves the estimate of a wake-up's delay toward the median of those seen: up when
/// this one took longer, down when it took less.
fn learn(state: &mut State, took: Duration) {
    state.early = if took > state.early {
        (state.early + EARLY_STEP).min(MOST_EARLY)
    } else {
        state.early.saturating_sub(EARLY_STEP)
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::task::Poll;

    #[tokio::test]
    async fn an_alarm_never_ends_before_its_deadline() {
        let alarms = Alarms::new();
        assert!(alarms.on_timerfd());
        for micros in [0, 1, 50, 300, 1_500, 2_000, 2_700, 4_000] {
            let asked = Duration::from_micros(micros);
            let started = Instant::now();
            alarms.sleep_until(started + asked).await;
            assert!(started.elapsed() >= asked, "{micros} µs");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn many_sleepers_each_wake_at_or_after_their_own_deadline() {
        let alarms = Arc::new(Alarms::new());
        let start = Instant::now();
        let tasks: Vec<_> = (0..300u64)
            .map(|i| {
                // Deadlines out of order, some equal, some passed, some far.
                let deadline = start + Duration::from_micros((i * 7_919) % 9_000);
                let alarms = alarms.clone();
                tokio::spawn(async move {
                    alarms.sleep_until(deadline).await;
                    Instant::now() >= deadline
                })
            })
            .collect();
        for t in tasks {
            assert!(t.await.unwrap());
        }
    }

    #[tokio::test]
    async fn a_cancelled_sleep_wakes_nobody_and_later_ones_still_end() {
        let alarms = Alarms::new();
        let start = Instant::now();
        // An earlier sleep given up: the timer was set for it, and must still serve
        // the later one.
        let mut early = Box::pin(alarms.sleep_until(start + Duration::from_millis(1)));
        let _ = std::future::poll_fn(|cx| Poll::Ready(early.as_mut().poll(cx))).await;
        drop(early);
        let deadline = start + Duration::from_millis(3);
        alarms.sleep_until(deadline).await;
        assert!(Instant::now() >= deadline);
    }

    #[test]
    fn outside_a_runtime_the_alarms_are_ordinary_sleeps() {
        let alarms = Alarms::new();
        assert!(!alarms.on_timerfd());
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let deadline = Instant::now() + Duration::from_micros(500);
        rt.block_on(alarms.sleep_until(deadline));
        assert!(Instant::now() >= deadline);
    }

    #[test]
    fn the_timer_is_set_ahead_only_of_alarms_far_enough_off() {
        let now = Instant::now();
        let early = Duration::from_micros(20);
        let far = now + Duration::from_millis(1);
        assert_eq!(timer_for(far, early, now), (far - early, true));
        // With nothing learnt yet, at the alarm, but as one whose wake-up teaches.
        assert_eq!(timer_for(far, Duration::ZERO, now), (far, true));
        // Alarms close together (a high rate), or closer than the estimate: the timer
        // is set for the alarm itself, so nobody waits awake for it.
        let close = now + AHEAD_ONLY_BEYOND - Duration::from_micros(1);
        assert_eq!(timer_for(close, early, now), (close, false));
        let near = now + Duration::from_micros(15);
        assert_eq!(timer_for(near, early, now), (near, false));
        assert_eq!(timer_for(now, early, now), (now, false));
    }

    #[test]
    fn a_sleep_queued_fires_the_alarms_already_due() {
        // No timer at all: only the queueing of another sleep can fire the one due.
        let inner = Inner {
            fd: None,
            state: Mutex::new(State::default()),
        };
        let now = Instant::now();
        let due = Arc::new(Sleeper::default());
        let later = Arc::new(Sleeper::default());
        lock(&inner.state)
            .queue
            .push(now - Duration::from_micros(10), due.clone());
        inner.enqueue(now + Duration::from_secs(60), later.clone());
        assert!(due.fired());
        assert!(!later.fired());
        assert_eq!(
            lock(&inner.state).queue.next(),
            Some(now + Duration::from_secs(60))
        );
    }

    #[test]
    fn the_estimate_follows_the_median_and_stays_bounded() {
        let mut state = State::default();
        // Wake-ups that took 20 µs: the estimate climbs to 20 and stays about there.
        for _ in 0..100 {
            learn(&mut state, Duration::from_micros(20));
        }
        assert!(state.early.abs_diff(Duration::from_micros(20)) <= EARLY_STEP);
        // Slow ones cannot set the timer further ahead than the bound.
        for _ in 0..1_000 {
            learn(&mut state, Duration::from_millis(5));
        }
        assert_eq!(state.early, MOST_EARLY);
        // Quick ones bring it back down to nothing.
        for _ in 0..1_000 {
            learn(&mut state, Duration::ZERO);
        }
        assert_eq!(state.early, Duration::ZERO);
    }
}
