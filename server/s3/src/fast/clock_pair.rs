//! The wall clock and the monotonic clock read together, once in a while per thread,
//! so that a time on one converts to the other without reading both again.
//!
//! A request needs the wall clock to sign (`x-amz-date`, to the second) and each of
//! its reads turns a kernel receive stamp (wall clock) into an [`Instant`]. Read both
//! clocks for each costs 35–50 ns a read on a virtual machine, two to four reads a
//! request. The two clocks run at the same rate but for the wall clock's slewing
//! (at most 500 ppm) and steps, so a pair read within a millisecond of the time
//! converted is off by half a microsecond at worst; a time farther from the pair
//! (a step, data long waiting in a socket) reads both clocks afresh.

use std::cell::Cell;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How far from the pair a time may be for the pair to convert it.
const FRESH: Duration = Duration::from_millis(1);

/// Both clocks at one moment: the instant, and the wall clock's time since the epoch.
#[derive(Clone, Copy)]
struct Pair {
    at: Instant,
    wall: Duration,
}

thread_local! {
    static PAIR: Cell<Option<Pair>> = const { Cell::new(None) };
}

fn read_both() -> Pair {
    let at = Instant::now();
    // A wall clock before 1970 does not occur on a signing client; it reads as 1970.
    let wall = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let pair = Pair { at, wall };
    PAIR.with(|p| p.set(Some(pair)));
    pair
}

/// The thread's pair if `near` says it is close enough to what is converted, else a
/// fresh one.
fn pair(near: impl Fn(&Pair) -> bool) -> Pair {
    match PAIR.with(Cell::get) {
        Some(p) if near(&p) => p,
        _ => read_both(),
    }
}

fn within(a: Duration, b: Duration, bound: Duration) -> bool {
    a.abs_diff(b) <= bound
}

/// How far apart two instants are, whichever is first.
fn apart(a: Instant, b: Instant) -> Duration {
    a.checked_duration_since(b).unwrap_or_else(|| b - a)
}

/// The wall clock's time (since the epoch) at `at`, a recent instant, to within
/// `tolerance` of the clocks' drift: a pair further than `tolerance` from `at` is read
/// again.
pub fn wall_at(at: Instant, tolerance: Duration) -> Duration {
    let p = pair(|p| apart(at, p.at) <= tolerance);
    if at >= p.at {
        p.wall + (at - p.at)
    } else {
        p.wall.saturating_sub(p.at - at)
    }
}

/// The instant at which the wall clock read `wall` (since the epoch), and how long
/// before the pair that was (zero for a time after it); `None` where the instant is
/// before this process's clock can say.
pub fn instant_at(wall: Duration) -> Option<(Instant, Duration)> {
    let p = pair(|p| within(wall, p.wall, FRESH));
    if wall >= p.wall {
        p.at.checked_add(wall - p.wall)
            .map(|at| (at, Duration::ZERO))
    } else {
        let before = p.wall - wall;
        p.at.checked_sub(before).map(|at| (at, before))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Room for this thread being put off between two clock reads on a busy machine;
    /// the times converted are seconds apart.
    const SLACK: Duration = Duration::from_millis(100);

    /// Both clocks read fresh, against what the pair says.
    fn exact_wall(at: Instant) -> Duration {
        let now = Instant::now();
        let wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        wall - (now - at)
    }

    #[test]
    fn a_wall_time_from_an_instant_is_that_of_the_clocks() {
        let at = Instant::now();
        let wall = wall_at(at, Duration::from_secs(1));
        assert!(within(wall, exact_wall(at), SLACK));
        // An instant far before the pair is converted from a fresh one.
        let long_ago = at - Duration::from_secs(30);
        let wall = wall_at(long_ago, Duration::from_secs(1));
        assert!(within(wall, exact_wall(long_ago), SLACK));
    }

    #[test]
    fn a_stamp_converts_to_its_instant_and_its_age() {
        let now_wall = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        let now = Instant::now();
        let (at, before) = instant_at(now_wall).unwrap();
        assert!(apart(at, now) < SLACK);
        assert!(before < SLACK);
        // Three seconds old: outside the pair's reach, read afresh; its age is told.
        let (at, before) = instant_at(now_wall - Duration::from_secs(3)).unwrap();
        assert!(
            (now - at).abs_diff(Duration::from_secs(3)) < SLACK,
            "{:?}",
            now - at
        );
        assert!(before.abs_diff(Duration::from_secs(3)) < SLACK);
    }
}
