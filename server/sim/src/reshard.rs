//! Resharding a bucket's index, as RGW does it: the reshard thread that looks at every
//! bucket each `check_interval` and reshards those past `shards × max_objs_per_shard`
//! to the next prime ≥ 2 × objects / max_objs_per_shard, the reshard itself (time in
//! proportion to the objects it moves, writes blocked meanwhile), and the index entries
//! it loses on the way when the target is told to (`lose_on_reshard`). What it did goes
//! to the store's [`ReshardLog`](crate::reshard_log::ReshardLog).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio_util::sync::CancellationToken;

use crate::IndexConfig;
use crate::delay_record::DelayKind;
use crate::inject::Injector;
use crate::reshard_log::{MAX_SHARDS, ReshardRecord};
use crate::store::{Bucket, Store};

/// Reshards `bucket` to `to` shards and returns when done; writes block meanwhile.
/// `false` when a reshard of the bucket was already running. The reshard runs in a
/// task of its own, so it completes even if the caller goes away.
pub async fn reshard(
    store: &Arc<Store>,
    injector: &Arc<Injector>,
    name: &str,
    bucket: &Arc<Bucket>,
    to: u32,
    dynamic: bool,
) -> bool {
    if !bucket.index.begin(store.instance_ids.next()) {
        return false;
    }
    let task = tokio::spawn(run(
        store.clone(),
        injector.clone(),
        name.to_string(),
        bucket.clone(),
        to,
        dynamic,
    ));
    let _ = task.await;
    true
}

async fn run(
    store: Arc<Store>,
    injector: Arc<Injector>,
    name: String,
    bucket: Arc<Bucket>,
    to: u32,
    dynamic: bool,
) {
    let from = bucket.index.shards();
    let started = SystemTime::now();
    let objects = bucket.read().len() as u64;
    let took = store
        .index_config
        .reshard_time_per_object
        .saturating_mul(u32::try_from(objects).unwrap_or(u32::MAX));
    store.delays.sleep(DelayKind::Reshard, took).await;
    lose_entries(&injector, &bucket);
    bucket.index.finish(to);
    store.reshards.push(ReshardRecord {
        bucket: name,
        from,
        to,
        objects,
        started,
        ended: SystemTime::now(),
        dynamic,
    });
}

/// Drops the index entries the injector draws as lost while the reshard moves them
/// (none unless `lose_on_reshard` is set), counting those it dropped. The draws read
/// the bucket shared, so GETs and listings go on meanwhile; entries lost before are
/// not moved, so not drawn again.
fn lose_entries(injector: &Injector, bucket: &Bucket) {
    let lost = injector.draw_losses(bucket.read().listed_keys());
    injector.count_lost(bucket.unlist(&lost));
}

/// Whether a bucket with `objects` in `shards` shards needs resharding.
pub fn needs_reshard(objects: u64, shards: u32, max_objs_per_shard: u64) -> bool {
    shards < MAX_SHARDS && objects > u64::from(shards).saturating_mul(max_objs_per_shard)
}

/// RGW's target for a bucket that outgrew its shards: the next prime at or above
/// 2 × objects / max_objs_per_shard (integer division, as RGW computes it), never
/// fewer shards than now.
pub fn target_shards(objects: u64, max_objs_per_shard: u64, now: u32) -> u32 {
    let wanted = objects.saturating_mul(2) / max_objs_per_shard.max(1);
    let wanted = wanted.clamp(u64::from(now).max(1), u64::from(MAX_SHARDS)) as u32;
    next_prime(wanted).min(MAX_SHARDS)
}

fn next_prime(n: u32) -> u32 {
    let is_prime = |k: u32| {
        let k = u64::from(k);
        k >= 2 && (2u64..).take_while(|d| d * d <= k).all(|d| k % d != 0)
    };
    (n..=u32::MAX).find(|k| is_prime(*k)).unwrap_or(n)
}

/// The reshard thread: every `check_interval`, reshards buckets that outgrew their
/// shards (when dynamic resharding is on), one at a time, until `stop`.
pub async fn reshard_thread(
    store: Arc<Store>,
    injector: Arc<Injector>,
    config: IndexConfig,
    stop: CancellationToken,
) {
    if !config.dynamic {
        return;
    }
    let mut tick = tokio::time::interval(config.check_interval.max(Duration::from_millis(10)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tick.tick() => {}
        }
        for (name, _) in store.bucket_list() {
            let Some(bucket) = store.bucket(&name) else {
                continue;
            };
            let shards = bucket.index.shards();
            let objects = bucket.read().len() as u64;
            if needs_reshard(objects, shards, config.max_objs_per_shard) {
                let to = target_shards(objects, config.max_objs_per_shard, shards);
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = reshard(&store, &injector, &name, &bucket, to, true) => {}
                }
            }
        }
        store.reshards.count_check();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_follow_rgw() {
        // 11 shards × 1000 objects crossed: next prime ≥ 22.
        assert_eq!(target_shards(11_001, 1000, 11), 23);
        assert_eq!(target_shards(15_000, 1000, 11), 31);
        assert_eq!(target_shards(39_000, 1000, 31), 79);
        assert_eq!(target_shards(111, 10, 11), 23);
        assert_eq!(target_shards(119, 10, 11), 23);
        assert_eq!(target_shards(120, 10, 11), 29);
        // Never fewer shards than now.
        assert_eq!(target_shards(10, 1000, 11), 11);
        assert_eq!(target_shards(u64::MAX, 1, 11), MAX_SHARDS);
        assert_eq!(next_prime(2), 2);
        assert_eq!(next_prime(90), 97);
    }

    #[test]
    fn the_threshold_is_strictly_above_shards_times_max() {
        assert!(!needs_reshard(110, 11, 10));
        assert!(needs_reshard(111, 11, 10));
        assert!(!needs_reshard(u64::MAX, MAX_SHARDS, 1));
    }
}
