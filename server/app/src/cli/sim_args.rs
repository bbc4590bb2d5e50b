//! The flags of `keystorm sim`: the simulated store's storage, latencies, faults,
//! index and memory. What the store is set to is only parsed here (numbers, `OP=DIST`,
//! `KIND=RATE`); its checks and limits are a workload's `target.embedded`, which the
//! flags become (see `commands::sim_section`).

use clap::ValueEnum;

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
    #[arg(long, value_name = "SIZE")]
    pub max_memory: Option<String>,

    /// Requests served at once, like a gateway's pool of worker threads: the rest wait
    /// their turn, first come first served, so with a fixed latency L the target serves
    /// at most N ÷ L requests a second (a known knee for rate sweeps and searches)
    /// [default: no limit].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub max_inflight: Option<i64>,

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
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        help_heading = "Bucket index (RGW-like)"
    )]
    pub index_shards: Option<i64>,

    /// Reshard buckets that outgrow their shards (`rgw_dynamic_resharding`): past
    /// shards × max-objs-per-shard objects, to the next prime ≥ 2 × objects / max.
    #[arg(long, help_heading = "Bucket index (RGW-like)")]
    pub dynamic_resharding: bool,

    /// Objects per shard before a bucket needs resharding (`rgw_max_objs_per_shard`)
    /// [default: 100000].
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        help_heading = "Bucket index (RGW-like)"
    )]
    pub max_objs_per_shard: Option<i64>,

    /// How often the reshard thread looks at the buckets [default: 1s].
    #[arg(long, value_name = "DUR", help_heading = "Bucket index (RGW-like)")]
    pub reshard_check_interval: Option<String>,

    /// Time a reshard takes per object it moves; the bucket's writes block meanwhile
    /// [default: 10us].
    #[arg(long, value_name = "DUR", help_heading = "Bucket index (RGW-like)")]
    pub reshard_time_per_object: Option<String>,

    /// Writers blocked by a reshard complete at the first multiple of this after it
    /// ended (RGW backs off in 5 s steps) [default: 5s].
    #[arg(long, value_name = "DUR", help_heading = "Bucket index (RGW-like)")]
    pub reshard_retry_step: Option<String>,

    /// Added time per index shard of every ordered listing page (RGW merges all
    /// shards per page) [default: 0s].
    #[arg(long, value_name = "DUR", help_heading = "Bucket index (RGW-like)")]
    pub list_time_per_shard: Option<String>,

    /// Added latency of an operation (repeatable). OP: put, get, head, list (per
    /// page) or delete; DIST: `2ms` fixed, `1ms..3ms` uniform, `exp:2ms` exponential
    /// with that mean, `lognormal:2ms,20ms` log-normal with that median and p99.
    #[arg(long = "latency", value_name = "OP=DIST", value_parser = parse_latency, help_heading = "Injection (object operations only)")]
    pub latency: Vec<(String, String)>,

    /// Latency added to the object requests arriving on one port, after the target's
    /// own --latency (repeatable), e.g. `9001:get=200ms`. PORT: one of --ports (or
    /// --port); OP and DIST as for --latency.
    #[arg(long = "port-latency", value_name = "PORT:OP=DIST", value_parser = parse_port_latency, help_heading = "Injection (object operations only)")]
    pub port_latency: Vec<(u16, String, String)>,

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
        value_delimiter = ',',
        value_name = "OPS",
        help_heading = "Injection (object operations only)"
    )]
    pub fault_ops: Vec<String>,

    /// How long a stalled answer is held before the connection is closed [default: 5s].
    #[arg(
        long,
        value_name = "DUR",
        help_heading = "Injection (object operations only)"
    )]
    pub stall_time: Option<String>,

    /// Seed of the fault draws; 0 seeds from the clock. A fixed seed gives the same
    /// faults to the same sequence of requests.
    #[arg(
        long,
        value_name = "N",
        allow_negative_numbers = true,
        help_heading = "Injection (object operations only)"
    )]
    pub fault_seed: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SimStorage {
    Memory,
    SizeOnly,
}

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

impl SimFault {
    /// The field of a workload's `target.embedded.faults` it sets (`slow-down` is
    /// `slow_down`).
    pub fn field(self) -> String {
        self.to_possible_value()
            .map(|v| v.get_name().replace('-', "_"))
            .unwrap_or_default()
    }
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

/// `OP=DIST`, split: the operation and the distribution are the workload's to check.
fn parse_latency(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((op, dist)) if !op.trim().is_empty() => {
            Ok((op.trim().to_string(), dist.trim().to_string()))
        }
        _ => Err(format!("{s:?} is not OP=DIST, e.g. `get=2ms`")),
    }
}

fn parse_port_latency(s: &str) -> Result<(u16, String, String), String> {
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

fn port_number(text: &str) -> Option<u16> {
    text.trim().parse::<u16>().ok().filter(|p| *p != 0)
}

fn not_a_port(text: &str) -> String {
    format!("{:?} is not a port number between 1 and 65535", text.trim())
}

/// `[PORT:]KIND=RATE`, the rate a number or a percentage; whether it is a fraction
/// between 0 and 1 is the workload's to check.
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
        Ok(r) if r.is_finite() => Ok((port, kind, r)),
        _ => Err(format!(
            "{rate:?} is not a fraction between 0 and 1 (or 0% to 100%)"
        )),
    }
}
