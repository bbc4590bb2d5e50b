//! Closing the part of a phase that a crash cut short. A process killed without warning
//! (kill -9, out of memory, a reboot) never wrote that part's summary rows, but its
//! intervals are on disk, flushed every second. A resume builds the rows from them:
//! counters from `intervals.jsonl`, latency from the merge of the part's lines in
//! `histograms.hlog` (exact, as a phase's own merge), marked `interrupted`. Read line by
//! line, so memory stays the same however long the part ran.

use std::collections::HashMap;
use std::time::Duration;

use super::phase::{PartEnd, open_loop_outcome, summary_rows};
use super::sequence::ScheduledPhase;
use crate::keyspace::WindowState;
use crate::metrics::IntervalStats;
use keystorm_results::{
    BucketIndex, HLOG_FILE, INTERVALS_FILE, IntervalQuery, PartStart, Redone, ResultsError,
    Summary, SummaryRow, for_each_hlog_line, for_each_interval, hlog_start_ms, hlog_tag,
};
use keystorm_types::{ErrorClass, OpKind};

/// What the crashed part measured.
pub(crate) struct ClosedPart {
    /// Its rows; empty when they were written before the crash, or it measured nothing.
    pub rows: Vec<SummaryRow>,
    /// Its measured (warm-up free) statistics and time, for the run's totals.
    pub totals: IntervalStats,
    pub measured: Duration,
    /// Operations finished and seconds run in the part, warm-up included.
    pub operations: u64,
    pub elapsed_s: f64,
    /// The number after the part's last recorded interval.
    pub next_interval: u64,
    /// PUTs that succeeded and DELETEs that finished in the part, warm-up included: the
    /// keys it wrote, for telling which a resume writes again.
    pub puts_done: u64,
    pub deletes_done: u64,
}

impl ClosedPart {
    /// The writes a resume from the window `resumed_at` does again: those the part
    /// finished beyond the watermarks it had reached by then (every write below them
    /// is counted once; the window began at `part.window_at_start`).
    pub fn redone(&self, part: &PartStart, resumed_at: WindowState) -> Redone {
        let Some(start) = part.window_at_start else {
            return Redone::default();
        };
        Redone {
            put: self
                .puts_done
                .saturating_sub(resumed_at.head.saturating_sub(start.head)),
            delete: self
                .deletes_done
                .saturating_sub(resumed_at.tail.saturating_sub(start.tail)),
        }
    }
}

/// Builds the rows of `part` of `scheduled` from the run folder `dir`, unless `summary`
/// already holds them; their tails counted at `tail_marks`.
pub(crate) fn close(
    dir: &std::path::Path,
    scheduled: &ScheduledPhase,
    part: &PartStart,
    summary: &Summary,
    tail_marks: keystorm_results::tail_marks::TailMarks,
) -> Result<ClosedPart, ResultsError> {
    let phase = &scheduled.phase_ref;
    let query = IntervalQuery {
        section: Some(phase.section.as_str()),
        round: phase.round,
        phase: Some(&phase.name),
        max_points: None,
    };
    // Intervals of earlier parts have earlier times (a resumed run's times follow on).
    let first_ms = hlog_start_ms(part.t_s);
    let mut closed = ClosedPart {
        rows: Vec::new(),
        totals: IntervalStats::default(),
        measured: Duration::ZERO,
        operations: 0,
        elapsed_s: 0.0,
        next_interval: part.first_interval,
        puts_done: 0,
        deletes_done: 0,
    };
    // A run that drives several endpoints numbers them as its manifest lists them.
    let urls = keystorm_results::ResultStore::read_manifest(dir)
        .map(|m| m.endpoints)
        .unwrap_or_default();
    let mut index_at_end: Vec<BucketIndex> = Vec::new();
    let mut measured_s = 0.0;
    let intervals = dir.join(INTERVALS_FILE);
    for_each_interval(dir, &query, |r| {
        if r.interval < part.first_interval || hlog_start_ms(r.t_s) < first_ms {
            return Ok(());
        }
        closed.next_interval = closed.next_interval.max(r.interval + 1);
        closed.elapsed_s += r.duration_s;
        for (op, s) in &r.ops {
            closed.operations += s.ops + s.errors;
            match op {
                OpKind::Put => closed.puts_done += s.ops,
                OpKind::Delete => closed.deletes_done += s.ops + s.errors,
                _ => {}
            }
        }
        if !r.index.is_empty() {
            index_at_end = r.index.clone();
        }
        if r.warmup {
            return Ok(());
        }
        measured_s += r.duration_s;
        for (op, s) in &r.ops {
            add_summary(closed.totals.op_mut(*op), s);
        }
        for e in &r.endpoints {
            if let Some(i) = urls.iter().position(|u| *u == e.endpoint) {
                for (op, s) in &e.ops {
                    add_summary(closed.totals.endpoint_op_mut(i, *op), s);
                }
            }
        }
        Ok(())
    })
    .map_err(|source| ResultsError::Io {
        path: intervals,
        source,
    })?;
    closed.measured = Duration::from_secs_f64(measured_s);

    let round = phase
        .round
        .map_or_else(|| "-".to_string(), |r| r.to_string());
    // Each operation's lines, and each endpoint's (`op@E`).
    let mut tags: HashMap<String, (OpKind, Option<usize>)> = HashMap::new();
    for op in OpKind::ALL {
        let parts = [phase.section.as_str(), &round, &phase.name, op.as_str()];
        let tag = hlog_tag(&parts);
        for e in 0..urls.len() {
            tags.insert(keystorm_results::endpoint_tag(&tag, e), (op, Some(e)));
        }
        tags.insert(tag, (op, None));
    }
    let hlog = dir.join(HLOG_FILE);
    let read = for_each_hlog_line(
        &hlog,
        |line| {
            line.get("Tag=".len()..)
                .and_then(|rest| rest.split(',').next())
                .is_some_and(|tag| tags.contains_key(tag))
        },
        |line| {
            if line.start_ms >= first_ms
                && let Some((op, endpoint)) = tags.get(line.tag)
            {
                let stats = match endpoint {
                    Some(e) => closed.totals.endpoint_op_mut(*e, *op),
                    None => closed.totals.op_mut(*op),
                };
                // One precision everywhere, so adding cannot fail.
                let _ = stats.latency.add(&line.histogram);
            }
        },
    );
    match read {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => return Err(ResultsError::Io { path: hlog, source }),
    }

    let written = summary.rows.iter().any(|r| {
        r.section == phase.section
            && r.round == phase.round
            && r.phase == phase.name
            && r.started_at == part.started_at
    });
    if !written {
        closed.rows = summary_rows(
            &closed.totals,
            phase,
            part,
            &PartEnd {
                measured: closed.measured,
                client_cpu_s: part.client_cpu_s,
                index_at_end: &index_at_end,
                interrupted: true,
                endpoints: &urls,
                tail_marks,
            },
        );
        // An open-loop part says what it sent of its rate, as a part that ended does
        // (else a merge or a whole phase counts its requests as never sent).
        let open_loop = scheduled.plan.rate.map(|rate| {
            open_loop_outcome(
                rate,
                None,
                closed.measured,
                closed.measured,
                &closed.totals,
                &closed.totals,
            )
        });
        for r in &mut closed.rows {
            r.open_loop = open_loop;
            r.sweep = scheduled.plan.sweep.clone();
        }
    }
    if written || closed.rows.is_empty() {
        // Already counted in the totals, or nothing to count.
        closed.totals = IntervalStats::default();
        closed.measured = Duration::ZERO;
    }
    Ok(closed)
}

/// Closes the run folder a killed process left, without running anything more: the
/// rows of the part it was running are built from its intervals (marked interrupted),
/// the totals take them in, and the manifest says `killed`. For a folder no process
/// will resume, such as the copy a controller holds of a lost agent's shard, so a merge
/// of it counts what it measured in its rows as in its histograms.
pub fn close_killed_run(
    dir: &std::path::Path,
    plan: &crate::plan::Plan,
) -> Result<(), keystorm_results::ResultsError> {
    use keystorm_results::{ResultStore, RunStatus};
    let mut manifest = ResultStore::read_manifest(dir)?;
    if manifest.status != RunStatus::Running {
        return Ok(());
    }
    let mut plan = plan.clone();
    // A shard's plan, as the run had it; one that cannot be had leaves the rows as they are.
    let phases = match plan.apply_overrides(&manifest.run_overrides()) {
        Ok(()) => super::sequence::schedule(&plan),
        Err(_) => Vec::new(),
    };
    let store = ResultStore::open_append(dir)?;
    if let Ok(checkpoint) = ResultStore::read_checkpoint(dir)
        && let Some(part) = checkpoint
            .position
            .as_ref()
            .and_then(|p| p.open_part.as_ref())
        && let Some(scheduled) = phases
            .get(checkpoint.completed)
            .filter(|s| checkpoint.current.as_ref() == Some(&s.phase_ref))
    {
        let mut summary = ResultStore::read_summary_or_empty(dir, &manifest.run_id)?;
        let closed = close(dir, scheduled, part, &summary, plan.tail_marks)?;
        if !closed.rows.is_empty() {
            let mut run_totals = super::totals::read(dir)?;
            summary.rows.extend(closed.rows);
            run_totals.add_phase(&closed.totals, closed.measured);
            summary.totals = run_totals.rows();
            store.write_summary(&summary)?;
            super::totals::write(dir, &run_totals)?;
        }
    }
    manifest.status = RunStatus::Killed;
    manifest.process = None;
    store.write_manifest(&manifest)
}

/// Adds an interval's counters of one operation (latency comes from the histogram log).
fn add_summary(mine: &mut crate::metrics::OpStats, s: &crate::metrics::OpSummary) {
    mine.ops += s.ops;
    mine.bytes += s.bytes;
    mine.keys += s.keys;
    for (class, n) in &s.error_classes {
        *mine
            .errors
            .entry(ErrorClass::from_label(class))
            .or_insert(0) += n;
    }
    // The retried attempts are the failed ones less each failed operation's last.
    for (class, n) in &s.attempt_error_classes {
        let last = s.error_classes.get(class).copied().unwrap_or(0);
        if *n > last {
            *mine
                .retried
                .entry(ErrorClass::from_label(class))
                .or_insert(0) += n - last;
        }
    }
}
