//! A run's verdict in one word and its findings in a few: whether it completed as
//! asked, fell behind the rate it asked for, found the store not as written, had errors,
//! or was resumed or taken over on the way. Worked out once from what the run left (its
//! manifest, summary rows and integrity report) so that `keystorm run`'s exit code,
//! `show`, `ls`, the API, the runs list, the compare page and the report all say the
//! same thing.

use serde::{Deserialize, Serialize};

use crate::integrity::IntegrityReport;
use crate::manifest::Manifest;
use crate::run_status::RunStatus;
use crate::summary::SummaryRow;

use crate::finding::{Finding, FindingKind};

/// The one word a run's list entry shows: the worst of its findings, or how it ended
/// when it did not complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Overall {
    /// Completed, kept its asked rate, no errors, the store kept what it was given.
    AsAsked,
    /// Completed, but a verification or an audit found the store did not keep what it
    /// was given (`keystorm run` exits 3).
    NotAsWritten,
    /// Completed, but a phase missed a threshold of the workload's `expect:`
    /// (`keystorm run` exits 3).
    MissedThreshold,
    /// Completed, but an open-loop phase sent fewer requests than it asked for.
    FellBehind,
    /// Completed, with failed requests.
    HadErrors,
    /// Did not complete: `status` says how it ended (or that it is still going).
    NotCompleted,
}

impl Overall {
    pub fn as_str(self) -> &'static str {
        match self {
            Overall::AsAsked => "completed as asked",
            Overall::NotAsWritten => "not as written",
            Overall::MissedThreshold => "missed a threshold",
            Overall::FellBehind => "fell behind",
            Overall::HadErrors => "had errors",
            Overall::NotCompleted => "not completed",
        }
    }
}

/// A run's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct RunVerdict {
    pub overall: Overall,
    /// How the run ended (as observed: `killed` for a run whose process is gone).
    pub status: RunStatus,
    /// Everything that applies, the worst first.
    pub findings: Vec<Finding>,
}

impl RunVerdict {
    /// The verdict of a run from its manifest, its rows (parts or whole phases: a
    /// resumed phase is behind when any part was) and what it proved about the store.
    pub fn of(
        dir: &std::path::Path,
        manifest: &Manifest,
        rows: &[SummaryRow],
        integrity: &IntegrityReport,
    ) -> Self {
        let checks = threshold_checks(dir, manifest, rows, integrity);
        RunVerdict::judged(manifest, rows, integrity, &checks)
    }

    /// The verdict with the run's thresholds already judged (`checks`).
    fn judged(
        manifest: &Manifest,
        rows: &[SummaryRow],
        integrity: &IntegrityReport,
        checks: &[crate::threshold::ThresholdCheck],
    ) -> Self {
        let status = manifest.observed_status();
        let mut findings = Vec::new();
        if !integrity.clean() {
            findings.push(Finding {
                kind: FindingKind::NotAsWritten,
                text: integrity.not_as_written_text(),
            });
        }
        findings.extend(missed_thresholds(checks));
        findings.extend(fell_behind(rows));
        let (ops, errors) = rows.iter().fold((0u64, 0u64), |(o, e), r| {
            (o + r.stats.ops, e + r.stats.errors)
        });
        if errors > 0 {
            let share = 100.0 * errors as f64 / (ops + errors) as f64;
            findings.push(Finding {
                kind: FindingKind::HadErrors,
                text: format!(
                    "{errors} of {} requests failed ({share:.2} %)",
                    ops + errors
                ),
            });
        }
        let taken_over = rows.iter().filter(|r| r.taken_over).count();
        if taken_over > 0 {
            findings.push(Finding {
                kind: FindingKind::TakenOver,
                text: format!(
                    "{} taken over from a lost host",
                    plural(phases_of(rows, |r| r.taken_over), "phase")
                ),
            });
        }
        let resumes = manifest.resumed_at.len()
            + manifest
                .merged_from
                .iter()
                .map(|p| p.resumed_at.len())
                .sum::<usize>();
        if resumes > 0 && taken_over == 0 {
            findings.push(Finding {
                kind: FindingKind::Resumed,
                text: format!("resumed {}", plural(resumes, "time")),
            });
        }
        RunVerdict::from_findings(status, findings)
    }

    /// The verdict its findings make for a run that ended as `status`.
    pub fn from_findings(status: RunStatus, findings: Vec<Finding>) -> Self {
        let overall = match (status, findings.first().map(|f| f.kind)) {
            (RunStatus::Completed, Some(FindingKind::NotAsWritten)) => Overall::NotAsWritten,
            (RunStatus::Completed, Some(FindingKind::MissedThreshold)) => Overall::MissedThreshold,
            (RunStatus::Completed, Some(FindingKind::FellBehind)) => Overall::FellBehind,
            (RunStatus::Completed, Some(FindingKind::HadErrors)) => Overall::HadErrors,
            (RunStatus::Completed, _) => Overall::AsAsked,
            _ => Overall::NotCompleted,
        };
        RunVerdict {
            overall,
            status,
            findings,
        }
    }

    /// The verdict of the run in `dir`: the findings its manifest recorded when it
    /// ended, with the status as it is now (a run recorded running whose process is
    /// gone is `killed`); worked out from `rows` and its events for a run that recorded
    /// none (it was killed, or ran before keystorm recorded verdicts).
    pub fn read(dir: &std::path::Path, manifest: &Manifest, rows: &[SummaryRow]) -> Self {
        match &manifest.findings {
            Some(f) => RunVerdict::from_findings(manifest.observed_status(), f.clone()),
            // Still going: no verdict yet, and its event log is not read on every look.
            None if manifest.observed_status() == RunStatus::Running => {
                RunVerdict::listed(manifest, rows)
            }
            None => RunVerdict::of(
                dir,
                manifest,
                rows,
                &crate::integrity::read_integrity(dir, rows),
            ),
        }
    }

    /// The verdict a list of runs shows, read without the event log: the findings
    /// recorded, or else those of `rows` alone (objects read corrupt or missing are
    /// counted there; an audit's findings are not).
    pub fn listed(manifest: &Manifest, rows: &[SummaryRow]) -> Self {
        let findings = manifest.findings.clone().unwrap_or_else(|| {
            let mut counted = IntegrityReport::default();
            for r in rows {
                let class = |label: &str| r.stats.error_classes.get(label).copied().unwrap_or(0);
                counted.corrupt += class("corrupt");
                counted.missing += class("missing");
            }
            RunVerdict::judged(manifest, rows, &counted, &[]).findings
        });
        RunVerdict::from_findings(manifest.observed_status(), findings)
    }

    /// `completed as asked`, `not as written (resumed 1 time)`, `interrupted`...: the
    /// word a list shows, the other findings' names after it.
    pub fn headline(&self) -> String {
        let word = match self.overall {
            Overall::NotCompleted => self.status.as_str(),
            o => o.as_str(),
        };
        let worst = match self.overall {
            Overall::NotAsWritten => Some(FindingKind::NotAsWritten),
            Overall::MissedThreshold => Some(FindingKind::MissedThreshold),
            Overall::FellBehind => Some(FindingKind::FellBehind),
            Overall::HadErrors => Some(FindingKind::HadErrors),
            _ => None,
        };
        // Each other kind once (a run can miss several thresholds).
        let mut rest: Vec<&str> = Vec::new();
        for f in self.findings.iter().filter(|f| Some(f.kind) != worst) {
            if !rest.contains(&f.kind.as_str()) {
                rest.push(f.kind.as_str());
            }
        }
        if rest.is_empty() {
            word.to_string()
        } else {
            format!("{word} ({})", rest.join(", "))
        }
    }

    /// Whether the store did not keep what the run gave it.
    pub fn not_as_written(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.kind == FindingKind::NotAsWritten)
    }
}

/// Each open-loop phase that sent fewer requests than it asked for, once per phase,
/// in the words the run warned with (what it asked and sent, how late requests left).
fn fell_behind(rows: &[SummaryRow]) -> Vec<Finding> {
    let mut seen = std::collections::HashSet::new();
    rows.iter()
        .filter_map(|r| Some((r, r.open_loop?)))
        .filter(|(_, o)| o.behind())
        .filter(|(r, _)| seen.insert((r.section, r.round, r.phase.clone())))
        .map(|(r, o)| {
            let same =
                |x: &&SummaryRow| (x.section, x.round, &x.phase) == (r.section, r.round, &r.phase);
            let lag = worst_lag(rows.iter().filter(same));
            let text = crate::schedule_note::schedule_note(&place(r), &o, lag)
                .unwrap_or_else(|| format!("{}: {}", place(r), o.describe()));
            Finding {
                kind: FindingKind::FellBehind,
                text,
            }
        })
        .collect()
}

/// The latest-leaving median of `rows`' operations, beside that operation's median
/// latency.
pub fn worst_lag<'a>(
    rows: impl Iterator<Item = &'a SummaryRow>,
) -> Option<crate::schedule_note::LagAtMedian> {
    rows.filter_map(|r| {
        Some(crate::schedule_note::LagAtMedian {
            lag_us: r.stats.schedule_lag_us?.p50,
            latency_us: r.stats.latency_us.p50,
        })
    })
    .max_by_key(|l| l.lag_us)
}

/// `round 3 write`, `before fill`.
pub fn place(r: &SummaryRow) -> String {
    crate::phase_ref::place_words(r.section, r.round, &r.phase)
}

fn phases_of(rows: &[SummaryRow], pick: impl Fn(&SummaryRow) -> bool) -> usize {
    rows.iter()
        .filter(|r| pick(r))
        .map(|r| (r.section, r.round, r.phase.clone()))
        .collect::<std::collections::HashSet<_>>()
        .len()
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Most thresholds missed that are told one by one; the rest are counted in one more.
const MAX_MISSED_TOLD: usize = 10;

/// Every threshold of the run's workload judged on every phase it applies to (each
/// phase's rows whole: a resumed phase's parts added up), and its `integrity:
/// as_written` on what the run proved about the store (`integrity`).
pub fn threshold_checks(
    dir: &std::path::Path,
    manifest: &Manifest,
    rows: &[SummaryRow],
    integrity: &IntegrityReport,
) -> Vec<crate::threshold::ThresholdCheck> {
    if manifest.expect.is_empty() {
        return Vec::new();
    }
    crate::threshold_judge::judge(
        &manifest.expect,
        &crate::whole_phase_rows(dir, rows),
        integrity,
    )
}

/// `round 2 read: get.p99 < 20ms missed (31.2 ms)`, one per missed check, bounded.
fn missed_thresholds(checks: &[crate::threshold::ThresholdCheck]) -> Vec<Finding> {
    let missed: Vec<_> = checks.iter().filter(|c| !c.passed).collect();
    let mut findings: Vec<Finding> = missed
        .iter()
        .take(MAX_MISSED_TOLD)
        .map(|c| Finding {
            kind: FindingKind::MissedThreshold,
            text: format!("{}: {} missed ({})", c.phase, c.expect, c.actual_text),
        })
        .collect();
    if missed.len() > MAX_MISSED_TOLD {
        findings.push(Finding {
            kind: FindingKind::MissedThreshold,
            text: format!("and {} more missed", missed.len() - MAX_MISSED_TOLD),
        });
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::summary::OpenLoop;

    fn manifest(status: &str, resumed_at: &[&str]) -> Manifest {
        serde_json::from_value(serde_json::json!({
            "format_version": 1, "run_id": "r", "keystorm_version": "0", "workload": "w",
            "workload_file": null, "host": "h", "endpoint": "embedded", "client": "fast",
            "seed": 1, "labels": {}, "started_at": "2026-11-29T00:00:00Z",
            "ended_at": "2026-11-29T00:01:00Z", "status": status, "error": null,
            "created_buckets": [], "resumed_at": resumed_at, "command_line": [],
        }))
        .unwrap()
    }

    fn row(phase: &str, round: Option<u32>, ops: u64, errors: u64) -> SummaryRow {
        let mut row = SummaryRow::for_test(phase);
        if round.is_none() {
            row.section = crate::Section::Before;
        }
        row.round = round;
        row.stats.ops = ops;
        row.stats.errors = errors;
        row
    }

    #[test]
    fn a_clean_completed_run_is_as_asked_and_an_unfinished_one_says_how_it_ended() {
        let rows = [row("fill", None, 100, 0)];
        let v = RunVerdict::of(
            std::path::Path::new(""),
            &manifest("completed", &[]),
            &rows,
            &Default::default(),
        );
        assert_eq!(
            (v.overall, v.headline()),
            (Overall::AsAsked, "completed as asked".into())
        );
        let v = RunVerdict::of(
            std::path::Path::new(""),
            &manifest("interrupted", &[]),
            &rows,
            &Default::default(),
        );
        assert_eq!(
            (v.overall, v.headline()),
            (Overall::NotCompleted, "interrupted".into())
        );
    }

    #[test]
    fn the_worst_finding_is_the_word_and_the_others_follow_it() {
        let mut behind = row("write", Some(3), 2383 * 10, 12);
        behind.open_loop = Some(OpenLoop {
            asked_per_sec: 5000.0,
            sent_per_sec: 2383.0,
            backlog: 0,
        });
        // Both parts of a resumed phase fell behind: one finding for the phase.
        let rows = [behind.clone(), behind];
        let integrity = IntegrityReport {
            missing: 141,
            ..Default::default()
        };
        let v = RunVerdict::of(
            std::path::Path::new(""),
            &manifest("completed", &["2026-11-29T00:00:30Z"]),
            &rows,
            &integrity,
        );
        assert_eq!(v.overall, Overall::NotAsWritten);
        assert!(v.not_as_written());
        let kinds: Vec<FindingKind> = v.findings.iter().map(|f| f.kind).collect();
        assert_eq!(
            kinds,
            [
                FindingKind::NotAsWritten,
                FindingKind::FellBehind,
                FindingKind::HadErrors,
                FindingKind::Resumed
            ]
        );
        assert_eq!(v.findings[0].text, "reads found 0 corrupt, 141 missing");
        assert_eq!(
            v.findings[1].text,
            "round 3 write: asked 5,000/s, sent 2,383/s (48 %)"
        );
        assert_eq!(v.findings[2].text, "24 of 47684 requests failed (0.05 %)");
        assert_eq!(
            v.headline(),
            "not as written (fell behind, had errors, resumed)"
        );
        // Taken over says so, and not also resumed.
        let mut taken = row("fill", None, 10, 0);
        taken.taken_over = true;
        let v = RunVerdict::of(
            std::path::Path::new(""),
            &manifest("completed", &["x"]),
            &[taken],
            &Default::default(),
        );
        assert_eq!(v.headline(), "completed as asked (taken over)");
    }

    #[test]
    fn a_phase_behind_with_requests_leaving_late_says_so_in_its_one_finding() {
        let mut behind = row("write", Some(3), 2383 * 10, 0);
        behind.open_loop = Some(OpenLoop {
            asked_per_sec: 5000.0,
            sent_per_sec: 2383.0,
            backlog: 0,
        });
        behind.stats.latency_us.p50 = 1_070_000;
        behind.stats.schedule_lag_us = Some(crate::metrics::Percentiles {
            p50: 1_059_839,
            ..Default::default()
        });
        let v = RunVerdict::of(
            std::path::Path::new(""),
            &manifest("completed", &[]),
            &[behind],
            &Default::default(),
        );
        assert_eq!(v.findings.len(), 1);
        assert!(
            v.findings[0].text.starts_with(
                "round 3 write: asked 5,000/s, sent 2,383/s (48 %); requests left 1.06 s late at p50"
            ) && v.findings[0].text.contains("the client could not keep up"),
            "{:?}",
            v.findings
        );
    }

    #[test]
    fn a_recorded_verdict_is_read_back_with_the_status_as_it_is_now() {
        let mut m = manifest("completed", &[]);
        m.findings = Some(vec![Finding {
            kind: FindingKind::HadErrors,
            text: "1 of 2 requests failed (50.00 %)".into(),
        }]);
        let v = RunVerdict::listed(&m, &[]);
        assert_eq!(v.overall, Overall::HadErrors);
        // Without a recorded verdict, the rows' own error classes still say a key was lost.
        let mut lost = row("read", Some(1), 10, 1);
        lost.stats.error_classes.insert("missing".into(), 1);
        let v = RunVerdict::listed(&manifest("completed", &[]), &[lost]);
        assert_eq!(v.overall, Overall::NotAsWritten);
    }
}
