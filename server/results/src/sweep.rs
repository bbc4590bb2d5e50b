//! A rate sweep's curve: its steps' latency against the rate each asked and sent, one
//! curve per operation, and where the store stopped keeping up — the highest step
//! that sent its rate (its knee) and the first that did not. Read from the steps'
//! summary rows (tagged `sweep`), so `show`, the report and the API say the same.

use serde::Serialize;

use crate::phase_ref::Section;
use crate::summary::SummaryRow;
use keystorm_types::OpKind;

/// One step of a sweep, for one operation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepStep {
    /// The step's phase (`put@1000`).
    pub phase: String,
    /// Operations per second the step asked for, and sent (every operation of the
    /// step together).
    pub asked_per_sec: f64,
    pub sent_per_sec: f64,
    /// This operation's completions per second of the step's measured time.
    pub ops_per_sec: f64,
    pub p50_us: u64,
    pub p99_us: u64,
    pub p999_us: u64,
    /// The step sent its rate (not behind: nothing left unsent, ≥ 97 % of it sent).
    pub kept_up: bool,
}

/// The steps of one sweep for one operation, lowest rate first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepCurve {
    pub sweep: String,
    pub section: Section,
    pub round: Option<u32>,
    pub op: OpKind,
    pub steps: Vec<SweepStep>,
    /// The rate of [`SweepCurve::knee`], the last step that kept up before the first
    /// that did not (`None`: the first step did not).
    pub kept_up_to_per_sec: Option<f64>,
    /// The rate of [`SweepCurve::first_behind`] (`None`: every step kept up).
    pub behind_from_per_sec: Option<f64>,
}

impl SweepCurve {
    /// The highest step that kept up below the first that did not: the knee.
    pub fn knee(&self) -> Option<&SweepStep> {
        self.steps.iter().take_while(|s| s.kept_up).last()
    }

    /// The first step that did not keep up.
    pub fn first_behind(&self) -> Option<&SweepStep> {
        self.steps.iter().find(|s| !s.kept_up)
    }
}

/// The curves of every sweep in `rows`, in the order they first appear; a step run in
/// parts (stopped and resumed) counts its first row.
pub fn sweep_curves(rows: &[SummaryRow]) -> Vec<SweepCurve> {
    let mut curves: Vec<SweepCurve> = Vec::new();
    for r in rows {
        let (Some(sweep), Some(open)) = (&r.sweep, r.open_loop) else {
            continue;
        };
        // A step stopped before its end is run again whole (a search's) or resumed.
        if r.interrupted {
            continue;
        }
        let key = |c: &SweepCurve| {
            c.sweep == *sweep && c.section == r.section && c.round == r.round && c.op == r.op
        };
        let at = match curves.iter().position(key) {
            Some(at) => at,
            None => {
                curves.push(SweepCurve {
                    sweep: sweep.clone(),
                    section: r.section,
                    round: r.round,
                    op: r.op,
                    steps: Vec::new(),
                    kept_up_to_per_sec: None,
                    behind_from_per_sec: None,
                });
                curves.len() - 1
            }
        };
        let curve = &mut curves[at];
        if curve.steps.iter().any(|s| s.phase == r.phase) {
            continue;
        }
        let latency = r.stats.latency_us;
        curve.steps.push(SweepStep {
            phase: r.phase.clone(),
            asked_per_sec: open.asked_per_sec,
            sent_per_sec: open.sent_per_sec,
            ops_per_sec: r.stats.ops_per_sec,
            p50_us: latency.p50,
            p99_us: latency.p99,
            p999_us: latency.p999,
            kept_up: !open.behind(),
        });
    }
    for c in &mut curves {
        c.steps
            .sort_by(|a, b| a.asked_per_sec.total_cmp(&b.asked_per_sec));
        c.kept_up_to_per_sec = c.knee().map(|s| s.asked_per_sec);
        c.behind_from_per_sec = c.first_behind().map(|s| s.asked_per_sec);
    }
    curves
}
