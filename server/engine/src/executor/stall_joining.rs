//! One stall per cause: a stall is held back until no later stall can be the same
//! writes waiting, then told. A reshard blocks a dozen PUTs for seconds (writes stall:
//! none finish); when they finish, 18–30 s after they began, their latency makes a
//! second stall. That second one's slowest writes began before the first ended, so it
//! is joined to the first and the pair told once, with the writes it held and the
//! longest wait. Memory: one held stall.

use keystorm_results::StallEvent;

/// How long a closed stall waits for a later one that continues it (seconds after its
/// end): writes blocked longer than this are told as a stall of their own.
const JOIN_WITHIN_S: f64 = 60.0;

#[derive(Default)]
pub(crate) struct StallJoiner {
    held: Option<StallEvent>,
}

impl StallJoiner {
    /// A stall just closed: joined to the held one when it continues it, else held in
    /// its place. Returns the stall to tell now (the one it replaced), if any.
    pub fn closed(&mut self, stall: StallEvent) -> Option<StallEvent> {
        match self.held.take() {
            Some(mut held) if continues(&held, &stall) => {
                join(&mut held, stall);
                self.held = Some(held);
                None
            }
            earlier => {
                self.held = Some(stall);
                earlier
            }
        }
    }

    /// The phase went on, stall-free, until `t_s`: the held stall once no later one can
    /// join it any more.
    pub fn quiet_until(&mut self, t_s: f64) -> Option<StallEvent> {
        let expired = self
            .held
            .as_ref()
            .is_some_and(|h| t_s - h.end_t_s > JOIN_WITHIN_S);
        if expired { self.held.take() } else { None }
    }

    /// The phase ended: the stall still held.
    pub fn finish(&mut self) -> Option<StallEvent> {
        self.held.take()
    }
}

/// Whether `later`'s slowest write was already waiting when `earlier` ended: it
/// finished at `later.start_t_s` at the earliest, after `longest_write_us`.
fn continues(earlier: &StallEvent, later: &StallEvent) -> bool {
    later.phase == earlier.phase
        && later.longest_write_us > 0
        && later.start_t_s - later.longest_write_us as f64 / 1e6 <= earlier.end_t_s
}

/// `held` made to cover `later` too (and the intervals between them); the medians stay
/// the ones from before it began.
fn join(held: &mut StallEvent, later: StallEvent) {
    held.last_interval = later.last_interval;
    held.end_t_s = later.end_t_s;
    held.min_write_ops_per_sec = held.min_write_ops_per_sec.min(later.min_write_ops_per_sec);
    held.max_write_p99_us = held.max_write_p99_us.max(later.max_write_p99_us);
    held.finished_writes += later.finished_writes;
    held.held_writes += later.held_writes;
    held.longest_write_us = held.longest_write_us.max(later.longest_write_us);
    held.throughput |= later.throughput;
    held.latency |= later.latency;
}
