//! How the embedded target behaves beyond plain S3: the RGW-like bucket index
//! (shards, dynamic resharding, write stalls), latency injection and fault injection,
//! and the memory budget.
//! Plain data, built by keystorm's one translation of its embedded-target settings
//! (`keystorm-embedded`), from a workload or from `keystorm sim`'s flags.

use std::time::Duration;

use keystorm_types::{Delay, rgw_index};

/// How the target behaves.
#[derive(Debug, Clone, Default)]
pub struct SimConfig {
    pub storage: Storage,
    /// If set, SigV4 signatures are verified with this (access key id, secret key).
    pub credentials: Option<(String, String)>,
    /// The bucket index imitation.
    pub index: IndexConfig,
    /// Added latency per operation.
    pub latency: LatencyConfig,
    /// Injected failures.
    pub faults: FaultConfig,
    /// Answer DeleteObjects (multi-object delete) with 501 NotImplemented, as stores
    /// without it do; single DELETEs still work.
    pub no_multi_delete: bool,
    /// Bytes the target may hold by its own accounting (object bytes, keys, metadata
    /// and a fixed overhead per object) before it refuses writes with 507
    /// InsufficientStorage; `None`: half of the machine's memory (or of the cgroup's
    /// limit).
    pub max_memory: Option<u64>,
    /// Requests the target serves at once, like a gateway's pool of worker threads: a
    /// request past them waits its turn (first come, first served) before its latency
    /// and its work, and holds its place until its answer's headers are sent. With a
    /// fixed latency L the target serves at most `max_inflight` ÷ L requests a second.
    /// `None`: no limit. Admin calls never wait.
    pub max_inflight: Option<u32>,
    /// Count GET and HEAD requests per key (`SimHandle::key_requests`), for tests that
    /// check from the target's side how often each key was read. It holds an entry per
    /// key read: off unless asked for.
    pub tally_keys: bool,
}

/// RGW's bucket index, imitated: every bucket has index shards; with `dynamic` on, a
/// bucket whose objects exceed `shards × max_objs_per_shard` is resharded to the next
/// prime ≥ 2 × objects / `max_objs_per_shard`, blocking its writes meanwhile.
#[derive(Debug, Clone)]
pub struct IndexConfig {
    /// Index shards of a new bucket (RGW Pacific: 11; like
    /// `rgw_override_bucket_index_max_shards`).
    pub default_shards: u32,
    /// Reshard buckets that outgrow their shards (`rgw_dynamic_resharding`).
    pub dynamic: bool,
    /// Objects per shard before a bucket needs resharding (`rgw_max_objs_per_shard`).
    pub max_objs_per_shard: u64,
    /// How often the reshard thread looks at the buckets
    /// (`rgw_reshard_thread_interval`).
    pub check_interval: Duration,
    /// How long a reshard takes per object it moves.
    pub reshard_time_per_object: Duration,
    /// Writers blocked by a reshard retry in steps of this length (RGW: 5 s), so a
    /// write that arrived during a reshard completes at the first step boundary after
    /// the reshard ended.
    pub retry_step: Duration,
    /// Time an ordered listing page costs per index shard it merges.
    pub list_time_per_shard: Duration,
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            default_shards: rgw_index::DEFAULT_SHARDS,
            dynamic: false,
            max_objs_per_shard: rgw_index::DEFAULT_MAX_OBJS_PER_SHARD,
            check_interval: rgw_index::DEFAULT_CHECK_INTERVAL,
            reshard_time_per_object: rgw_index::DEFAULT_RESHARD_TIME_PER_OBJECT,
            retry_step: rgw_index::DEFAULT_RETRY_STEP,
            list_time_per_shard: rgw_index::DEFAULT_LIST_TIME_PER_SHARD,
        }
    }
}

/// Added latency per operation (before the response starts); `None` adds nothing.
#[derive(Debug, Clone, Default)]
pub struct LatencyConfig {
    pub put: Option<Delay>,
    pub get: Option<Delay>,
    pub head: Option<Delay>,
    /// Per LIST page.
    pub list: Option<Delay>,
    /// DeleteObject and DeleteObjects.
    pub delete: Option<Delay>,
}

/// Injected failures on object operations (PUT, GET, HEAD, LIST, DELETE; never on
/// bucket or admin calls). Rates are fractions of requests, drawn independently in this
/// order; a request gets at most one fault. `lose_on_reshard` and `list_twice` are no
/// request's alternatives: they fail the bucket index, as RGW's has around resharding.
#[derive(Debug, Clone, Default)]
pub struct FaultConfig {
    /// 503 SlowDown.
    pub slow_down: f64,
    /// 500 InternalError.
    pub internal_error: f64,
    /// The connection is reset without a response.
    pub reset: f64,
    /// The response (for GET: its body, after the headers) stalls for `stall_time`,
    /// then the connection is closed.
    pub stall: f64,
    pub stall_time: Duration,
    /// Keys of a DeleteObjects that fail on their own: reported as an `<Error>` with
    /// InternalError in the otherwise successful answer, and left in place (drawn per
    /// key, for requests that got no fault of their own).
    pub key_error: f64,
    /// GetObject answers that come back 200 (206 for a range) with their body, one bit
    /// of it flipped at an offset drawn uniformly within the body; the stored object is
    /// untouched. Drawn per GET after the faults above; an empty body or an error
    /// answer is never corrupted (nor counted).
    pub corrupt: f64,
    /// Index entries a reshard drops as it moves them to the new shard layout (drawn
    /// per entry, by every reshard, whatever `ops` says): the object stays readable by
    /// GET and HEAD, bytes intact, but no listing shows it until it is written again
    /// (RGW re-adds the entry on a write); a DELETE removes it for good. What a listing
    /// audit must find.
    pub lose_on_reshard: f64,
    /// Continued listing pages (v2 with a continuation token, v1 with a marker) whose
    /// previous page ended on a key: they begin with that key again, as a listing that
    /// crosses a shard boundary during a reshard does. Drawn per such page (never with
    /// `max-keys` below 2, where the page would make no progress), after the request's
    /// own fault; the rest of the listing stays complete and in order.
    pub list_twice: f64,
    /// Seed of the fault draws (0: from the clock).
    pub seed: u64,
    /// The operations that get faults; all of them when empty.
    pub ops: Vec<ObjectOp>,
}

/// An object operation as injection groups them (a LIST page is `List`, a multi-object
/// delete is `Delete`, a multipart part is `Put`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectOp {
    Put,
    Get,
    Head,
    List,
    Delete,
}

impl ObjectOp {
    pub const ALL: [ObjectOp; 5] = [
        ObjectOp::Put,
        ObjectOp::Get,
        ObjectOp::Head,
        ObjectOp::List,
        ObjectOp::Delete,
    ];

    /// `put`, `get`, `head`, `list` or `delete`, as workloads name them.
    pub fn name(self) -> &'static str {
        match self {
            ObjectOp::Put => "put",
            ObjectOp::Get => "get",
            ObjectOp::Head => "head",
            ObjectOp::List => "list",
            ObjectOp::Delete => "delete",
        }
    }
}

/// How many faults the target injected, by kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct FaultCounts {
    pub slow_down: u64,
    pub internal_error: u64,
    pub reset: u64,
    pub stall: u64,
    /// Keys of multi-object deletes that failed alone.
    pub key_error: u64,
    /// GET bodies served with one bit flipped.
    pub corrupt: u64,
    /// Index entries reshards dropped (no request's: in the totals only, 0 per
    /// operation group).
    pub lost_on_reshard: u64,
    /// Keys listed again at the start of the page after the one they ended (LIST).
    pub listed_twice: u64,
}

impl std::ops::Add for FaultCounts {
    type Output = FaultCounts;

    fn add(self, o: FaultCounts) -> FaultCounts {
        FaultCounts {
            slow_down: self.slow_down + o.slow_down,
            internal_error: self.internal_error + o.internal_error,
            reset: self.reset + o.reset,
            stall: self.stall + o.stall,
            key_error: self.key_error + o.key_error,
            corrupt: self.corrupt + o.corrupt,
            lost_on_reshard: self.lost_on_reshard + o.lost_on_reshard,
            listed_twice: self.listed_twice + o.listed_twice,
        }
    }
}

/// What the target keeps of each object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Storage {
    /// Object bytes in memory.
    #[default]
    Memory,
    /// Sizes and metadata only; GET returns zero bytes of the recorded length.
    SizeOnly,
}
