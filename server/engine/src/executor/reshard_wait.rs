//! An audit that finds an audited bucket's index being resharded (as the index tracker
//! polled it when the phase opened) waits for the reshard to finish before it lists,
//! up to the phase's `wait_for_reshard`: a listing taken mid-reshard can miss or double
//! entries that are only moving, and the audit would report them as findings. The wait
//! is told as it begins and as it ends; when it runs out (or the audit does not wait),
//! the audit lists anyway and warns that its findings may include entries still moving.
//! Without a tracker (no admin API to ask) nothing is known of reshards: nothing waits.

use std::time::{Duration, Instant};

use super::context::RunContext;
use keystorm_results::{BucketIndex, RunEvent};

/// How often the index is polled while an audit waits, at most (the run's `poll` when
/// that is shorter): the reshard's end is seen within this.
const WAIT_POLL: Duration = Duration::from_secs(1);

/// An audited bucket resharding when the audit opened, and how long it took to be seen
/// done.
struct Waiting {
    bucket: String,
    done_after: Option<Duration>,
}

/// The audited buckets whose index is being resharded, as last polled.
fn resharding(ctx: &RunContext) -> Vec<BucketIndex> {
    ctx.index_snapshot()
        .into_iter()
        .filter(|b| b.resharding && ctx.plan.buckets.names.contains(&b.bucket))
        .collect()
}

/// Before an audit lists: waits up to `bound` for the reshards the tracker sees in
/// progress to finish, saying so, and warns of those still going when it lists.
pub(crate) async fn before_audit(ctx: &RunContext, bound: Duration) {
    let moving = resharding(ctx);
    if moving.is_empty() {
        return;
    }
    if bound.is_zero() {
        for b in &moving {
            warn_still_moving(ctx, b, None);
        }
        return;
    }
    for b in &moving {
        ctx.emit(RunEvent::Warning {
            message: format!(
                "audit of bucket {}: its index is being resharded ({} shards as last polled): \
                 waiting up to {} for the reshard to finish before listing \
                 (`wait_for_reshard`)",
                b.bucket,
                b.shards,
                humantime::format_duration(bound)
            ),
        });
    }
    let mut waiting: Vec<Waiting> = moving
        .into_iter()
        .map(|b| Waiting {
            bucket: b.bucket,
            done_after: None,
        })
        .collect();
    let still = wait(ctx, &mut waiting, bound).await;
    for w in &waiting {
        if let Some(b) = still.iter().find(|b| b.bucket == w.bucket) {
            warn_still_moving(ctx, b, Some(bound));
        } else if let Some(after) = w.done_after {
            tell_waited(ctx, &w.bucket, after);
        }
        // Neither: the run was stopped before the reshard was seen done.
    }
}

/// The audit waited `after` for `bucket`'s reshard, and lists now.
fn tell_waited(ctx: &RunContext, bucket: &str, after: Duration) {
    let shards = ctx
        .index_snapshot()
        .iter()
        .find(|b| b.bucket == bucket)
        .map(|b| format!(" ({} shards)", b.shards))
        .unwrap_or_default();
    ctx.emit(RunEvent::Warning {
        message: format!(
            "audit of bucket {bucket}: waited {:.1} s for its index reshard to finish{shards}; \
             listing now",
            after.as_secs_f64()
        ),
    });
}

/// Polls until none of `waiting` is resharding or `bound` is up, noting when each was
/// seen done; the audited buckets still resharding (none when the run was stopped: the
/// audit will not list).
async fn wait(ctx: &RunContext, waiting: &mut [Waiting], bound: Duration) -> Vec<BucketIndex> {
    let Some(tracker) = &ctx.tracker else {
        return Vec::new();
    };
    let started = Instant::now();
    let every = ctx.plan.target.rgw.poll.min(WAIT_POLL);
    loop {
        let moving = resharding(ctx);
        for w in waiting.iter_mut().filter(|w| w.done_after.is_none()) {
            if !moving.iter().any(|b| b.bucket == w.bucket) {
                w.done_after = Some(started.elapsed());
            }
        }
        let left = bound.saturating_sub(started.elapsed());
        if waiting.iter().all(|w| w.done_after.is_some()) || left.is_zero() {
            return moving;
        }
        tokio::select! {
            _ = ctx.cancel.cancelled() => return Vec::new(),
            _ = tokio::time::sleep(every.min(left)) => {}
        }
        tracker.poll_once(ctx).await;
    }
}

/// An audit listing a bucket whose index is being resharded (as last polled) may find
/// entries still moving: it says so, so a finding is not taken for a loss unchecked.
fn warn_still_moving(ctx: &RunContext, b: &BucketIndex, waited: Option<Duration>) {
    let state = match waited {
        Some(d) => format!(
            "its index is still being resharded after a wait of {} (`wait_for_reshard`; {} \
             shards as last polled)",
            humantime::format_duration(d),
            b.shards
        ),
        None => format!(
            "its index is being resharded ({} shards as last polled)",
            b.shards
        ),
    };
    ctx.emit(RunEvent::Warning {
        message: format!(
            "audit of bucket {}: {state}: entries still moving may be listed twice or not at \
             all, so the audit's findings may include them; audit again once the reshard is \
             done (a reshard shows in the run's timeline)",
            b.bucket
        ),
    });
}
