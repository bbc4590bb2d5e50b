//! The validated, immutable plan a run executes.
//!
//! [`crate::spec`] turns YAML into raw structs and checks them (with line and column
//! for every error); the result is this plan, in which every default is filled in and
//! every invariant holds, so the executor never has to second-guess its input.

use std::path::PathBuf;
use std::time::Duration;

use serde::Serialize;

use keystorm_results::AtOnce;
use keystorm_types::ClientKind;
use keystorm_types::OpKind;

mod gateways;
mod humantime_serde_opt;
mod overrides;
mod rgw;
pub mod shard;
mod transfer_settings;
pub(crate) mod verify;

pub use gateways::{GatewaysPlan, OnEndpointDown, Spread};
use keystorm_results::humantime_serde_dur;
pub(crate) use keystorm_results::{PhaseEnd, Shard};
use keystorm_types::CredentialSource;
pub use rgw::*;
pub use transfer_settings::TransferSettings;

/// A whole workload, ready to run.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub name: String,
    pub description: Option<String>,
    pub target: TargetPlan,
    pub buckets: BucketsPlan,
    pub keyspace: KeyspacePlan,
    pub objects: ObjectsPlan,
    /// Phases run once before the rounds (e.g. the initial fill).
    pub before: Vec<PhasePlan>,
    pub rounds: RoundsPlan,
    /// Phases run once after the rounds (e.g. a final list).
    pub after: Vec<PhasePlan>,
    pub cleanup: CleanupPlan,
    pub stalls: StallPlan,
    /// How often a running phase saves its progress to the checkpoint.
    #[serde(with = "humantime_serde_dur")]
    pub checkpoint_every: Duration,
    /// What a run split over agents does when one is lost.
    pub agents: AgentsPlan,
    /// Thresholds every phase must meet (`get.p99 < 20ms`), checked when it ends, and
    /// while it runs on what it measured so far.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<String>,
    /// Latencies each phase's tail is counted from (1 s and 10 s by default).
    pub tail_marks: keystorm_results::tail_marks::TailMarks,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct AgentsPlan {
    pub on_loss: OnAgentLoss,
}

/// What a run split over agents does when an agent is lost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OnAgentLoss {
    /// The other shards go on; the same agent started again resumes its shard.
    #[default]
    Continue,
    /// The run stops: every other shard is stopped, and what they did is merged.
    Abort,
}

#[derive(Debug, Clone, Serialize)]
pub struct RoundsPlan {
    pub count: u32,
    pub phases: Vec<PhasePlan>,
}

/// Where the target is. Credentials are described (where they come from), never stored.
#[derive(Debug, Clone, Serialize)]
pub struct TargetPlan {
    pub endpoint: Endpoint,
    pub region: String,
    pub path_style: bool,
    pub client: ClientKind,
    pub credentials: CredentialSource,
    pub tls: TlsPlan,
    #[serde(with = "humantime_serde_opt")]
    pub timeout: Option<Duration>,
    pub retries: u32,
    pub checksums: bool,
    pub payload_signing: bool,
    /// The embedded target's RGW imitation and injected latency and faults.
    pub embedded: EmbeddedPlan,
    /// Ceph RGW features (admin API, pre-sharding).
    pub rgw: RgwPlan,
    /// How requests spread over several endpoints, and what a lost one does.
    pub gateways: GatewaysPlan,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Endpoint {
    /// The in-process simulated S3 target on a random loopback port.
    Embedded { storage: EmbeddedStorage },
    /// Real endpoint URLs (`http://` or `https://`, no trailing slash): one, or the
    /// gateways of a cluster the run spreads its requests over.
    Urls(Vec<String>),
}

impl Endpoint {
    /// `embedded`, or the URLs joined by commas (as `--endpoint` takes them).
    pub fn describe(&self) -> String {
        match self {
            Endpoint::Embedded { .. } => "embedded".to_string(),
            Endpoint::Urls(urls) => urls.join(","),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum EmbeddedStorage {
    /// Object bytes kept in memory.
    #[default]
    Memory,
    /// Only sizes and metadata kept, so millions of keys fit.
    SizeOnly,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TlsPlan {
    pub ca_file: Option<PathBuf>,
    pub insecure_skip_verify: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct BucketsPlan {
    /// One or more bucket names; key `i` lives in `names[i % names.len()]`.
    pub names: Vec<String>,
    /// Create buckets that do not exist.
    pub create: bool,
    /// Index layout of the buckets keystorm creates; `None` = the target's default.
    pub index: Option<IndexLayout>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeyspacePlan {
    pub seed: u64,
    pub prefix: String,
    pub layout: KeyLayout,
    /// Length of the generated part of the key (after the prefix, excluding tree folders).
    pub key_length: usize,
    /// Objects `[0, existing)` already exist (written by an earlier run with this keyspace).
    /// In a shard's plan: how many of them are the shard's.
    pub existing: u64,
    /// The part of the keyspace this run writes and reads (`--shard I/N`): its key `i`
    /// is the workload's key `i * N + I`.
    pub shard: Shard,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum KeyLayout {
    /// Random-looking base-62 keys with uniformly distributed leading characters.
    Random,
    /// Zero-padded decimal counter.
    Sequential,
    /// Folder-like keys `f/f/f/name` with `fanout` entries per folder level and `depth` levels.
    Tree { fanout: u32, depth: u32 },
}

#[derive(Debug, Clone, Serialize)]
pub struct ObjectsPlan {
    pub size: SizeDist,
    pub content: Content,
    /// `x-amz-meta-*` headers, names without the prefix, values computed from the key index.
    pub metadata: Vec<(String, MetaTemplate)>,
}

/// Object size distribution; sizes in bytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SizeDist {
    Fixed {
        bytes: u64,
    },
    /// Uniform in `[min, max]` inclusive.
    Uniform {
        min: u64,
        max: u64,
    },
    /// Weighted choice among fixed sizes; weights are positive.
    Weighted {
        choices: Vec<(u64, u32)>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Content {
    #[default]
    Random,
    Zero,
}

/// A metadata value template such as `team-{i%8}`: literal text and computed parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MetaTemplate {
    /// The template as written, for display.
    pub source: String,
    pub parts: Vec<MetaPart>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MetaPart {
    Literal(String),
    /// `{i}`
    Index,
    /// `{i%N}`
    IndexMod(u64),
    /// `{i/N}`
    IndexDiv(u64),
    /// `{seed}`
    Seed,
}

impl Plan {
    /// Every phase, in the order a run meets them (each round's phases once).
    pub fn phases(&self) -> impl Iterator<Item = &PhasePlan> {
        self.before
            .iter()
            .chain(&self.rounds.phases)
            .chain(&self.after)
    }

    /// Buckets whose keys a phase reads from a listing or a key file: keystorm did not
    /// write them, so nothing writes or cleans there unless a phase allows it.
    pub fn listed_buckets(&self) -> Vec<(&str, &str)> {
        self.phases()
            .filter_map(|p| p.keys.as_ref().map(|k| (k.bucket(), p.name.as_str())))
            .collect()
    }

    /// Every bucket the run works on, once: the workload's, then those its phases read
    /// from a listing or a key file.
    pub fn bucket_names(&self) -> Vec<String> {
        let mut names = self.buckets.names.clone();
        for (b, _) in self.listed_buckets() {
            if !names.iter().any(|n| n == b) {
                names.push(b.to_string());
            }
        }
        names
    }

    pub(crate) fn phases_mut(&mut self) -> impl Iterator<Item = &mut PhasePlan> {
        self.before
            .iter_mut()
            .chain(self.rounds.phases.iter_mut())
            .chain(self.after.iter_mut())
    }
}

/// One phase: an operation or a weighted mix, how hard to drive it, and when to stop.
#[derive(Debug, Clone, Serialize)]
pub struct PhasePlan {
    /// Unique within its section; rounds reuse their phase names in every round.
    pub name: String,
    pub work: PhaseWork,
    /// Open loop at this many operations per second; `None` = closed loop.
    pub rate: Option<f64>,
    /// Seconds at the start excluded from results.
    #[serde(with = "humantime_serde_dur")]
    pub warmup: Duration,
    pub end: PhaseEnd,
    /// How gets and heads pick a key inside the live window.
    pub selection: Selection,
    /// Keys per ListObjectsV2 page.
    pub page_size: u32,
    /// Stop the run when the error fraction of this phase exceeds this (checked each interval).
    pub max_error_rate: Option<f64>,
    /// Thresholds this phase must meet (beside the workload's), checked when it ends,
    /// and while it runs on what it measured so far.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expect: Vec<String>,
    /// Once the phase measured this long, a threshold it missed so far stops the run
    /// (its own `expect_abort_after`, or else the workload's); `None`: a threshold
    /// missed while it runs is shown, never acted on.
    #[serde(with = "humantime_serde_opt", skip_serializing_if = "Option::is_none")]
    pub expect_abort_after: Option<Duration>,
    /// Check every GET's body (and MD5 ETag) against what keystorm wrote; a difference
    /// is counted as `corrupt`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub verify: bool,
    /// Where its reads (GET, HEAD, a mix's LIST pages) take their keys when keystorm
    /// did not write them: a key file or a listing; `None`: the keyspace's window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<KeySource>,
    /// Writes allowed into a bucket whose keys a phase reads from a listing or a key
    /// file (`allow_writes: true`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allow_writes: bool,
    /// How its PUTs and GETs move objects larger than `parts_above`.
    #[serde(skip_serializing_if = "PartPlan::is_default")]
    pub parts: PartPlan,
    /// The rate sweep this phase is a step of (`rates`): the phase's name as written,
    /// shared by every step; the step's own name adds its rate (`put@1000`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<String>,
    /// A search for the highest rate at which the SLOs hold: the phase runs open-loop
    /// steps whose rates it chooses as it goes (`search`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchPlan>,
    /// What the phase does (in plan.json: `kind`, with its `listing` or `transfer`).
    #[serde(flatten)]
    pub kind: PhaseKind,
}

/// The name of a step of the sweep or search `phase` at `rate`, run for the
/// `repeat`th time: `put@1000`, `put@12.5`, a repeat `put@1000#2`.
pub fn step_name(phase: &str, rate: f64, repeat: u32) -> String {
    let rate = if rate.fract() == 0.0 {
        format!("{rate:.0}")
    } else {
        format!("{rate:.3}").trim_end_matches('0').to_string()
    };
    match repeat {
        0 | 1 => format!("{phase}@{rate}"),
        n => format!("{phase}@{rate}#{n}"),
    }
}

/// A step's rate rounded to 3 significant digits, as sweeps and searches choose them.
pub fn step_rate(rate: f64) -> f64 {
    let scale = 10f64.powi(2 - rate.log10().floor() as i32);
    (rate * scale).round() / scale
}

/// How a phase searches for its sustainable rate: steps up from `from` by doubling
/// until a step misses an SLO (or sends under 99 % of its rate), then halves the
/// bracket (in ratio) until its ends are within `resolution` of each other, repeating
/// the last passing and the first failing step to confirm them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchPlan {
    /// `OP.METRIC < BOUND` as written; every one must hold.
    pub slo: Vec<String>,
    pub from: f64,
    pub to: f64,
    /// The bracket's ends at most this fraction apart (0.05: 5 %).
    pub resolution: f64,
    /// The most time the search takes; it says so when it ran out.
    #[serde(with = "humantime_serde_opt", skip_serializing_if = "Option::is_none")]
    pub budget: Option<Duration>,
}

/// How an operations phase moves an object larger than `parts_above`: a PUT is a
/// multipart upload and a GET is ranged GETs, in parts of `part_size` with
/// `parts_in_flight` of them at once; the object is one operation, timed from its
/// first request to its last response. The names and defaults are the transfers'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PartPlan {
    pub part_size: u64,
    pub parts_above: u64,
    pub parts_in_flight: u32,
}

impl Default for PartPlan {
    fn default() -> Self {
        let t = TransferSettings::default();
        PartPlan {
            part_size: t.part_size,
            parts_above: t.parts_above,
            parts_in_flight: t.parts_in_flight,
        }
    }
}

impl PartPlan {
    pub fn is_default(&self) -> bool {
        *self == PartPlan::default()
    }

    /// Whether an object of `size` bytes moves in parts.
    pub fn splits(&self, size: u64) -> bool {
        size > self.parts_above
    }
}

impl Plan {
    /// The workload's thresholds and each phase's own, as the run's manifest keeps them.
    pub fn expectations(&self) -> Vec<keystorm_results::threshold::Expectation> {
        let every = self.expect.iter().map(|e| (None, e));
        let own = self
            .before
            .iter()
            .chain(&self.rounds.phases)
            .chain(&self.after)
            .flat_map(|p| p.expect.iter().map(|e| (Some(p.name.clone()), e)));
        every
            .chain(own)
            .map(|(phase, e)| keystorm_results::threshold::Expectation {
                phase,
                expect: e.clone(),
            })
            .collect()
    }
}

impl PhasePlan {
    /// The tasks the phase issues its requests from: an ops phase's workers, a
    /// listing's or an audit's listers, a scan's HEAD workers (its listers feed them),
    /// a transfer's objects in flight (each moving its parts). Recorders and the
    /// client's connection pool are sized by it.
    pub fn tasks(&self) -> u32 {
        match &self.kind {
            PhaseKind::Operations { workers } => *workers,
            PhaseKind::Listing(l) | PhaseKind::Audit { listing: l, .. } => l.listers,
            PhaseKind::Scan { head_workers, .. } => *head_workers,
            PhaseKind::Transfer(t) => t.settings.in_flight,
        }
    }

    /// What the phase keeps going at once, as its `phase_started` event says: each
    /// count its kind runs, under its workload name. A serial listing pages with one
    /// lister whatever its `listers`.
    pub fn at_once(&self) -> AtOnce {
        let listers = |l: &ListingPlan| match l.mode {
            keystorm_results::ListMode::Serial => 1,
            _ => l.listers,
        };
        match &self.kind {
            PhaseKind::Operations { workers } => AtOnce {
                workers: Some(*workers),
                ..AtOnce::default()
            },
            PhaseKind::Listing(l) | PhaseKind::Audit { listing: l, .. } => AtOnce {
                listers: Some(listers(l)),
                ..AtOnce::default()
            },
            PhaseKind::Scan {
                listing,
                head_workers,
            } => AtOnce {
                listers: Some(listers(listing)),
                head_workers: Some(*head_workers),
                ..AtOnce::default()
            },
            PhaseKind::Transfer(t) => AtOnce {
                listers: (t.direction == TransferDirection::Download).then_some(t.listers),
                in_flight: Some(t.settings.in_flight),
                parts_in_flight: Some(t.settings.parts_in_flight),
                ..AtOnce::default()
            },
        }
        .with_concurrency()
    }
}

/// Where a reading phase takes its keys when keystorm did not write them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "from")]
pub enum KeySource {
    /// A key file made earlier (`keystorm list B --keys FILE.keys`), and where the
    /// workload names it (the file is checked on the disk of the machine that runs it).
    File {
        path: PathBuf,
        bucket: String,
        #[serde(skip)]
        at: WrittenAt,
    },
    /// The bucket listed at the phase's start into a key file in the run folder.
    Listing {
        bucket: String,
        prefix: Option<String>,
        mode: keystorm_results::ListMode,
        listers: u32,
    },
}

/// Where in the workload a setting is written (line and column, from 1), for what can
/// only be checked where the run starts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WrittenAt {
    pub line: usize,
    pub column: usize,
}

impl KeySource {
    /// The bucket the keys are in.
    pub fn bucket(&self) -> &str {
        match self {
            KeySource::File { bucket, .. } | KeySource::Listing { bucket, .. } => bucket,
        }
    }
}

/// What a phase does, decided once when the workload becomes a plan; the executor runs
/// each kind in a module of its own.
#[derive(Debug, Clone, PartialEq)]
pub enum PhaseKind {
    /// Operations (one kind or a mix) issued by `workers` closed-loop workers (an open
    /// loop keeps at most `workers` requests in flight) until the phase's end.
    Operations { workers: u32 },
    /// Every key under a prefix listed once (`op: list` without an end).
    Listing(ListingPlan),
    /// A metadata scan: every key listed by the listing's listers and HEADed by
    /// `head_workers` workers (`op: head` with `keys: bucket`).
    Scan {
        listing: ListingPlan,
        head_workers: u32,
    },
    /// A listing audit (`op: audit`): every key listed once and compared with the keys
    /// the live window says must be there. Before it lists, it waits up to
    /// `wait_for_reshard` for a reshard of an audited bucket's index that the tracker
    /// sees in progress to finish (zero: it does not wait).
    Audit {
        listing: ListingPlan,
        wait_for_reshard: Duration,
    },
    /// A download or upload (one pass).
    Transfer(TransferPlan),
}

impl PhaseKind {
    pub fn name(&self) -> &'static str {
        match self {
            PhaseKind::Operations { .. } => "operations",
            PhaseKind::Listing(_) => "listing",
            PhaseKind::Scan { .. } => "scan",
            PhaseKind::Audit { .. } => "audit",
            PhaseKind::Transfer(_) => "transfer",
        }
    }

    /// How a listing or a scan lists.
    pub fn listing(&self) -> Option<&ListingPlan> {
        match self {
            PhaseKind::Listing(l)
            | PhaseKind::Scan { listing: l, .. }
            | PhaseKind::Audit { listing: l, .. } => Some(l),
            _ => None,
        }
    }

    pub fn transfer(&self) -> Option<&TransferPlan> {
        match self {
            PhaseKind::Transfer(t) => Some(t),
            _ => None,
        }
    }
}

/// plan.json keeps the fields it had before phases had kinds: `listing` and
/// `transfer`, each `null` when it does not apply, next to the `kind`; an ops phase
/// adds its `workers`, a scan its `head_workers` (its listers are the listing's), an
/// audit its `wait_for_reshard`.
impl Serialize for PhaseKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let (listing, transfer) = match self {
            PhaseKind::Operations { .. } => (None, None),
            PhaseKind::Listing(plan) | PhaseKind::Audit { listing: plan, .. } => (Some(plan), None),
            PhaseKind::Scan { listing, .. } => (Some(listing), None),
            PhaseKind::Transfer(t) => (None, Some(t)),
        };
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("kind", self.name())?;
        match self {
            PhaseKind::Operations { workers } => map.serialize_entry("workers", workers)?,
            PhaseKind::Scan { head_workers, .. } => {
                map.serialize_entry("head_workers", head_workers)?
            }
            PhaseKind::Audit {
                wait_for_reshard, ..
            } => map.serialize_entry(
                "wait_for_reshard",
                &humantime::format_duration(*wait_for_reshard).to_string(),
            )?,
            _ => {}
        }
        map.serialize_entry("listing", &listing)?;
        map.serialize_entry("transfer", &transfer)?;
        map.end()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TransferDirection {
    /// Every object under the prefix into the folder (recorded as `get`).
    Download,
    /// Every file of the folder into the bucket (recorded as `put`).
    Upload,
}

/// A download or upload phase.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TransferPlan {
    pub direction: TransferDirection,
    /// The local folder (relative to where keystorm runs).
    pub dir: PathBuf,
    /// Listing prefix (download) or key prefix (upload); `None`: the keyspace's.
    pub prefix: Option<String>,
    /// Objects and parts in flight, part size, resume.
    pub settings: TransferSettings,
    /// Listers feeding a download (an upload walks its folder).
    pub listers: u32,
}

/// How a phase lists every key under a prefix (the keyspace's unless given) in each
/// bucket (and for a metadata scan HEADs each one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListingPlan {
    pub mode: keystorm_results::ListMode,
    /// Listers: a listing's or an audit's own (a serial listing runs one), or those
    /// feeding a scan's HEAD workers.
    pub listers: u32,
    /// Characters after the prefix that group the space report; `None` = no report.
    pub report_depth: Option<u32>,
    /// `None`: the keyspace's prefix.
    pub prefix: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PhaseWork {
    Single(OpKind),
    /// Weighted choice per operation; weights positive, in declaration order.
    Mix(Vec<(OpKind, u32)>),
}

impl PhaseWork {
    /// Operations this phase can issue.
    pub fn ops(&self) -> Vec<OpKind> {
        match self {
            PhaseWork::Single(op) => vec![*op],
            PhaseWork::Mix(w) => w.iter().map(|(op, _)| *op).collect(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Default)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Selection {
    #[default]
    Uniform,
    /// Zipf over the window, rank 1 = most recently written key.
    Zipf { exponent: f64 },
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CleanupPlan {
    /// After the run, delete every object of the live window (objects keystorm wrote).
    pub objects: bool,
    /// After the run, delete the buckets this run created (never others).
    pub buckets: bool,
}

impl Plan {
    /// Overrides the buckets' index layout (`keystorm run --index`). On the embedded
    /// target this turns the RGW imitation on, with dynamic resharding unless the
    /// workload configured the imitation itself.
    pub fn set_index(&mut self, layout: IndexLayout) {
        if !self.target.embedded.rgw_like {
            self.target.embedded.index.dynamic = true;
        }
        self.target.embedded.rgw_like = true;
        self.buckets.index = Some(layout);
    }
}
