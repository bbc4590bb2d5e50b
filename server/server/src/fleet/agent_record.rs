//! One agent as the controller knows it: who it is, the digest of its key, when it was
//! last heard, its clock offset, what it said of its shard, and the order waiting for it.

use std::time::{Duration, Instant, SystemTime};

use super::agent_key::KeyDigest;
use keystorm_link::protocol::{HEARTBEAT_MS, LOST_AFTER_MS, Order};

/// One agent as the controller knows it.
pub struct Agent {
    pub id: String,
    pub name: String,
    pub host: String,
    pub version: String,
    pub cores: u32,
    /// The digest of the key it was given at registration; none for one known only from
    /// a run's record, which has not registered yet.
    pub key: Option<KeyDigest>,
    /// The endpoint it uses in place of the run's, if it said one.
    pub endpoint: Option<String>,
    pub registered_at: SystemTime,
    pub last_seen: Instant,
    pub offset_ms: Option<i64>,
    pub target_skew_ms: Option<i64>,
    /// The next order to hand over in a heartbeat reply.
    pub pending: Option<Order>,
    /// When it was last handed an order.
    pub handed_at: Option<Instant>,
    /// Known only from the record of a run picked up after a controller restart: the
    /// agent of that name held a shard, and no agent of that name registered since.
    pub awaiting: bool,
    /// Its loss was said (on the controller's terminal), not yet its return.
    pub said_lost: bool,
}

impl Agent {
    /// An agent just heard from, with no order waiting.
    pub fn new(id: String, name: String, host: String, version: String, cores: u32) -> Agent {
        Agent {
            id,
            name,
            host,
            version,
            cores,
            key: None,
            endpoint: None,
            registered_at: SystemTime::now(),
            last_seen: Instant::now(),
            offset_ms: None,
            target_skew_ms: None,
            pending: None,
            handed_at: None,
            awaiting: false,
            said_lost: false,
        }
    }

    pub fn is_lost(&self) -> bool {
        self.last_seen.elapsed() >= Duration::from_millis(LOST_AFTER_MS)
    }

    /// How long it has been lost (zero if it is not).
    pub fn lost_for(&self) -> Duration {
        self.last_seen
            .elapsed()
            .saturating_sub(Duration::from_millis(LOST_AFTER_MS))
    }

    /// Heard within the last three heartbeats (a registered agent): fit to be given a
    /// shard.
    pub fn is_fresh(&self) -> bool {
        !self.awaiting && self.last_seen.elapsed() < Duration::from_millis(3 * HEARTBEAT_MS)
    }
}
