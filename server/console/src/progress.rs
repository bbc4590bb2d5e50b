//! What a run shows while it goes: a progress bar per running phase on a terminal,
//! one plain line per interval otherwise (logs, CI), or nothing.

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use keystorm_results::PhaseEnd;
use keystorm_results::RunEvent;
use keystorm_results::{IntervalRecord, PhaseProgress, PhaseRef, SHORT_INTERVAL_S, SummaryRow};
use keystorm_workload::observer::Observer;

use crate::gateway_states::GatewayStates;
use crate::output::Printer;
use crate::table::latency;
use crate::threshold_lines::ThresholdLines;

/// How progress shows: bars on a terminal, one plain line a second otherwise (`auto`),
/// or nothing but warnings (`quiet`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    Auto,
    Bars,
    Plain,
    Quiet,
}

/// Resolution of bars whose end is known (per mille).
const BAR_LENGTH: u64 = 1000;

pub struct Progress {
    mode: ProgressMode,
    bar: Mutex<Option<ProgressBar>>,
    rounds: u32,
    printer: Printer,
    /// The gateways' states, shown on every line of a run that drives several.
    gateways: GatewayStates,
    /// The running phase's thresholds as last judged, to say when one changes.
    thresholds: ThresholdLines,
}

impl Progress {
    pub fn new(mode: ProgressMode, rounds: u32) -> Progress {
        let mode = match mode {
            ProgressMode::Auto if crate::output::stderr_is_terminal() => ProgressMode::Bars,
            ProgressMode::Auto => ProgressMode::Plain,
            m => m,
        };
        Progress {
            mode,
            bar: Mutex::new(None),
            rounds,
            printer: Printer::current(),
            gateways: GatewayStates::default(),
            thresholds: ThresholdLines::default(),
        }
    }

    fn phase_label(&self, p: &PhaseRef) -> String {
        match p.round {
            Some(r) => format!("round {r}/{} {}", self.rounds, p.name),
            None => format!("{} {}", p.section.as_str(), p.name),
        }
    }

    fn bar(&self) -> std::sync::MutexGuard<'_, Option<ProgressBar>> {
        self.bar.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A bar on stderr labelled `prefix`, redrawn four times a second.
fn styled(bar: ProgressBar, prefix: String) -> ProgressBar {
    bar.set_draw_target(ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{prefix:.bold} [{elapsed_precise}] {bar:30} {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_prefix(prefix);
    bar.enable_steady_tick(Duration::from_millis(250));
    bar
}

/// `put 1234 ops/s 1.2 MiB/s p50 1.1 ms p99 3.4 ms` for each operation of an interval.
fn interval_line(record: &IntervalRecord) -> String {
    let mut parts = Vec::new();
    for (op, s) in &record.ops {
        let mut p = format!(
            "{op} {:.0} ops/s {:.2} MiB/s p50 {} p99 {}",
            s.ops_per_sec,
            s.mib_per_sec,
            latency(s.latency_us.p50),
            latency(s.latency_us.p99)
        );
        if let Some(lag) = s.schedule_lag_us {
            p.push_str(&format!(" (sent late p99 {})", latency(lag.p99)));
        }
        if s.errors > 0 {
            p.push_str(&format!(" errors {}", s.errors));
        }
        parts.push(p);
    }
    if parts.is_empty() {
        "idle".to_string()
    } else {
        parts.join(" | ")
    }
}

/// Whether an interval is a phase's sliver of a last interval (a few in-flight requests
/// finishing after its last full second): its rate and percentiles would read as a dip
/// and a spike, so progress does not show it; the phase's line that follows has its
/// totals.
fn is_sliver(record: &IntervalRecord) -> bool {
    record.interval > 0 && record.duration_s < SHORT_INTERVAL_S
}

/// Time left, from how far the phase got in the time it ran (its whole run, not the
/// last second, so the estimate does not jump): exact for a `duration`, the phase's
/// average pace for an operation count or a fill.
fn time_left(progress: &PhaseProgress) -> Option<String> {
    let f = progress.fraction.filter(|f| *f > 0.0)?;
    let left = (progress.elapsed_s * (1.0 - f) / f).max(0.0);
    Some(if left < 60.0 {
        format!("{left:.0} s")
    } else {
        humantime::format_duration(Duration::from_secs(left.round() as u64)).to_string()
    })
}

/// `round 1/3 read: done, 1200 operations`, or `interrupted` when the phase was stopped
/// before its end.
fn phase_end_line(label: &str, rows: &[SummaryRow]) -> String {
    let ops: u64 = rows.iter().map(|r| r.stats.ops).sum();
    let how = if rows.iter().any(|r| r.interrupted) {
        "interrupted after"
    } else {
        "done,"
    };
    format!("{label}: {how} {ops} operations")
}

impl Progress {
    /// A line above the progress bar (or on its own without one).
    fn say(&self, text: String) {
        match self.bar().as_ref() {
            Some(bar) => bar.println(text),
            None => stderrln!("{text}"),
        }
    }
}

impl Observer for Progress {
    fn event(&self, _id: u64, event: &RunEvent) {
        match event {
            RunEvent::Started { endpoint, .. } => self.gateways.started(endpoint),
            RunEvent::Endpoint(e) => self.gateways.changed(e),
            RunEvent::PhaseStarted { .. } => self.thresholds.phase_started(),
            _ => {}
        }
        self.printer.run(|| self.show(event));
    }

    fn waiting_until(&self, at: std::time::SystemTime) {
        if self.mode == ProgressMode::Quiet {
            return;
        }
        let wait = at
            .duration_since(std::time::SystemTime::now())
            .unwrap_or_default();
        self.printer.run(|| {
            stderrln!(
                "target ready; phases begin at {} (in {} s)",
                humantime::format_rfc3339_seconds(at),
                wait.as_secs()
            )
        });
    }
}

impl Progress {
    /// Shows `event` as the mode wants: bars, plain lines, or warnings alone.
    fn show(&self, event: &RunEvent) {
        match (self.mode, event) {
            (ProgressMode::Quiet, RunEvent::Warning { message }) => stderrln!("warning: {message}"),
            (ProgressMode::Quiet, _) => {}
            (
                _,
                RunEvent::Started {
                    run_id,
                    dir,
                    endpoint,
                    ..
                },
            ) => {
                stderrln!("run {run_id} on {endpoint}; results in {}", dir.display());
            }
            (ProgressMode::Bars, RunEvent::PhaseStarted { phase, end, .. }) => {
                self.start_bar(phase, end);
            }
            (
                ProgressMode::Bars,
                RunEvent::Interval {
                    record, progress, ..
                },
            ) => self.update_bar(record, progress),
            (ProgressMode::Bars, RunEvent::PhaseFinished { phase, rows }) => {
                self.clear_bar();
                stderrln!("{}", phase_end_line(&self.phase_label(phase), rows));
            }
            (
                ProgressMode::Plain,
                RunEvent::PhaseStarted {
                    phase,
                    objects,
                    at_once,
                    ..
                },
            ) => {
                stderrln!(
                    "{}: started, {at_once}, {objects} objects",
                    self.phase_label(phase)
                );
            }
            (
                ProgressMode::Plain,
                RunEvent::Interval {
                    phase,
                    record,
                    progress,
                    ..
                },
            ) if !is_sliver(record) => {
                stderrln!(
                    "[{:>6.1}s] {}{}: {} | objects {}{}",
                    record.t_s + record.duration_s,
                    self.phase_label(phase),
                    if record.warmup { " (warm-up)" } else { "" },
                    interval_line(record),
                    progress.objects,
                    self.gateways.line()
                );
            }
            (ProgressMode::Plain, RunEvent::PhaseFinished { phase, rows }) => {
                stderrln!("{}", phase_end_line(&self.phase_label(phase), rows));
            }
            (_, RunEvent::Cleanup(c)) => self.show_cleanup(c),
            (_, RunEvent::Step(s)) => self.show_step(s),
            (_, RunEvent::ThresholdsSoFar(t)) => {
                for line in self.thresholds.lines(&self.phase_label(&t.phase), t) {
                    self.say(line);
                }
            }
            (_, RunEvent::Finished { .. }) => self.clear_bar(),
            (_, event) => {
                if let Some(note) = self.note(event) {
                    self.say(note);
                }
            }
        }
    }

    /// A bar for the phase starting, in the place of the last one: a spinner for a
    /// phase whose end is not known ahead.
    fn start_bar(&self, phase: &PhaseRef, end: &PhaseEnd) {
        let bar = match end {
            PhaseEnd::ListOnce => ProgressBar::new_spinner(),
            PhaseEnd::UntilObjects(_)
            | PhaseEnd::Duration(_)
            | PhaseEnd::Operations(_)
            | PhaseEnd::Epochs(_) => ProgressBar::new(BAR_LENGTH),
        };
        let bar = styled(bar, self.phase_label(phase));
        if let Some(old) = self.bar().replace(bar) {
            old.finish_and_clear();
        }
    }

    /// Moves the bar to how far the phase got and shows the interval (unless it is a
    /// sliver) with the time left.
    fn update_bar(&self, record: &IntervalRecord, progress: &PhaseProgress) {
        if let Some(bar) = self.bar().as_ref() {
            if let Some(f) = progress.fraction {
                bar.set_position((f * BAR_LENGTH as f64) as u64);
            }
            if !is_sliver(record) {
                let eta = time_left(progress)
                    .map(|t| format!("ETA {t} | "))
                    .unwrap_or_default();
                let place = match record.epoch {
                    Some(e) => format!("epoch {e}"),
                    None => format!("objects {}", progress.objects),
                };
                bar.set_message(format!(
                    "{eta}{} | {place} errors {}{}",
                    interval_line(record),
                    progress.errors,
                    self.gateways.line()
                ));
            }
        }
    }

    /// Takes the bar off the terminal, if one is there.
    fn clear_bar(&self) {
        if let Some(bar) = self.bar().take() {
            bar.finish_and_clear();
        }
    }

    /// A long step (the keys a phase reads being listed, an audit comparing): its line
    /// under the phase's bar (or a spinner of its own before the phase has one), or a
    /// line a second; a line when it is done.
    fn show_step(&self, s: &keystorm_results::StepEvent) {
        match self.mode {
            _ if s.finished => self.say(s.describe()),
            ProgressMode::Bars => {
                let mut bar = self.bar();
                match bar.as_ref() {
                    Some(b) if !b.is_finished() => b.set_message(s.describe()),
                    _ => {
                        let spinner =
                            styled(ProgressBar::new_spinner(), self.phase_label(&s.phase));
                        spinner.set_message(s.describe());
                        *bar = Some(spinner);
                    }
                }
            }
            ProgressMode::Plain => stderrln!("{}", s.describe()),
            _ => {}
        }
    }

    /// The cleanup after a run: a bar (or a line a second) while it goes, a line at its
    /// end.
    fn show_cleanup(&self, c: &keystorm_results::CleanupEvent) {
        match self.mode {
            _ if c.done => {
                self.clear_bar();
                stderrln!("cleanup: done, {}", c.describe());
            }
            ProgressMode::Bars => {
                let mut slot = self.bar();
                let bar = slot.get_or_insert_with(|| {
                    styled(ProgressBar::new(c.objects.max(1)), "cleanup".into())
                });
                bar.set_position(c.deleted + c.failed);
                bar.set_message(c.describe());
            }
            ProgressMode::Plain => {
                stderrln!("cleanup: {}", c.describe());
            }
            _ => {}
        }
    }

    /// What a warning, a reshard, the keys a phase reads or a write stall say, as a
    /// line above the bar; nothing for other events.
    fn note(&self, event: &RunEvent) -> Option<String> {
        Some(match event {
            RunEvent::Warning { message } => format!("warning: {message}"),
            RunEvent::Pause(p) => p.describe(),
            RunEvent::Fleet(f) => f.describe(),
            RunEvent::Threshold(c) => format!(
                "{}: {} {} ({})",
                c.phase,
                c.expect,
                if c.passed { "met" } else { "MISSED" },
                c.actual_text
            ),
            RunEvent::Endpoint(e) => e.describe(),
            RunEvent::Reshard(r) => format!(
                "bucket {}: index resharded {} -> {} shards at {} objects (between {:.1}s and {:.1}s)",
                r.bucket, r.from_shards, r.to_shards, r.objects, r.start_t_s, r.end_t_s
            ),
            RunEvent::Keys(k) => format!(
                "{}: reads {} of bucket {}{}",
                self.phase_label(&k.phase),
                keys_line(k),
                k.bucket,
                match k.epochs {
                    Some(1) => ", every key once".to_string(),
                    Some(n) => format!(", every key {n} times"),
                    None => String::new(),
                }
            ),
            RunEvent::Stall(s) => format!(
                "{}: writes stalled {:.1}s-{:.1}s ({}){}",
                self.phase_label(&s.phase),
                s.start_t_s,
                s.end_t_s,
                s.figures(),
                if s.reshard.is_some() {
                    ", next to a reshard"
                } else {
                    ""
                }
            ),
            _ => return None,
        })
    }
}

/// Which keys a phase reads: how many, from which key file, listed how.
fn keys_line(k: &keystorm_results::KeysEvent) -> String {
    let part = if k.part_keys == k.keys {
        format!("{} keys", k.keys)
    } else {
        format!("{} of the {} keys", k.part_keys, k.keys)
    };
    match (k.source, k.list_seconds) {
        (keystorm_results::KeySourceKind::Listing, Some(s)) if s > 0.0 => {
            format!("{part} listed in {s:.1} s into {}", k.file)
        }
        (keystorm_results::KeySourceKind::Listing, _) => {
            format!("{part} listed before into {}", k.file)
        }
        (keystorm_results::KeySourceKind::File, _) => {
            format!("{part} of key file {}", k.file)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(elapsed_s: f64, fraction: Option<f64>) -> PhaseProgress {
        PhaseProgress {
            elapsed_s,
            fraction,
            ops: 0,
            errors: 0,
            objects: 0,
        }
    }

    #[test]
    fn time_left_falls_second_by_second_through_a_duration() {
        // A 10 s phase, as its intervals report it: the estimate never rises.
        let left: Vec<String> = [1.0, 2.0, 3.0, 9.0]
            .into_iter()
            .map(|t| time_left(&progress(t, Some(t / 10.0))).unwrap())
            .collect();
        assert_eq!(left, ["9 s", "8 s", "7 s", "1 s"]);
        assert_eq!(time_left(&progress(1.0, None)), None);
        assert_eq!(time_left(&progress(0.0, Some(0.0))), None);
        assert_eq!(
            time_left(&progress(60.0, Some(0.25))).as_deref(),
            Some("3m")
        );
    }
}
