//! The workload file as written: serde structs that mirror the YAML one to one, with
//! unknown fields rejected and source positions kept (`Spanned`) wherever a later
//! check may need to point at a value. Defaults and meaning live in `validate`.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_saphyr::Spanned;

pub type S<T> = Spanned<T>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWorkload {
    /// Name of the workload, used in run ids and reports.
    pub name: S<String>,
    /// Free text shown in listings.
    pub description: Option<String>,
    /// Where to send requests (default: the embedded target).
    pub target: Option<S<RawTarget>>,
    /// The bucket(s) the keyspace lives in.
    pub buckets: S<RawBuckets>,
    /// How keys are named.
    pub keyspace: Option<S<RawKeyspace>>,
    /// Object sizes, content and metadata.
    pub objects: Option<S<RawObjects>>,
    /// Phases run once before the rounds.
    pub before: Option<Vec<S<RawPhase>>>,
    /// Phases repeated `count` times.
    pub rounds: Option<S<RawRounds>>,
    /// Phases run once after the rounds.
    pub after: Option<Vec<S<RawPhase>>>,
    /// What to delete after a completed run (nothing by default).
    pub cleanup: Option<S<RawCleanup>>,
    /// When an interval counts as a write stall.
    pub stalls: Option<S<RawStalls>>,
    /// How often a running phase saves how far it got (`5s`), so a crash costs at most
    /// that much work.
    pub checkpoint_every: Option<S<RawDuration>>,
    /// How a run split over agents treats a lost agent.
    pub agents: Option<S<RawAgents>>,
    /// Thresholds every phase must meet (`get.p99 < 20ms`).
    pub expect: Option<S<Vec<S<String>>>>,
    /// Latencies each phase's tail is counted from (`[500ms, 1s, 10s]`).
    pub tail_marks: Option<S<Vec<S<RawDuration>>>>,
    /// Once a phase measured this long, a threshold it missed so far stops the run
    /// (every phase without its own).
    pub expect_abort_after: Option<S<RawDuration>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAgents {
    /// `continue` (the other shards go on; the same agent restarted resumes its shard)
    /// or `abort` (the run stops).
    pub on_loss: Option<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTarget {
    /// `embedded` or `http(s)://host[:port]`.
    pub endpoint: Option<S<String>>,
    /// Several endpoints (the gateways of one cluster), in place of `endpoint`.
    pub endpoints: Option<S<Vec<S<String>>>>,
    /// How requests spread over `endpoints`: `per_worker`, `round_robin` or
    /// `least_outstanding`.
    pub spread: Option<S<String>>,
    /// What requests meant for a lost endpoint do: `shift` or `count`.
    pub on_endpoint_down: Option<S<String>>,
    /// When an endpoint counts as lost, and how it is probed again.
    pub endpoint_health: Option<S<RawEndpointHealth>>,
    /// Options of the embedded target.
    pub embedded: Option<S<RawEmbedded>>,
    pub region: Option<String>,
    pub path_style: Option<bool>,
    /// `fast` or `sdk`.
    pub client: Option<S<String>>,
    pub credentials: Option<S<RawCredentials>>,
    pub tls: Option<S<RawTls>>,
    /// Per-request timeout (`30s`), or `none`.
    pub timeout: Option<S<RawDuration>>,
    pub retries: Option<S<i64>>,
    pub checksums: Option<bool>,
    pub payload_signing: Option<bool>,
    /// Ceph RGW features: admin API access for shard tracking, how to pre-shard.
    pub rgw: Option<S<RawRgw>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEndpointHealth {
    /// Consecutive connection failures or timeouts that mark an endpoint down.
    pub down_after: Option<S<i64>>,
    /// Rest before the first probe of a down endpoint (doubles after each failed one).
    pub probe: Option<S<RawDuration>>,
    /// The longest rest between probes.
    pub probe_max: Option<S<RawDuration>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRgw {
    /// The admin user of RGW's admin ops API (caps buckets=read, metadata=read).
    pub admin: Option<S<RawRgwAdmin>>,
    /// How often the bucket index is polled (`2s`).
    pub poll: Option<S<RawDuration>>,
    /// `auto`, `radosgw-admin` or `admin-api`.
    pub preshard: Option<S<String>>,
    /// The radosgw-admin command line (`radosgw-admin --cluster c`).
    pub radosgw_admin: Option<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRgwAdmin {
    /// Defaults to the target's endpoint.
    pub endpoint: Option<S<String>>,
    pub credentials: Option<S<RawCredentials>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEmbedded {
    /// `memory` or `size-only`.
    pub storage: Option<S<String>>,
    /// The RGW-like bucket index.
    pub index: Option<S<RawEmbeddedIndex>>,
    /// Added latency per operation: `put: 2ms`, `list: 1ms..3ms`, `get: exp:1ms`.
    pub latency: Option<S<BTreeMap<String, S<String>>>>,
    /// Injected failures.
    pub faults: Option<S<RawFaults>>,
    /// Memory budget (`512MiB`, `4GiB`): writes past it get 507 InsufficientStorage.
    pub max_memory: Option<S<RawSize>>,
    /// Requests served at once; the rest wait their turn (a gateway's thread pool).
    pub max_inflight: Option<S<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEmbeddedIndex {
    pub shards: Option<S<i64>>,
    pub dynamic: Option<bool>,
    pub max_objs_per_shard: Option<S<i64>>,
    pub check_interval: Option<S<RawDuration>>,
    pub reshard_time_per_object: Option<S<RawDuration>>,
    pub retry_step: Option<S<RawDuration>>,
    pub list_time_per_shard: Option<S<RawDuration>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawFaults {
    pub slow_down: Option<S<f64>>,
    pub internal_error: Option<S<f64>>,
    pub reset: Option<S<f64>>,
    pub stall: Option<S<f64>>,
    pub key_error: Option<S<f64>>,
    /// GET bodies with one bit flipped (drawn per GET).
    pub corrupt: Option<S<f64>>,
    /// Index entries a reshard drops (drawn per entry it moves).
    pub lose_on_reshard: Option<S<f64>>,
    /// Continued listing pages that begin with the previous page's last key again.
    pub list_twice: Option<S<f64>>,
    pub stall_time: Option<S<RawDuration>>,
    pub seed: Option<S<i64>>,
    /// Only these operations get faults.
    pub ops: Option<Vec<S<String>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCredentials {
    /// Names of environment variables holding the keys.
    pub env: Option<RawEnvCredentials>,
    /// A profile of the AWS shared config/credentials files.
    pub profile: Option<String>,
    /// Inline access key (allowed, with a warning together with `secret_key`).
    pub access_key: Option<S<String>>,
    pub secret_key: Option<S<String>>,
    /// Inline session token of temporary keys (only with `access_key` and `secret_key`).
    pub session_token: Option<S<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawEnvCredentials {
    pub access_key: Option<String>,
    pub secret_key: Option<String>,
    pub session_token: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTls {
    pub ca_file: Option<String>,
    pub insecure_skip_verify: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawBuckets {
    pub names: Option<Vec<S<String>>>,
    pub name: Option<S<String>>,
    /// With `count`: buckets `prefix0` .. `prefix{count-1}`.
    pub prefix: Option<S<String>>,
    pub count: Option<S<i64>>,
    pub create: Option<bool>,
    /// `dynamic` or `{shards: N}` (RGW bucket index layout).
    pub index: Option<S<RawIndex>>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged, expecting = "`index` is `dynamic` or `{shards: N}`")]
pub enum RawIndex {
    Name(String),
    Shards { shards: i64 },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawStalls {
    /// An interval stalls when its write ops/s fall below this fraction of the phase's median.
    pub throughput_below: Option<S<f64>>,
    /// ... or its write p99 exceeds this multiple of the phase's median p99.
    pub p99_above: Option<S<f64>>,
    /// Intervals measured before stalls are judged.
    pub min_intervals: Option<S<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawKeyspace {
    pub seed: Option<S<i64>>,
    pub prefix: Option<S<String>>,
    /// `random`, `sequential` or `tree`.
    pub layout: Option<S<String>>,
    pub key_length: Option<S<i64>>,
    pub fanout: Option<S<i64>>,
    pub depth: Option<S<i64>>,
    pub existing: Option<S<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawObjects {
    pub size: Option<S<RawSize>>,
    /// `random` or `zero`.
    pub content: Option<S<String>>,
    /// `x-amz-meta-NAME: template`.
    pub metadata: Option<BTreeMap<String, S<String>>>,
}

/// `6B` / `1KiB-4KiB` / `1024` / `{4KiB: 70, 1MiB: 30}`.
#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "a size is `4KiB`, a range `1KiB-4KiB` or whole-number weights `{4KiB: 70, 1MiB: 30}`"
)]
pub enum RawSize {
    Bytes(u64),
    Text(String),
    Weighted(BTreeMap<String, i64>),
}

/// `5s`, `2m30s`; `none` for timeouts; a bare number is refused with a hint.
#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "a duration is a number with a unit, e.g. `30s`, `250ms`, `2m30s` or `1h`"
)]
pub enum RawDuration {
    Number(f64),
    Text(String),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRounds {
    pub count: Option<S<i64>>,
    pub phases: Vec<S<RawPhase>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPhase {
    pub name: Option<S<String>>,
    /// `put`, `get`, `head`, `list` or `delete`.
    pub op: Option<S<String>>,
    /// Weighted operations, e.g. `{get: 70, put: 20, list: 5, delete: 5}`.
    pub mix: Option<S<BTreeMap<String, S<i64>>>>,
    /// Ops phases and mixes: workers issuing requests at once.
    pub workers: Option<S<i64>>,
    /// Listers: a complete listing's own, or those feeding a scan, a download or reads
    /// from a listing.
    pub listers: Option<S<i64>>,
    /// Metadata scans: HEAD workers.
    pub head_workers: Option<S<i64>>,
    /// Downloads and uploads: objects moving at once.
    pub in_flight: Option<S<i64>>,
    /// The old name of whichever of `workers`, `listers`, `head_workers` or `in_flight`
    /// the phase's kind runs (still read, with a warning naming the new one).
    pub concurrency: Option<S<i64>>,
    pub rate: Option<S<f64>>,
    /// A rate sweep: one open-loop step per rate, `[500, 1000, 2000]` or
    /// `{from: 500, to: 8000, steps: 5, scale: log}`.
    pub rates: Option<S<RawRates>>,
    /// A search for the highest rate that keeps an SLO.
    pub search: Option<S<RawSearch>>,
    pub warmup: Option<S<RawDuration>>,
    pub duration: Option<S<RawDuration>>,
    pub operations: Option<S<i64>>,
    pub until_objects: Option<S<i64>>,
    /// `uniform` or `{zipf: EXPONENT}`.
    pub select: Option<S<RawSelect>>,
    pub page_size: Option<S<i64>>,
    pub max_error_rate: Option<S<f64>>,
    /// Thresholds this phase must meet (`get.p99 < 20ms`).
    pub expect: Option<S<Vec<S<String>>>>,
    /// Once this phase measured this long, a threshold it missed so far stops the run.
    pub expect_abort_after: Option<S<RawDuration>>,
    /// List phases: `serial`, `prefix` or `adaptive`.
    pub mode: Option<S<String>>,
    /// Prefix mode: leading characters per prefix.
    pub prefix_depth: Option<S<i64>>,
    /// Prefix mode: the characters keys start with.
    pub alphabet: Option<S<String>>,
    /// Adaptive mode: the delimiter whose folders seed the ranges (`""`: none).
    pub delimiter: Option<S<String>>,
    /// List phases: add a space report (by prefix, age, suffix, size) to the results.
    pub report: Option<S<bool>>,
    /// Where reads take their keys: `window` (the keyspace's live window, the default),
    /// `bucket` (head phases: every key a listing finds, the metadata scan), or a map:
    /// `{file: PATH}` (a key file made earlier) or `{from: listing, bucket: B, prefix:
    /// P}` (the bucket listed at the phase's start).
    pub keys: Option<S<RawKeys>>,
    /// Phases reading from a key file or listing: end after every key was read this many
    /// times, each epoch in its own shuffled order.
    pub epochs: Option<S<i64>>,
    /// Let a phase write into a bucket whose keys another phase reads from a listing or
    /// a key file (keystorm did not write them).
    pub allow_writes: Option<S<bool>>,
    /// Complete listings and scans: list under this prefix instead of the keyspace's.
    pub prefix: Option<S<String>>,
    /// The old name of `listers` feeding a scan, a download or reads from a listing
    /// (still read, with a warning).
    pub list_concurrency: Option<S<i64>>,
    /// Downloads and uploads: the local folder.
    pub dir: Option<S<String>>,
    /// Downloads and uploads: the size of a part (`16MiB`).
    pub part_size: Option<S<String>>,
    /// Downloads and uploads: objects larger than this move in parts.
    pub parts_above: Option<S<String>>,
    /// Downloads and uploads: parts of one object moving at once.
    pub parts_in_flight: Option<S<i64>>,
    /// The old name of `parts_in_flight` (still read, with a warning).
    pub part_concurrency: Option<S<i64>>,
    /// Downloads and uploads: move again what is already complete.
    pub overwrite: Option<S<bool>>,
    /// Phases that GET: check every body (and MD5 ETag) against what keystorm wrote.
    pub verify: Option<S<bool>>,
    /// Audits: how long to wait, before listing, for a reshard of an audited bucket's
    /// index that is in progress to finish (`0s`: do not wait).
    pub wait_for_reshard: Option<S<RawDuration>>,
    /// The counts validation reads, each taken from its new name or its old one once
    /// the names are resolved.
    #[serde(skip)]
    pub counts: Counts,
    /// The names the user wrote for those counts, so errors name what was written.
    #[serde(skip)]
    pub written: WrittenNames,
}

/// A phase's counts as validation reads them (see `validate::parallel`): its own (the
/// `workers`, `listers`, `head_workers` or `in_flight` of its kind), the `listers`
/// feeding it, and the `parts_in_flight` of one object.
#[derive(Debug, Default)]
pub struct Counts {
    pub own: Option<S<i64>>,
    pub listers: Option<S<i64>>,
    pub parts: Option<S<i64>>,
}

/// Which name gave each of a phase's counts (see `validate::parallel`).
#[derive(Debug, Clone, Copy)]
pub struct WrittenNames {
    pub own: &'static str,
    pub listers: &'static str,
    pub parts: &'static str,
}

impl Default for WrittenNames {
    fn default() -> Self {
        WrittenNames {
            own: "workers",
            listers: "listers",
            parts: "parts_in_flight",
        }
    }
}

/// `window`, `bucket`, `{file: PATH}` or `{from: listing, bucket: B, prefix: P}`.
#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "`keys` is `window`, `bucket`, `{file: PATH, bucket: B}` or `{from: listing, bucket: B, prefix: P}`"
)]
pub enum RawKeys {
    Name(String),
    Source(RawKeySource),
}

/// The map form of `keys`. Its values carry no positions of their own (an untagged
/// form loses them): mistakes in it are reported at `keys`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawKeySource {
    /// A key file made earlier (`keystorm list B --keys FILE.keys`).
    pub file: Option<String>,
    /// `listing`: list the bucket at the phase's start.
    pub from: Option<String>,
    /// The bucket the keys are in (default: the workload's, when it names one).
    pub bucket: Option<String>,
    /// Listings: only keys under this prefix.
    pub prefix: Option<String>,
    /// Listings: `serial`, `prefix` or `adaptive` (the default).
    pub mode: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "`rates` is a list of operations per second, e.g. `[500, 1000, 2000]`, or a range, e.g. `{from: 500, to: 8000, steps: 5, scale: log}`"
)]
pub enum RawRates {
    List(Vec<f64>),
    Range(RawRateRange),
}

/// `search: {slo: "put.p99 < 50ms", from: 100, to: 100000}`: the highest rate at
/// which every SLO holds.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawSearch {
    /// One SLO or a list of them, each `OP.METRIC < BOUND`.
    pub slo: Option<S<RawSlo>>,
    pub from: Option<S<f64>>,
    pub to: Option<S<f64>>,
    /// How close the bracket gets: `5%` (the default) or `0.05`.
    pub resolution: Option<S<RawShare>>,
    /// The most time the search may take (`30m`); none: no bound.
    pub budget: Option<S<RawDuration>>,
}

/// A share: `5%` or `0.05`.
#[derive(Debug, Deserialize)]
#[serde(untagged, expecting = "a share, e.g. `5%` or `0.05`")]
pub enum RawShare {
    Number(f64),
    Text(String),
}

#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "`slo` is one threshold, e.g. \"put.p99 < 50ms\", or a list of them"
)]
pub enum RawSlo {
    One(String),
    Many(Vec<String>),
}

/// `{from, to, steps, scale}`: `steps` rates from `from` to `to`, both included.
/// (Inside an untagged enum values have no position of their own: errors point at
/// `rates`.)
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRateRange {
    pub from: f64,
    pub to: f64,
    pub steps: i64,
    /// `log` (the default: each step the same factor above the last) or `linear`.
    pub scale: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged, expecting = "select is `uniform` or `{zipf: 1.1}`")]
pub enum RawSelect {
    Name(String),
    Zipf { zipf: f64 },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawCleanup {
    /// Delete the keyspace's live objects after a completed run.
    pub objects: Option<bool>,
    /// Delete the buckets this run created after a completed run.
    pub buckets: Option<bool>,
}
