//! `keystorm run`'s lines for a running phase's thresholds judged on what it measured
//! so far: a line when one is first missed so far, one when it is met again, and one
//! when a miss stops the run (`expect_abort_after`) — a change, not a line a second.

use std::collections::BTreeMap;
use std::sync::Mutex;

use keystorm_results::threshold_live::ThresholdsSoFar;

/// Whether each threshold of the running phase was missed so far when last judged
/// (the phase's thresholds at most).
#[derive(Debug, Default)]
pub struct ThresholdLines {
    missed: Mutex<BTreeMap<String, bool>>,
}

impl ThresholdLines {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, bool>> {
        self.missed.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A phase started: its thresholds start unjudged.
    pub fn phase_started(&self) {
        self.lock().clear();
    }

    /// The lines `so_far` calls for, each led by `label` (the phase): its thresholds
    /// whose state changed, and the one that stops the run.
    pub fn lines(&self, label: &str, so_far: &ThresholdsSoFar) -> Vec<String> {
        let mut seen = self.lock();
        let over = format!("{:.1} s measured", so_far.measured_s);
        let mut lines = Vec::new();
        for c in &so_far.checks {
            let was_missed = seen.insert(c.expect.clone(), !c.passed);
            let figure = format!("{} over {over}", c.actual_text);
            if so_far.stops_run.as_ref() == Some(&c.expect) {
                lines.push(format!(
                    "{label}: {} MISSED so far ({figure}): expect_abort_after stops the run",
                    c.expect
                ));
            } else if !c.passed && was_missed != Some(true) {
                let grace = match so_far.abort_after_s {
                    Some(s) if s > so_far.measured_s => {
                        format!("; stops the run if still missed after {s:.0} s measured")
                    }
                    _ => String::new(),
                };
                lines.push(format!(
                    "{label}: {} missed so far ({figure}){grace}",
                    c.expect
                ));
            } else if c.passed && was_missed == Some(true) {
                lines.push(format!("{label}: {} met again so far ({figure})", c.expect));
            }
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keystorm_results::threshold::ThresholdCheck;
    use keystorm_results::{PhaseRef, Section};

    fn so_far(measured_s: f64, passed: bool, stops: bool) -> ThresholdsSoFar {
        ThresholdsSoFar {
            phase: PhaseRef {
                section: Section::Before,
                round: None,
                index: 0,
                name: "read".into(),
            },
            measured_s,
            checks: vec![ThresholdCheck {
                phase: "before read".into(),
                expect: "get.p99 < 1ms".into(),
                actual: 2_000.0,
                actual_text: "2.00 ms".into(),
                passed,
            }],
            abort_after_s: Some(5.0),
            stops_run: stops.then(|| "get.p99 < 1ms".into()),
        }
    }

    #[test]
    fn a_line_says_each_change_and_the_stop_not_every_second() {
        let lines = ThresholdLines::default();
        let said = |s: f64, passed, stops| lines.lines("before read", &so_far(s, passed, stops));
        assert!(said(1.0, true, false).is_empty(), "met from the start");
        assert_eq!(
            said(2.0, false, false),
            [
                "before read: get.p99 < 1ms missed so far (2.00 ms over 2.0 s measured); stops \
              the run if still missed after 5 s measured"
            ]
        );
        assert!(said(3.0, false, false).is_empty(), "still missed");
        assert_eq!(
            said(4.0, true, false),
            ["before read: get.p99 < 1ms met again so far (2.00 ms over 4.0 s measured)"]
        );
        assert_eq!(
            said(5.0, false, true),
            [
                "before read: get.p99 < 1ms MISSED so far (2.00 ms over 5.0 s measured): \
              expect_abort_after stops the run"
            ]
        );
        lines.phase_started();
        assert_eq!(
            said(1.0, false, false).len(),
            1,
            "a new phase starts afresh"
        );
    }
}
