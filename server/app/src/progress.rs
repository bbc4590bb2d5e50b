//! What a run shows while it goes: a progress bar per running phase on a terminal,
//! one plain line per interval otherwise (logs, CI), or nothing.

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use keystorm_engine::executor::{Observer, RunEvent};
use keystorm_engine::plan::PhaseEnd;
use keystorm_engine::results::{IntervalRecord, PhaseRef};

use crate::cli::ProgressMode;
use crate::output::Printer;
use crate::table::latency;

/// Resolution of bars whose end is known (per mille).
const BAR_LENGTH: u64 = 1000;

pub struct Progress {
    mode: ProgressMode,
    bar: Mutex<Option<ProgressBar>>,
    rounds: u32,
    printer: Printer,
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
    let style =
        ProgressStyle::with_template("{prefix:.bold} [{elapsed_precise}] {bar:30} ETA {eta} {msg}")
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
                let bar = match end {
                    PhaseEnd::ListOnce => ProgressBar::new_spinner(),
                    PhaseEnd::UntilObjects(_) | PhaseEnd::Duration(_) | PhaseEnd::Operations(_) => {
                        ProgressBar::new(BAR_LENGTH)
                    }
                };
                let bar = styled(bar, self.phase_label(phase));
                if let Some(old) = self.bar().replace(bar) {
                    old.finish_and_clear();
                }
            }
            (
                ProgressMode::Bars,
                RunEvent::Interval {
                    record, progress, ..
                },
            ) => {
                if let Some(bar) = self.bar().as_ref() {
                    if let Some(f) = progress.fraction {
                        bar.set_position((f * BAR_LENGTH as f64) as u64);
                    }
                    bar.set_message(format!(
                        "{} | objects {} errors {}",
                        interval_line(record),
                        progress.objects,
                        progress.errors
                    ));
                }
            }
            (ProgressMode::Bars, RunEvent::PhaseFinished { phase, rows }) => {
                if let Some(bar) = self.bar().take() {
                    bar.finish_and_clear();
                }
                let ops: u64 = rows.iter().map(|r| r.stats.ops).sum();
                stderrln!("{}: done, {ops} operations", self.phase_label(phase));
            }
            (
                ProgressMode::Plain,
                RunEvent::PhaseStarted {
                    phase,
                    objects,
                    concurrency,
                    ..
                },
            ) => {
                stderrln!(
                    "{}: started, concurrency {concurrency}, {objects} objects",
                    self.phase_label(phase)
                );
            }
            (
                ProgressMode::Plain,
                RunEvent::Interval {
                    phase,
                    record,
                    progress,
                },
            ) => {
                stderrln!(
                    "[{:>6.1}s] {}{}: {} | objects {}",
                    record.t_s + record.duration_s,
                    self.phase_label(phase),
                    if record.warmup { " (warm-up)" } else { "" },
                    interval_line(record),
                    progress.objects
                );
            }
            (ProgressMode::Plain, RunEvent::PhaseFinished { phase, rows }) => {
                let ops: u64 = rows.iter().map(|r| r.stats.ops).sum();
                stderrln!("{}: done, {ops} operations", self.phase_label(phase));
            }
            (_, RunEvent::Cleanup(c)) if c.done => {
                if let Some(bar) = self.bar().take() {
                    bar.finish_and_clear();
                }
                stderrln!("cleanup: done, {}", c.describe());
            }
            (ProgressMode::Bars, RunEvent::Cleanup(c)) => {
                let mut slot = self.bar();
                let bar = slot.get_or_insert_with(|| {
                    styled(ProgressBar::new(c.objects.max(1)), "cleanup".into())
                });
                bar.set_position(c.deleted + c.failed);
                bar.set_message(c.describe());
            }
            (ProgressMode::Plain, RunEvent::Cleanup(c)) => {
                stderrln!("cleanup: {}", c.describe());
            }
            (_, RunEvent::Warning { message }) => self.say(format!("warning: {message}")),
            (_, RunEvent::Reshard(r)) => self.say(format!(
                "bucket {}: index resharded {} -> {} shards at {} objects (between {:.1}s and {:.1}s)",
                r.bucket, r.from_shards, r.to_shards, r.objects, r.start_t_s, r.end_t_s
            )),
            (_, RunEvent::Stall(s)) => self.say(format!(
                "{}: writes stalled {:.1}s-{:.1}s (lowest {:.0} ops/s against a median of {:.0}; p99 up to {}){}",
                self.phase_label(&s.phase),
                s.start_t_s,
                s.end_t_s,
                s.min_write_ops_per_sec,
                s.median_write_ops_per_sec,
                latency(s.max_write_p99_us),
                if s.reshard.is_some() { ", next to a reshard" } else { "" }
            )),
            (_, RunEvent::Finished { .. }) => {
                if let Some(bar) = self.bar().take() {
                    bar.finish_and_clear();
                }
            }
            _ => {}
        }
    }
}
