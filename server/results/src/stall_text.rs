//! What a write stall says in words, for the CLI's line and `show`'s timeline: only
//! figures for what happened (no "p99 up to 0 µs" where no write finished), and the
//! writes it held with the longest wait when some finished late.

use crate::StallEvent;

/// Microseconds as a readable latency: `850 µs`, `12.3 ms`, `1.20 s`.
pub fn latency_text(us: u64) -> String {
    if us < 1_000 {
        format!("{us} µs")
    } else if us < 1_000_000 {
        format!("{:.1} ms", us as f64 / 1_000.0)
    } else {
        format!("{:.2} s", us as f64 / 1_000_000.0)
    }
}

impl StallEvent {
    /// `lowest 0 ops/s against a median of 812; no write finished`, or `lowest 40 ops/s
    /// against a median of 812; p99 up to 24.10 s; 14 writes held, the longest 24.31 s`.
    pub fn figures(&self) -> String {
        let mut parts = vec![format!(
            "lowest {:.0} ops/s against a median of {:.0}",
            self.min_write_ops_per_sec, self.median_write_ops_per_sec
        )];
        if self.max_write_p99_us == 0 {
            parts.push("no write finished".to_string());
        } else {
            parts.push(format!("p99 up to {}", latency_text(self.max_write_p99_us)));
        }
        if self.held_writes > 0 {
            parts.push(format!(
                "{} write{} held, the longest {}",
                self.held_writes,
                if self.held_writes == 1 { "" } else { "s" },
                latency_text(self.longest_write_us)
            ));
        }
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PhaseRef, Section};

    fn stall(max_write_p99_us: u64, held_writes: u64, longest_write_us: u64) -> StallEvent {
        StallEvent {
            phase: PhaseRef {
                section: Section::Before,
                round: None,
                index: 0,
                name: "fill".into(),
            },
            first_interval: 111,
            last_interval: 116,
            start_t_s: 111.6,
            end_t_s: 116.6,
            min_write_ops_per_sec: 0.0,
            median_write_ops_per_sec: 812.4,
            max_write_p99_us,
            median_write_p99_us: 20_000,
            finished_writes: 0,
            held_writes,
            longest_write_us,
            throughput: true,
            latency: max_write_p99_us > 0,
            reshard: Some(7),
        }
    }

    #[test]
    fn a_stall_where_no_write_finished_prints_no_latency() {
        let text = stall(0, 0, 0).figures();
        assert_eq!(
            text,
            "lowest 0 ops/s against a median of 812; no write finished"
        );
    }

    #[test]
    fn the_writes_a_stall_held_are_told_with_the_longest_wait() {
        let text = stall(24_100_000, 14, 24_310_000).figures();
        assert_eq!(
            text,
            "lowest 0 ops/s against a median of 812; p99 up to 24.10 s; 14 writes held, \
             the longest 24.31 s"
        );
        assert!(
            stall(900, 1, 950)
                .figures()
                .ends_with("1 write held, the longest 950 µs")
        );
    }
}
