//! A rate sweep's curve: its steps' latency against the rate each asked and sent, one
//! curve per operation, and where the store stopped keeping up — the highest step
//! that sent its rate (its knee) and the first that did not. Read from the steps'
//! summary rows (tagged `sweep`), so `show`, the report and the API say the same. A
//! search's step that a shard restarted in (voided, run again) stays in the steps,
//! marked, but is no point of the curve: its rows hold only part of the shards' work.

use serde::Serialize;

use crate::phase_ref::Section;
use crate::search_result::SearchResult;
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
    /// A search's step over agents that was not judged and ran again, a shard having
    /// restarted in it (its search's `voided`): not a point of the curve, nor a knee.
    pub voided: bool,
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
    /// The steps on the curve: all but the voided.
    pub fn points(&self) -> impl Iterator<Item = &SweepStep> {
        self.steps.iter().filter(|s| !s.voided)
    }

    /// The highest step that kept up below the first that did not: the knee.
    pub fn knee(&self) -> Option<&SweepStep> {
        self.points().take_while(|s| s.kept_up).last()
    }

    /// The first step that did not keep up.
    pub fn first_behind(&self) -> Option<&SweepStep> {
        self.points().find(|s| !s.kept_up)
    }
}

/// The curves of every sweep in `rows`, in the order they first appear; a step run in
/// parts (stopped and resumed) counts its first row. A step `searches` voided is
/// marked so.
pub fn sweep_curves(rows: &[SummaryRow], searches: &[SearchResult]) -> Vec<SweepCurve> {
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
        let voided = searches.iter().any(|s| {
            (s.section, s.round, s.phase.as_str()) == (r.section, r.round, sweep.as_str())
                && s.voided.contains(&r.phase)
        });
        curve.steps.push(SweepStep {
            phase: r.phase.clone(),
            asked_per_sec: open.asked_per_sec,
            sent_per_sec: open.sent_per_sec,
            ops_per_sec: r.stats.ops_per_sec,
            p50_us: latency.p50,
            p99_us: latency.p99,
            p999_us: latency.p999,
            kept_up: !open.behind(),
            voided,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::OpenLoop;

    fn step(phase: &str, asked: f64, sent: f64) -> SummaryRow {
        let mut row = SummaryRow::for_test(phase);
        row.stats.ops = (sent * 10.0) as u64;
        row.open_loop = Some(OpenLoop {
            asked_per_sec: asked,
            sent_per_sec: sent,
            backlog: 0,
        });
        row.sweep = Some("put".into());
        row
    }

    fn search(voided: &[&str]) -> SearchResult {
        SearchResult {
            section: Section::Round,
            round: Some(1),
            phase: "put".into(),
            slo: vec!["put.p99 < 50ms".into()],
            sustainable_rate: Some(400.0),
            bracket: (400.0, None),
            confirmed: false,
            budget_ran_out: false,
            steps: 4,
            judged: Vec::new(),
            limited_by_client: false,
            voided: voided.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn a_voided_step_stays_in_the_steps_marked_but_is_no_knee() {
        // put@200 ran on two shards of three before a restart: a third short.
        let rows = [
            step("put@100", 100.0, 100.0),
            step("put@200", 200.0, 133.0),
            step("put@200#2", 200.0, 200.0),
            step("put@400", 400.0, 400.0),
        ];
        let curves = sweep_curves(&rows, &[search(&["put@200"])]);
        let c = &curves[0];
        assert_eq!(c.steps.len(), 4);
        let marked: Vec<_> = c.steps.iter().filter(|s| s.voided).collect();
        assert_eq!(marked.len(), 1);
        assert_eq!(marked[0].phase, "put@200");
        assert_eq!(c.points().count(), 3);
        assert_eq!(c.kept_up_to_per_sec, Some(400.0));
        assert_eq!(c.behind_from_per_sec, None);

        // Without the search's word the short step reads as the store falling behind.
        let unmarked = sweep_curves(&rows, &[search(&[])]);
        assert_eq!(unmarked[0].behind_from_per_sec, Some(200.0));
        assert_eq!(unmarked[0].kept_up_to_per_sec, Some(100.0));
    }

    #[test]
    fn a_voided_name_marks_only_its_own_search() {
        let rows = [step("put@200", 200.0, 133.0)];
        let mut elsewhere = search(&["put@200"]);
        elsewhere.round = Some(2);
        let curves = sweep_curves(&rows, &[elsewhere]);
        assert!(!curves[0].steps[0].voided);
    }
}
