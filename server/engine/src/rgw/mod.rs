//! Ceph RGW awareness: the admin ops API client, creating buckets pre-sharded, and the
//! tracker that polls bucket index shard counts during a run and records reshards.
//! The embedded target answers the same admin calls, so all of it runs without Ceph.

pub mod admin;
pub(crate) mod preshard;
pub(crate) mod tracker;

pub use admin::{AdminClient, AdminError, BucketInstance, BucketStats};
