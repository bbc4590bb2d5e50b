//! One sentence per open-loop phase and round about how it kept its schedule, with
//! units: what it asked, what it sent, how late requests left, and whose side that was
//! on. The engine warns with it when a phase ends, the verdict's "fell behind" finding
//! says it, so the live page, the run page and the CLI never show two sentences (or two
//! contradicting ones) for one phase.

use crate::summary::OpenLoop;

/// Requests leaving later than this share of the latency measured from their slot make
/// the client's delay, not the store's, a visible part of open-loop latency.
pub const LAG_SHARE: f64 = 0.1;

/// How late an open-loop phase's requests left, at the median, beside the median
/// latency measured from their scheduled time (which counts that lateness).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LagAtMedian {
    pub lag_us: u64,
    pub latency_us: u64,
}

impl LagAtMedian {
    /// Whether requests left late enough to be a visible part of the latency.
    pub fn matters(&self) -> bool {
        self.lag_us as f64 > LAG_SHARE * self.latency_us as f64
    }
}

/// `round 3 write: asked 5,000/s, sent 2,383/s (48 %); requests left 1.06 s late at p50
/// (99 % of its latency) — the client could not keep up`; `None` when the phase kept its
/// rate and sent on time. `place` names the phase and round; `lag` is the worst of its
/// operations.
pub fn schedule_note(place: &str, open: &OpenLoop, lag: Option<LagAtMedian>) -> Option<String> {
    let late = lag.filter(LagAtMedian::matters);
    let behind = open.behind();
    if !behind && late.is_none() {
        return None;
    }
    let mut text = format!(
        "{place}: asked {}/s, sent {}/s",
        thousands(open.asked_per_sec),
        thousands(open.sent_per_sec)
    );
    if open.asked_per_sec > 0.0 {
        text += &format!(" ({:.0} %)", 100.0 * open.sent_per_sec / open.asked_per_sec);
    }
    if open.backlog > 0 {
        text += &format!(", {} never sent", thousands(open.backlog as f64));
    }
    match (late, lag) {
        (Some(l), _) => {
            text += &format!(
                "; requests left {} late at p50 ({:.0} % of the p50 latency, which counts it)",
                duration_us(l.lag_us),
                100.0 * l.lag_us as f64 / l.latency_us.max(1) as f64
            );
            text += if behind {
                " — the client could not keep up (too few requests in flight for the target's latency, or too little CPU)"
            } else {
                " — the client sent late"
            };
        }
        // Behind, with requests leaving on time: the target's answers were the limit.
        (None, Some(_)) => text += " — requests left on time: the target took less than was asked",
        // Behind, with no lag recorded (a run from before it was): the figures alone.
        (None, None) => {}
    }
    Some(text)
}

/// `5,000`, `2,383`: a whole count with thousands separated.
fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `850 µs`, `12.3 ms`, `1.06 s`: three significant figures in the unit that fits.
pub fn duration_us(us: u64) -> String {
    let three = |v: f64| {
        if v >= 100.0 {
            format!("{v:.0}")
        } else if v >= 10.0 {
            format!("{v:.1}")
        } else {
            format!("{v:.2}")
        }
    };
    match us {
        0..1_000 => format!("{us} µs"),
        1_000..1_000_000 => format!("{} ms", three(us as f64 / 1e3)),
        _ => format!("{} s", three(us as f64 / 1e6)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(asked: f64, sent: f64, backlog: u64) -> OpenLoop {
        OpenLoop {
            asked_per_sec: asked,
            sent_per_sec: sent,
            backlog,
        }
    }

    #[test]
    fn a_phase_behind_and_late_is_one_sentence_blaming_the_client() {
        let lag = LagAtMedian {
            lag_us: 1_059_839,
            latency_us: 1_062_000,
        };
        let note = schedule_note("round 3 write", &open(5000.0, 2383.2, 0), Some(lag)).unwrap();
        assert_eq!(
            note,
            "round 3 write: asked 5,000/s, sent 2,383/s (48 %); requests left 1.06 s late at \
             p50 (100 % of the p50 latency, which counts it) — the client could not keep up \
             (too few requests in flight for the target's latency, or too little CPU)"
        );
        assert!(!note.contains("target took less"), "{note}");
    }

    #[test]
    fn a_phase_behind_but_on_time_says_the_target_took_less() {
        let lag = LagAtMedian {
            lag_us: 80,
            latency_us: 4_000,
        };
        let note = schedule_note("before fill", &open(2000.0, 1500.0, 12_345), Some(lag)).unwrap();
        assert_eq!(
            note,
            "before fill: asked 2,000/s, sent 1,500/s (75 %), 12,345 never sent — requests \
             left on time: the target took less than was asked"
        );
    }

    #[test]
    fn a_phase_on_rate_but_late_says_the_client_sent_late() {
        let lag = LagAtMedian {
            lag_us: 3_000,
            latency_us: 10_000,
        };
        let note = schedule_note("round 1 read", &open(1000.0, 999.9, 0), Some(lag)).unwrap();
        assert!(note.ends_with("requests left 3.00 ms late at p50 (30 % of the p50 latency, which counts it) — the client sent late"), "{note}");
    }

    #[test]
    fn a_phase_on_rate_and_on_time_says_nothing() {
        let lag = LagAtMedian {
            lag_us: 50,
            latency_us: 1_000,
        };
        assert_eq!(
            schedule_note("x", &open(1000.0, 1000.0, 0), Some(lag)),
            None
        );
        assert_eq!(schedule_note("x", &open(1000.0, 1000.0, 0), None), None);
    }

    #[test]
    fn durations_and_counts_read_with_units() {
        assert_eq!(duration_us(850), "850 µs");
        assert_eq!(duration_us(12_345), "12.3 ms");
        assert_eq!(duration_us(123_456), "123 ms");
        assert_eq!(duration_us(1_059_839), "1.06 s");
        assert_eq!(thousands(1_234_567.0), "1,234,567");
        assert_eq!(thousands(999.0), "999");
    }
}
