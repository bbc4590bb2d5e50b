//! The runs of the shards of one workload merged into one run, exactly: latency
//! histograms are added (never percentiles averaged), counters summed. The merged
//! folder has the format of a single run — summary rows per phase × round ×
//! operation, intervals per second of each phase, the interval histogram log, events, a
//! manifest naming its parts, the shards' warnings — plus the parts themselves under
//! `shards/`, as they were.
//! Memory holds one histogram per phase and operation and the intervals of the second
//! being merged, whatever the length of the runs.

mod intervals;
mod live;
mod outcomes;
mod parts;
mod rows;
mod seconds;
mod shard_warnings;
mod step;
mod timeline;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::events::RunEvent;
use crate::files::{FORMAT_VERSION, timestamp};
use crate::manifest::Manifest;
use crate::store::ResultStore;
use crate::summary::Summary;

pub use crate::merged_part::MergedPart;
pub use live::{LiveInterval, LiveMerge};
pub use parts::MergeError;
pub use step::{StepPart, merge_step};

/// What to merge, and where to.
pub struct MergeRequest<'a> {
    /// The run folders of the shards.
    pub parts: &'a [PathBuf],
    /// The results folder the merged run is written to, as a run of its own
    /// (`<date>-<time>-<workload>-merged-<hex>`).
    pub results_root: &'a Path,
    /// The plan of the whole workload for `plan.json`; `None` copies the first part's.
    pub plan: Option<serde_json::Value>,
    pub command_line: Vec<String>,
    /// The merged run's id (a controller names its run when it starts); `None`: a new
    /// `<workload>-merged-<hex>`.
    pub run_id: Option<String>,
    /// Per part, the reference clock minus the clock of the host that ran it (ms), so
    /// their seconds line up (a controller measures its agents'); empty: all 0.
    pub clock_offsets_ms: &'a [i64],
    /// Per part, what its controller knows of a takeover of it (`agent-1 was lost;
    /// agent-0 took the shard over after it waited 28.1 s`), said with the part's pause
    /// of that takeover; empty: nothing known.
    pub takeovers: &'a [Option<String>],
    /// What the controller saw happen to the run's hosts (agents lost and back, shards
    /// taken over, its own restart); none: a merge of folders alone.
    pub fleet: Option<crate::FleetLog<'a>>,
}

/// A merged run.
#[derive(Debug)]
pub struct Merged {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub summary: Summary,
    /// What the merge could not make whole (missing shards, parts still running).
    pub warnings: Vec<String>,
}

/// Merges the runs `request.parts` into `request.out`.
pub fn merge_runs(request: &MergeRequest<'_>) -> Result<Merged, MergeError> {
    let parts = parts::load(request.parts, request.clock_offsets_ms)?;
    let warnings = parts::check(&parts)?;
    let first = &parts[0];
    let run_id = request.run_id.clone().unwrap_or_else(|| {
        crate::new_run_id(
            &format!("{}-merged", first.manifest.workload),
            SystemTime::now(),
        )
    });
    let out = &request.results_root.join(&run_id);
    if out.exists() {
        return Err(MergeError::OutputExists(out.to_path_buf()));
    }
    let start_epoch_ms = parts.iter().map(|p| p.start_epoch_ms).min().unwrap_or(0);
    let started = SystemTime::UNIX_EPOCH + std::time::Duration::from_millis(start_epoch_ms);
    let mut manifest = Manifest {
        format_version: FORMAT_VERSION,
        run_id: run_id.clone(),
        keystorm_version: first.manifest.keystorm_version.clone(),
        workload: first.manifest.workload.clone(),
        workload_file: first.manifest.workload_file.clone(),
        host: first.manifest.host.clone(),
        endpoint: parts::endpoints(&parts),
        endpoints: parts::endpoint_list(&parts),
        client: first.manifest.client.clone(),
        seed: first.manifest.seed,
        labels: parts::common_labels(&parts),
        started_at: timestamp(started),
        ended_at: parts
            .iter()
            .filter_map(|p| p.manifest.ended_at.clone())
            .max(),
        status: parts::merged_status(&parts),
        error: parts.iter().find_map(|p| {
            p.manifest
                .error
                .as_ref()
                .map(|e| format!("{}: {e}", p.run_id))
        }),
        created_buckets: parts
            .iter()
            .flat_map(|p| p.manifest.created_buckets.iter().cloned())
            .collect(),
        buckets: parts::buckets(&parts),
        resumed_at: Vec::new(),
        command_line: request.command_line.clone(),
        overrides: crate::RunOverrides {
            shard: None,
            ..first.manifest.run_overrides()
        },
        peak_rss_kib: parts.iter().filter_map(|p| p.manifest.peak_rss_kib).max(),
        peak_rss_anon_kib: parts
            .iter()
            .filter_map(|p| p.manifest.peak_rss_anon_kib)
            .max(),
        process: None,
        cleanup: None,
        merged_from: parts.iter().map(parts::Part::describe).collect(),
        findings: None,
        expect: first.manifest.expect.clone(),
        stopped_by_threshold: parts
            .iter()
            .find_map(|p| p.manifest.stopped_by_threshold.clone()),
        latency_clock: crate::LatencyClock::merged(
            parts.iter().map(|p| p.manifest.latency_clock.as_ref()),
        ),
    };
    let plan = match &request.plan {
        Some(p) => p.clone(),
        None => first.plan.clone(),
    };
    let mut store = ResultStore::create(
        request.results_root,
        &manifest,
        &first.workload_text,
        &plan,
        start_epoch_ms as f64 / 1000.0,
    )?;
    let written = write_run(
        &parts,
        request.takeovers,
        request.fleet,
        &manifest,
        start_epoch_ms,
        &mut store,
    )
    .and_then(|summary| {
        let integrity = crate::integrity::read_integrity(out, &summary.rows);
        let verdict = crate::RunVerdict::of(out, &manifest, &summary.rows, &integrity);
        manifest.findings = Some(verdict.findings);
        store.write_manifest(&manifest)?;
        Ok(summary)
    });
    let summary = match written {
        Ok(summary) => summary,
        Err(e) => {
            // Half a merged run is no run: the parts are where they were.
            drop(store);
            let _ = std::fs::remove_dir_all(out);
            return Err(e);
        }
    };
    Ok(Merged {
        dir: out.to_path_buf(),
        manifest,
        summary,
        warnings,
    })
}

/// Writes the merged run's intervals, events and summary, and copies the parts.
fn write_run(
    parts: &[parts::Part],
    takeovers: &[Option<String>],
    fleet: Option<crate::FleetLog>,
    manifest: &Manifest,
    start_epoch_ms: u64,
    store: &mut ResultStore,
) -> Result<Summary, MergeError> {
    let mut summary = rows::merge(parts, &manifest.run_id)?;
    let mut events = outcomes::read(parts);
    // Objects at a phase's start are the whole keyspace's: every shard's window added,
    // those of shards with nothing of the phase to do (a serial listing runs on shard 0
    // alone) too.
    for row in &mut summary.rows {
        let started = events.iter().find_map(|(p, e)| {
            (p.section == row.section && p.round == row.round && p.name == row.phase)
                .then_some(e.started.as_ref())
                .flatten()
        });
        if let Some(RunEvent::PhaseStarted { objects, .. }) = started {
            row.objects_at_start = *objects;
        }
    }
    let phases = rows::by_phase(&summary.rows);
    store.write_event(&RunEvent::Started {
        run_id: manifest.run_id.clone(),
        dir: store.dir().to_path_buf(),
        endpoint: manifest.endpoint.clone(),
        phases: phases.len(),
    });
    for message in shard_warnings::read(parts) {
        store.write_event(&RunEvent::Warning { message });
    }
    intervals::merge(parts, start_epoch_ms, store)?;
    timeline::merge(parts, takeovers, start_epoch_ms, store);
    if let Some(fleet) = fleet {
        timeline::merge_fleet(fleet, start_epoch_ms, store);
    }
    for (phase, rows) in phases {
        // The phase as the shards logged it (its position among all the run's phases).
        let logged = events.iter().position(|(p, _)| {
            p.section == phase.section && p.round == phase.round && p.name == phase.name
        });
        let (phase, merged) = match logged {
            Some(at) => events.swap_remove(at),
            None => (phase, outcomes::PhaseEvents::default()),
        };
        if let Some(started) = &merged.started {
            store.write_event(started);
        }
        for outcome in &merged.outcomes {
            store.write_event(outcome);
        }
        store.write_event(&RunEvent::PhaseFinished { phase, rows });
    }
    store.write_summary(&summary)?;
    store.write_event(&RunEvent::Finished {
        status: manifest.status,
        error: manifest.error.clone(),
    });
    let shards = store.dir().join("shards");
    for part in parts {
        parts::copy_dir(&part.dir, &shards.join(&part.run_id))?;
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use crate::metrics::{Percentiles, new_histogram};

    /// Values split at random over `agents` histograms, merged, give the percentiles of
    /// one histogram holding every value: the merge is exact.
    #[test]
    fn histograms_split_at_random_over_agents_merge_to_the_histogram_of_all_values() {
        let mut rng = fastrand::Rng::with_seed(17);
        for case in 0..200 {
            let agents = rng.usize(1..=8);
            let mut parts = vec![new_histogram(); agents];
            let mut all = new_histogram();
            for _ in 0..rng.usize(1..2_000) {
                // Latencies over five decades, as a run has them.
                let value = 10u64.pow(rng.u32(1..6)) + rng.u64(0..1_000);
                all.record(value).unwrap();
                parts[rng.usize(0..agents)].record(value).unwrap();
            }
            let mut merged = new_histogram();
            for p in &parts {
                merged.add(p).unwrap();
            }
            assert_eq!(merged.len(), all.len(), "case {case}");
            assert_eq!(
                Percentiles::of(&merged),
                Percentiles::of(&all),
                "case {case}"
            );
        }
    }

    /// Why percentiles are never averaged: one slow agent of four holds the run's tail,
    /// and the mean of the agents' p99 misses it by far.
    #[test]
    fn the_mean_of_the_agents_p99_is_far_from_the_p99_of_the_run() {
        let mut agents = vec![new_histogram(); 4];
        let mut all = new_histogram();
        for (i, agent) in agents.iter_mut().enumerate() {
            for n in 0..10_000u64 {
                // Three agents answer in about 1 ms; the fourth takes 100 ms for a
                // tenth of its requests.
                let value = if i == 3 && n % 10 == 0 {
                    100_000
                } else {
                    1_000 + n % 100
                };
                agent.record(value).unwrap();
                all.record(value).unwrap();
            }
        }
        let mean_p99 = agents
            .iter()
            .map(|h| h.value_at_quantile(0.99))
            .sum::<u64>() as f64
            / 4.0;
        let mut merged = new_histogram();
        for a in &agents {
            merged.add(a).unwrap();
        }
        let p99 = merged.value_at_quantile(0.99);
        assert_eq!(p99, all.value_at_quantile(0.99));
        assert!(
            p99 >= 99_000,
            "the run's p99 is the slow agent's tail: {p99}"
        );
        assert!(
            mean_p99 < 30_000.0,
            "the mean of the agents' p99 ({mean_p99} µs) hides it"
        );
    }
}
