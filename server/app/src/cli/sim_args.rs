//! The flags of `keystorm sim`: the simulated store's storage, latencies, faults,
//! index and memory.

use clap::ValueEnum;
use keystorm_workload::plan::DelayPlan;

use super::values::{parse_byte_size, parse_duration, parse_positive_duration};

#[derive(Debug, clap::Args)]
pub struct SimArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 9000)]
    pub port: u16,

    /// Serve the one target on each of these ports (comma-separated, e.g.
    /// `9000,9001,9002`), like gateways in front of one store; 0 picks a free one.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "PORTS",
        conflicts_with = "port"
    )]
    pub ports: Vec<u16>,

    /// Address to bind; keep the loopback default unless you mean to expose it.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,

    /// Keep object bytes (`memory`) or only sizes and metadata (`size-only`).
    #[arg(long, value_enum, default_value_t = SimStorage::Memory)]
    pub storage: SimStorage,

    /// Answer DeleteObjects (multi-object delete) with 501 NotImplemented, like
    /// stores without it; single DELETEs still work.
    #[arg(long)]
    pub no_multi_delete: bool,

    /// Memory the target may hold (object bytes, keys, metadata and a fixed overhead
    /// per object, by its own count) before writes get 507 InsufficientStorage; reads,
    /// lists and deletes go on, and deletes make room [default: half of the machine's
    /// memory, or of the cgroup's limit].
    #[arg(long, value_name = "SIZE", value_parser = parse_max_memory)]
    pub max_memory: Option<u64>,

    /// Requests served at once, like a gateway's pool of worker threads: the rest wait
    /// their turn, first come first served, so with a fixed latency L the target serves
    /// at most N ÷ L requests a second (a known knee for rate sweeps and searches)
    /// [default: no limit].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=i64::from(keystorm_workload::plan::MAX_INFLIGHT)))]
    pub max_inflight: Option<u32>,

    /// Access key to verify request signatures with (with --secret-key).
    #[arg(
        long,
        requires = "secret_key",
        env = "KEYSTORM_SIM_ACCESS_KEY",
        hide_env_values = true
    )]
    pub access_key: Option<String>,

    /// Secret key to verify request signatures with.
    #[arg(
        long,
        requires = "access_key",
        env = "KEYSTORM_SIM_SECRET_KEY",
        hide_env_values = true
    )]
    pub secret_key: Option<String>,

    /// Index shards of a new bucket, like RGW's `rgw_override_bucket_index_max_shards`
    /// [default: 11].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=65521), help_heading = "Bucket index (RGW-like)")]
    pub index_shards: Option<u32>,

    /// Reshard buckets that outgrow their shards (`rgw_dynamic_resharding`): past
    /// shards × max-objs-per-shard objects, to the next prime ≥ 2 × objects / max.
    #[arg(long, help_heading = "Bucket index (RGW-like)")]
    pub dynamic_resharding: bool,

    /// Objects per shard before a bucket needs resharding (`rgw_max_objs_per_shard`)
    /// [default: 100000].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..), help_heading = "Bucket index (RGW-like)")]
    pub max_objs_per_shard: Option<u64>,

    /// How often the reshard thread looks at the buckets [default: 1s].
    #[arg(long, value_name = "DUR", value_parser = parse_positive_duration, help_heading = "Bucket index (RGW-like)")]
    pub reshard_check_interval: Option<std::time::Duration>,

    /// Time a reshard takes per object it moves; the bucket's writes block meanwhile
    /// [default: 10us].
    #[arg(long, value_name = "DUR", value_parser = parse_duration, help_heading = "Bucket index (RGW-like)")]
    pub reshard_time_per_object: Option<std::time::Duration>,

    /// Writers blocked by a reshard complete at the first multiple of this after it
    /// ended (RGW backs off in 5 s steps) [default: 5s].
    #[arg(long, value_name = "DUR", value_parser = parse_positive_duration, help_heading = "Bucket index (RGW-like)")]
    pub reshard_retry_step: Option<std::time::Duration>,

    /// Added time per index shard of every ordered listing page (RGW merges all
    /// shards per page) [default: 0s].
    #[arg(long, value_name = "DUR", value_parser = parse_duration, help_heading = "Bucket index (RGW-like)")]
    pub list_time_per_shard: Option<std::time::Duration>,

    /// Added latency of an operation (repeatable). OP: put, get, head, list (per
    /// page) or delete; DIST: `2ms` fixed, `1ms..3ms` uniform, `exp:2ms` exponential
    /// with that mean, `lognormal:2ms,20ms` log-normal with that median and p99.
    #[arg(long = "latency", value_name = "OP=DIST", value_parser = parse_latency, help_heading = "Injection (object operations only)")]
    pub latency: Vec<(SimOp, DelayPlan)>,

    /// Latency added to the object requests arriving on one port, after the target's
    /// own --latency (repeatable), e.g. `9001:get=200ms`. PORT: one of --ports (or
    /// --port); OP and DIST as for --latency.
    #[arg(long = "port-latency", value_name = "PORT:OP=DIST", value_parser = parse_port_latency, help_heading = "Injection (object operations only)")]
    pub port_latency: Vec<(u16, SimOp, DelayPlan)>,

    /// Inject a fault into this fraction of object requests (repeatable), e.g.
    /// `slow-down=0.01` or `reset=0.5%`. KIND: slow-down (503 SlowDown),
    /// internal-error (500), reset (connection closed unanswered), stall (answer held
    /// for --stall-time, then the connection closed), corrupt (a GET's body with one
    /// bit flipped; the stored object unchanged); these add up to at most 1.
    /// key-error: a fraction of the keys of each multi-object delete that fail alone
    /// (InternalError in its answer; the object stays). lose-on-reshard: a fraction of
    /// the index entries each reshard moves that it drops (the object stays readable
    /// but is never listed until written again). list-twice: a fraction of continued
    /// listing pages that begin with the previous page's last key again. With a
    /// PORT first (`9001:reset=1`), a request fault of that port only (one of --ports),
    /// drawn after the target's own, as when one gateway fails.
    #[arg(long = "fault", value_name = "[PORT:]KIND=RATE", value_parser = parse_fault, help_heading = "Injection (object operations only)")]
    pub faults: Vec<(Option<u16>, SimFault, f64)>,

    /// Only these operations get faults (comma-separated; all when not given), e.g.
    /// `--fault-ops delete` to fail deletes while writes go through.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        value_name = "OPS",
        help_heading = "Injection (object operations only)"
    )]
    pub fault_ops: Vec<SimOp>,

    /// How long a stalled answer is held before the connection is closed.
    #[arg(long, value_name = "DUR", default_value = "5s", value_parser = parse_positive_duration, help_heading = "Injection (object operations only)")]
    pub stall_time: std::time::Duration,

    /// Seed of the fault draws; 0 seeds from the clock. A fixed seed gives the same
    /// faults to the same sequence of requests.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 0,
        help_heading = "Injection (object operations only)"
    )]
    pub fault_seed: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimStorage {
    Memory,
    SizeOnly,
}

/// The operations `keystorm sim --latency` and `--fault-ops` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimOp {
    Put,
    Get,
    Head,
    List,
    Delete,
}

impl SimOp {
    /// The operation as workloads and results name it.
    pub fn kind(self) -> keystorm_types::OpKind {
        use keystorm_types::OpKind;
        match self {
            SimOp::Put => OpKind::Put,
            SimOp::Get => OpKind::Get,
            SimOp::Head => OpKind::Head,
            SimOp::List => OpKind::List,
            SimOp::Delete => OpKind::Delete,
        }
    }
}

/// The faults `keystorm sim --fault` injects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimFault {
    SlowDown,
    InternalError,
    Reset,
    Stall,
    KeyError,
    Corrupt,
    LoseOnReshard,
    ListTwice,
}

/// Why a flag's value is not `KEY=VALUE` with a known KEY.
#[derive(Debug, thiserror::Error)]
enum KeyedError {
    /// No `=`: the value is not the `what` it should be.
    #[error("{given:?} is not {what}")]
    NotKeyed { given: String, what: &'static str },
    #[error("{key:?} is not one of {}", .known.join(", "))]
    UnknownKey { key: String, known: Vec<String> },
}

/// `KEY=VALUE` with KEY one of `T`'s value names.
fn parse_keyed<T: ValueEnum>(s: &str, what: &'static str) -> Result<(T, String), KeyedError> {
    let (k, v) = s.split_once('=').ok_or_else(|| KeyedError::NotKeyed {
        given: s.to_string(),
        what,
    })?;
    let key = T::from_str(k.trim(), true).map_err(|_| KeyedError::UnknownKey {
        key: k.trim().to_string(),
        known: T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
            .collect(),
    })?;
    Ok((key, v.trim().to_string()))
}

fn parse_latency(s: &str) -> Result<(SimOp, DelayPlan), String> {
    let (op, text) = parse_keyed::<SimOp>(s, "OP=DIST").map_err(|e| e.to_string())?;
    let delay = text.parse::<keystorm_types::Delay>().map_err(|e| {
        format!("{e}; write e.g. `2ms`, `1ms..3ms`, `exp:2ms` or `lognormal:2ms,20ms`")
    })?;
    Ok((op, DelayPlan { text, delay }))
}

fn parse_port_latency(s: &str) -> Result<(u16, SimOp, DelayPlan), String> {
    let (port, latency) = s
        .split_once(':')
        .ok_or_else(|| format!("{s:?} is not PORT:OP=DIST, e.g. `9001:get=200ms`"))?;
    let (op, delay) = parse_latency(latency)?;
    Ok((
        port_number(port).ok_or_else(|| not_a_port(port))?,
        op,
        delay,
    ))
}

/// A port a flag names: 1 to 65535.
fn port_number(text: &str) -> Option<u16> {
    text.trim().parse::<u16>().ok().filter(|p| *p != 0)
}

fn not_a_port(text: &str) -> String {
    format!("{:?} is not a port number between 1 and 65535", text.trim())
}

fn parse_fault(s: &str) -> Result<(Option<u16>, SimFault, f64), String> {
    let (port, s) = match s.split_once(':') {
        Some((port, fault)) if !port.contains('=') => (
            Some(port_number(port).ok_or_else(|| not_a_port(port))?),
            fault,
        ),
        _ => (None, s),
    };
    let (kind, rate) = parse_keyed::<SimFault>(s, "KIND=RATE").map_err(|e| e.to_string())?;
    let value = match rate.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|p| p / 100.0),
        None => rate.parse::<f64>(),
    };
    match value {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok((port, kind, r)),
        _ => Err(format!(
            "{rate:?} is not a fraction between 0 and 1 (or 0% to 100%)"
        )),
    }
}

fn parse_max_memory(s: &str) -> Result<u64, String> {
    match parse_byte_size(s)? {
        n if n < 64 << 10 => Err(format!("{s:?} is below 64KiB, too little to hold anything")),
        n => Ok(n),
    }
}
