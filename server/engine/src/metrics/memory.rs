//! The client's memory, as two figures that count different things. The peak resident
//! set (VmHWM, what `getrusage` gives) counts every page the process has mapped and
//! touched, the pages of files it maps included: a run that picks keys from a key file
//! maps it, and the pages its picks reach are the page cache's (shared, clean, taken
//! back by the kernel when it needs them) yet count there as the process's. The
//! anonymous part (RssAnon: heap, stacks, buffers) is the memory the process itself
//! holds; Linux keeps no peak of it, so a run samples it ([`AnonPeak`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// How often a run samples its anonymous memory: a peak shorter than this can be
/// missed, so the figure is a floor of the true peak.
const SAMPLE_EVERY: Duration = Duration::from_millis(250);

/// Peak resident set size of this process, in KiB (VmHWM: mapped file pages included).
pub fn peak_rss_kib() -> u64 {
    // SAFETY: getrusage only writes into the zeroed struct we hand it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    if rc != 0 {
        0
    } else {
        usage.ru_maxrss.max(0) as u64
    }
}

/// The anonymous resident memory of this process now, in KiB; `None` where the
/// kernel does not say (no `/proc`, or a kernel older than 4.5).
pub fn rss_anon_kib() -> Option<u64> {
    rss_anon_in(&std::fs::read_to_string("/proc/self/status").ok()?)
}

/// The `RssAnon:` line of a `/proc/PID/status` text, in KiB.
fn rss_anon_in(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix("RssAnon:"))?;
    line.trim().strip_suffix("kB")?.trim().parse().ok()
}

/// The highest anonymous resident memory sampled, in KiB (0: none sampled yet).
#[derive(Debug, Default)]
pub struct AnonPeak(AtomicU64);

impl AnonPeak {
    /// Samples the anonymous memory now.
    pub fn sample(&self) {
        if let Some(kib) = rss_anon_kib() {
            self.record(kib);
        }
    }

    fn record(&self, kib: u64) {
        self.0.fetch_max(kib, Ordering::Relaxed);
    }

    /// The peak sampled; `None` if the kernel never said.
    pub fn peak_kib(&self) -> Option<u64> {
        Some(self.0.load(Ordering::Relaxed)).filter(|&kib| kib > 0)
    }

    /// Samples every [`SAMPLE_EVERY`] until `stop`, and once more then.
    pub async fn watch(&self, stop: CancellationToken) {
        let mut tick = tokio::time::interval(SAMPLE_EVERY);
        loop {
            tokio::select! {
                _ = tick.tick() => self.sample(),
                () = stop.cancelled() => break,
            }
        }
        self.sample();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_anonymous_part_is_read_from_the_status_text() {
        let status = "Name:\tkeystorm\nVmHWM:\t  157500 kB\nVmRSS:\t  150000 kB\n\
                      RssAnon:\t   45056 kB\nRssFile:\t  104944 kB\nRssShmem:\t       0 kB\n";
        assert_eq!(rss_anon_in(status), Some(45056));
        assert_eq!(rss_anon_in("Name:\tzombie\n"), None);
        assert_eq!(rss_anon_in("RssAnon:\t12 MB\n"), None);
    }

    #[test]
    fn this_process_has_an_anonymous_part_under_its_peak() {
        let anon = rss_anon_kib().expect("Linux says RssAnon");
        assert!(
            anon > 0 && anon <= peak_rss_kib(),
            "{anon} > {}",
            peak_rss_kib()
        );
    }

    #[test]
    fn the_peak_is_the_highest_sample() {
        let peak = AnonPeak::default();
        assert_eq!(peak.peak_kib(), None);
        for kib in [300, 900, 100] {
            peak.record(kib);
        }
        assert_eq!(peak.peak_kib(), Some(900));
    }

    #[tokio::test]
    async fn watching_samples_at_least_once_when_stopped() {
        let peak = AnonPeak::default();
        let stop = CancellationToken::new();
        stop.cancel();
        peak.watch(stop).await;
        assert!(peak.peak_kib().is_some());
    }
}
