//! Before a phase that reads keys keystorm did not write: its key set made ready. A
//! key file named by the workload is opened; a `from: listing` bucket is listed into
//! `keys-N.keys` in the run folder (N the phase's place in the run), which stays there
//! for later runs to read (`keys: {file}`). The listing saves its progress with the
//! key file's runs (`keys-N.checkpoint.json`, `keys-N.keys.runs/`) every
//! `checkpoint_every`, so a resumed run lists only what was left, and reads the key file
//! its earlier part completed without listing at all. Either way a `keys` event says
//! which bucket and file the phase reads and how many keys.

use crate::step_meter::StepMeter;
use keystorm_results::StepKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::context::RunContext;
use crate::keyfile::{self, KeyFile, KeyFileError, ListedError};
use crate::keyset::KeySet;
use crate::listing::{CheckpointError, Checkpointing, ListCheckpoint, ListJob};
use crate::plan::{KeySource, PhasePlan};
use keystorm_results::PhaseEnd;
use keystorm_results::Shard;
use keystorm_results::{KeySourceKind, KeysEvent, PhaseRef, RunEvent};

/// Why a phase's keys could not be made ready.
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeyReadsError {
    #[error("phase {phase}: {source}")]
    KeyFile {
        phase: String,
        #[source]
        source: KeyFileError,
    },
    #[error("phase {phase}: listing bucket {bucket:?} for its keys failed: {source}")]
    Listing {
        phase: String,
        bucket: String,
        #[source]
        source: ListedError,
    },
    #[error("phase {phase}: stopped while listing bucket {bucket:?} for its keys")]
    Stopped { phase: String, bucket: String },
    #[error("phase {phase}: {source}")]
    Checkpoint {
        phase: String,
        #[source]
        source: CheckpointError,
    },
}

/// The key file of the `from: listing` phase at `position` in the run folder `dir`.
pub(crate) fn listing_path(dir: &Path, position: usize) -> PathBuf {
    dir.join(format!("keys-{position}.keys"))
}

/// Where the listing of the phase at `position` saves its progress.
fn checkpoint_path(dir: &Path, position: usize) -> PathBuf {
    dir.join(format!("keys-{position}.checkpoint.json"))
}

/// The phase's key set, ready to pick from (`None` when it reads the keyspace).
pub(crate) async fn prepare(
    ctx: &RunContext,
    plan: &PhasePlan,
    phase: &PhaseRef,
    position: usize,
    resumed: bool,
) -> Result<Option<Arc<KeySet>>, KeyReadsError> {
    let Some(source) = &plan.keys else {
        return Ok(None);
    };
    let shard = ctx.plan.keyspace.shard;
    let seed = ctx.plan.keyspace.seed;
    let key_file = |source| KeyReadsError::KeyFile {
        phase: phase.name.clone(),
        source,
    };
    let (set, event) = match source {
        KeySource::File { path, bucket, .. } => {
            let set = KeySet::open(path, bucket, None, shard, seed).map_err(key_file)?;
            let event = event(phase, plan, &set, KeySourceKind::File, path.display());
            (set, event)
        }
        KeySource::Listing {
            bucket,
            prefix,
            mode,
            listers,
        } => {
            let dir = ctx.store().dir().to_path_buf();
            let path = listing_path(&dir, position);
            let listed_before = resumed && KeyFile::open(&path).is_ok();
            let started = Instant::now();
            let object_bytes = if listed_before {
                None
            } else {
                let job = ListJob {
                    bucket: bucket.clone(),
                    prefix: prefix.clone().unwrap_or_default(),
                    mode: mode.clone(),
                    listers: *listers,
                    page_size: plan.page_size,
                    retries: ctx.client.retries(),
                    report_depth: None,
                    // Every shard lists the whole bucket into the same sorted file and
                    // reads its own positions of it.
                    shard: Shard::WHOLE,
                };
                let checkpoint = checkpoint_path(&dir, position);
                let resume = if resumed {
                    ListCheckpoint::read(&checkpoint)
                        .and_then(|c| match c {
                            Some(c) => c.check_matches(&job, false, &checkpoint).map(|_| Some(c)),
                            None => Ok(None),
                        })
                        .map_err(|source| KeyReadsError::Checkpoint {
                            phase: phase.name.clone(),
                            source,
                        })?
                } else {
                    None
                };
                let progress = Checkpointing {
                    path: checkpoint,
                    every: ctx.plan.checkpoint_every,
                    resume,
                    on_save: None,
                    keep_complete: true,
                    consumer: None,
                };
                // Hours on a billion keys: told every second, keys, rate and (where the
                // target's index counts the bucket's objects) time left.
                let meter = Arc::new(StepMeter::default());
                let known = ctx
                    .index_snapshot()
                    .iter()
                    .find(|b| &b.bucket == bucket)
                    .map(|b| b.objects);
                meter.begin(StepKind::ListingKeys, bucket, known);
                let listed = keyfile::list_into_resumable(
                    &ctx.client,
                    &job,
                    meter.clone(),
                    &path,
                    progress,
                    ctx.cancel.clone(),
                );
                let (outcome, written) = super::step_ticker::ticking(ctx, phase, &meter, listed)
                    .await
                    .map_err(|source| KeyReadsError::Listing {
                        phase: phase.name.clone(),
                        bucket: bucket.clone(),
                        source,
                    })?;
                match written {
                    Some(w) if outcome.complete => Some(w.object_bytes),
                    _ => {
                        return Err(KeyReadsError::Stopped {
                            phase: phase.name.clone(),
                            bucket: bucket.clone(),
                        });
                    }
                }
            };
            let set = KeySet::open(&path, bucket, prefix.clone(), shard, seed).map_err(key_file)?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut event = event(phase, plan, &set, KeySourceKind::Listing, name);
            event.prefix = prefix.clone();
            event.object_bytes = object_bytes;
            event.list_seconds = Some(if listed_before {
                0.0
            } else {
                started.elapsed().as_secs_f64()
            });
            (set, event)
        }
    };
    ctx.emit(RunEvent::Keys(event));
    Ok(Some(Arc::new(set)))
}

fn event(
    phase: &PhaseRef,
    plan: &PhasePlan,
    set: &KeySet,
    source: KeySourceKind,
    file: impl std::fmt::Display,
) -> KeysEvent {
    KeysEvent {
        phase: phase.clone(),
        source,
        bucket: set.bucket().to_string(),
        prefix: None,
        file: file.to_string(),
        keys: set.keys(),
        part_keys: set.part_keys(),
        object_bytes: None,
        list_seconds: None,
        epochs: match plan.end {
            PhaseEnd::Epochs(n) => Some(n),
            _ => None,
        },
    }
}
