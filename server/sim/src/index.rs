//! RGW's bucket index, imitated per bucket: a shard count, a bucket instance id that
//! changes on every reshard (RGW style, `<zone uuid>.<n>.<k>`), a marker that keeps the
//! first id, the old instances (which answer the metadata call with "resharded, see
//! the new one"), and the gate that blocks writes while a reshard runs — a blocked
//! writer completes at the first `retry_step` boundary after the reshard ended, as
//! RGW's writers back off in 5-second steps.
//!
//! The write path pays one atomic load when no reshard is running; nothing is kept per
//! object (an object's shard would be a hash of its key).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use tokio::sync::watch;

use crate::delay_record::{DelayKind, DelayRecord};

/// Old instances remembered per bucket (they answer the metadata call with status 2).
const OLD_INSTANCES: usize = 64;

/// RGW's reshard status of a bucket instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ReshardStatus {
    None = 0,
    InProgress = 1,
    Done = 2,
}

/// A bucket instance: what `bucket.instance:<bucket>:<id>` describes.
#[derive(Debug, Clone)]
pub struct Instance {
    pub id: String,
    pub shards: u32,
    pub reshard_status: ReshardStatus,
    /// Set once a reshard starts: the instance that replaces this one.
    pub new_instance_id: String,
    pub mtime: SystemTime,
    /// Metadata version: 1 when written, +1 on every change.
    pub ver: u64,
}

/// Bucket instance ids of one target: `<zone uuid>.<instance number>.<counter>`.
#[derive(Debug)]
pub struct InstanceIds {
    prefix: String,
    next: AtomicU64,
}

impl InstanceIds {
    pub fn new() -> InstanceIds {
        let mut rng = fastrand::Rng::new();
        let h = |rng: &mut fastrand::Rng, n: usize| -> String {
            (0..n)
                .map(|_| char::from_digit(rng.u32(0..16), 16).unwrap_or('0'))
                .collect()
        };
        let uuid = format!(
            "{}-{}-4{}-{}{}-{}",
            h(&mut rng, 8),
            h(&mut rng, 4),
            h(&mut rng, 3),
            ['8', '9', 'a', 'b'][rng.usize(0..4)],
            h(&mut rng, 3),
            h(&mut rng, 12)
        );
        InstanceIds {
            prefix: format!("{uuid}.{}", rng.u32(1000..100_000)),
            next: AtomicU64::new(1),
        }
    }

    pub fn next(&self) -> String {
        format!(
            "{}.{}",
            self.prefix,
            self.next.fetch_add(1, Ordering::Relaxed)
        )
    }
}

impl Default for InstanceIds {
    fn default() -> Self {
        InstanceIds::new()
    }
}

#[derive(Debug)]
struct State {
    current: Instance,
    marker: String,
    old: VecDeque<Instance>,
}

/// What an index looks like now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexView {
    pub shards: u32,
    /// The current bucket instance id.
    pub id: String,
    /// The bucket's first instance id.
    pub marker: String,
    /// A reshard is running (writes are blocked).
    pub resharding: bool,
}

/// One bucket's index.
#[derive(Debug)]
pub struct BucketIndex {
    state: Mutex<State>,
    /// Mirrors `current.reshard_status == InProgress`, for the write path.
    resharding: AtomicBool,
    changed: watch::Sender<bool>,
    pub created: SystemTime,
}

impl BucketIndex {
    pub fn new(shards: u32, id: String) -> BucketIndex {
        let now = SystemTime::now();
        BucketIndex {
            state: Mutex::new(State {
                current: Instance {
                    id: id.clone(),
                    shards,
                    reshard_status: ReshardStatus::None,
                    new_instance_id: String::new(),
                    mtime: now,
                    ver: 1,
                },
                marker: id,
                old: VecDeque::new(),
            }),
            resharding: AtomicBool::new(false),
            changed: watch::channel(false).0,
            created: now,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn shards(&self) -> u32 {
        self.state().current.shards
    }

    pub fn view(&self) -> IndexView {
        let s = self.state();
        IndexView {
            shards: s.current.shards,
            id: s.current.id.clone(),
            marker: s.marker.clone(),
            resharding: s.current.reshard_status == ReshardStatus::InProgress,
        }
    }

    /// (current instance, marker).
    pub fn current(&self) -> (Instance, String) {
        let s = self.state();
        (s.current.clone(), s.marker.clone())
    }

    /// The instance with this id: the current one or a remembered old one.
    pub fn instance(&self, id: &str) -> Option<Instance> {
        let s = self.state();
        if s.current.id == id {
            return Some(s.current.clone());
        }
        s.old.iter().find(|i| i.id == id).cloned()
    }

    /// Waits while a reshard blocks writes: until it ended, then to the next
    /// `retry_step` boundary counted from when this writer started waiting (and again
    /// if another reshard started meanwhile), each wait recorded in `delays`.
    pub async fn wait_writable(&self, retry_step: Duration, delays: &DelayRecord) {
        if !self.resharding.load(Ordering::Acquire) {
            return;
        }
        let began = Instant::now();
        let step = retry_step.max(Duration::from_millis(1));
        let mut rx = self.changed.subscribe();
        loop {
            // The sender lives as long as `self`, so this only returns once writable.
            let _ = rx.wait_for(|resharding| !*resharding).await;
            let steps = began.elapsed().as_nanos() / step.as_nanos() + 1;
            let wait = u64::try_from(steps.saturating_mul(step.as_nanos())).unwrap_or(u64::MAX);
            if let Some(until) = began.checked_add(Duration::from_nanos(wait)) {
                delays.sleep_until(DelayKind::ReshardRetry, until).await;
            }
            if !self.resharding.load(Ordering::Acquire) {
                return;
            }
        }
    }

    /// Marks a reshard to the instance `new_id` as started (RGW names the new instance
    /// on the old one from the start); `false` when one is already running.
    pub fn begin(&self, new_id: String) -> bool {
        let mut s = self.state();
        if s.current.reshard_status == ReshardStatus::InProgress {
            return false;
        }
        s.current.reshard_status = ReshardStatus::InProgress;
        s.current.new_instance_id = new_id;
        s.current.mtime = SystemTime::now();
        s.current.ver += 1;
        self.resharding.store(true, Ordering::Release);
        self.changed.send_replace(true);
        true
    }

    /// Switches to the new instance (named by `begin`) with `shards` and releases the
    /// writers.
    pub fn finish(&self, shards: u32) {
        let mut s = self.state();
        let now = SystemTime::now();
        let mut old = s.current.clone();
        let new_id = old.new_instance_id.clone();
        old.reshard_status = ReshardStatus::Done;
        old.mtime = now;
        old.ver += 1;
        s.old.push_back(old);
        if s.old.len() > OLD_INSTANCES {
            s.old.pop_front();
        }
        s.current = Instance {
            id: new_id,
            shards,
            reshard_status: ReshardStatus::None,
            new_instance_id: String::new(),
            mtime: now,
            // Written, then updated when the reshard completed.
            ver: 2,
        };
        drop(s);
        self.resharding.store(false, Ordering::Release);
        self.changed.send_replace(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_look_like_rgw_bucket_ids() {
        let ids = InstanceIds::new();
        let (a, b) = (ids.next(), ids.next());
        let parts: Vec<&str> = a.split('.').collect();
        assert_eq!(parts.len(), 3, "{a}");
        assert_eq!(parts[0].len(), 36);
        assert_eq!(parts[2], "1");
        assert!(b.ends_with(".2") && b.starts_with(&a[..a.len() - 1]));
    }

    #[test]
    fn a_reshard_keeps_the_marker_and_links_the_old_instance() {
        let ids = InstanceIds::new();
        let first = ids.next();
        let index = BucketIndex::new(11, first.clone());
        let second = ids.next();
        assert!(index.begin(second.clone()));
        assert!(!index.begin(ids.next()), "one reshard at a time");
        let during = index.instance(&first).unwrap();
        assert_eq!(during.reshard_status, ReshardStatus::InProgress);
        assert_eq!(
            (during.new_instance_id.as_str(), during.ver),
            (second.as_str(), 2)
        );
        assert_eq!(
            index.view().id,
            first,
            "the old instance serves until the end"
        );
        index.finish(23);
        let view = index.view();
        assert_eq!((view.shards, view.id.as_str()), (23, second.as_str()));
        assert_eq!(view.marker, first);
        assert!(!view.resharding);
        let old = index.instance(&first).unwrap();
        assert_eq!(old.reshard_status, ReshardStatus::Done);
        assert_eq!(old.new_instance_id, second);
        assert_eq!((old.shards, old.ver), (11, 3));
    }
}
