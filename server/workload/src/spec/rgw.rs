//! Validation of the workload's Ceph RGW parts: `buckets.index`, `target.rgw`,
//! `target.embedded` (index imitation, latency, faults, memory budget) and `stalls`. Same rules as
//! the rest of the spec: every error points at the value at fault.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_saphyr::Spanned;

use super::SpecWarning;
use super::raw::*;
use super::validate::{R, at, credentials, duration, endpoint_url, in_range, loc_of, positive};
use crate::plan::*;
use keystorm_types::{OpKind, rgw_index};

/// Most index shards RGW accepts.
const MAX_SHARDS: i64 = rgw_index::MAX_SHARDS as i64;

pub fn bucket_index(raw: &Option<Spanned<RawIndex>>) -> R<Option<IndexLayout>> {
    let Some(raw) = raw else { return Ok(None) };
    match &raw.value {
        RawIndex::Name(n) if n.trim() == "dynamic" => Ok(Some(IndexLayout::Dynamic)),
        RawIndex::Name(n) => at(
            loc_of(raw),
            format!("unknown bucket index {n:?}; use `dynamic` or `{{shards: N}}`"),
        ),
        RawIndex::Shards { shards } => {
            if *shards < 1 || *shards > MAX_SHARDS {
                return at(
                    loc_of(raw),
                    format!("`index.shards` must be between 1 and {MAX_SHARDS}, not {shards}"),
                );
            }
            Ok(Some(IndexLayout::Shards(*shards as u32)))
        }
    }
}

/// On the embedded target `rgw.admin` is not used (it answers the admin API with its
/// own keys); it is kept for runs pointed at RGW with `--endpoint`.
pub fn rgw(raw: Option<&Spanned<RawRgw>>, warnings: &mut Vec<SpecWarning>) -> R<RgwPlan> {
    let mut plan = RgwPlan::default();
    let Some(raw) = raw else { return Ok(plan) };
    let r = &raw.value;
    if let Some(admin) = &r.admin {
        let endpoint = admin
            .value
            .endpoint
            .as_ref()
            .map(endpoint_url)
            .transpose()?;
        let Some(creds) = &admin.value.credentials else {
            return at(
                loc_of(admin),
                "`rgw.admin` needs `credentials` of an RGW user with caps \
                 `buckets=read; metadata=read` (e.g. `{env: {access_key: VAR, secret_key: VAR}}`)",
            );
        };
        plan.admin = Some(RgwAdminPlan {
            endpoint,
            credentials: credentials(creds, warnings)?,
        });
    }
    if let Some(p) = &r.poll {
        let d = duration(p, "rgw.poll")?;
        if d < Duration::from_millis(100) {
            return at(loc_of(p), "`rgw.poll` must be at least 100ms");
        }
        plan.poll = d;
    }
    if let Some(m) = &r.preshard {
        plan.preshard = match m.value.trim() {
            "auto" => PreshardMethod::Auto,
            "radosgw-admin" => PreshardMethod::RadosgwAdmin,
            "admin-api" => PreshardMethod::AdminApi,
            other => {
                return at(
                    loc_of(m),
                    format!(
                        "unknown pre-shard method {other:?}; use `auto`, `radosgw-admin` or `admin-api`"
                    ),
                );
            }
        };
    }
    if let Some(cmd) = &r.radosgw_admin {
        let words: Vec<String> = cmd.value.split_whitespace().map(String::from).collect();
        if words.is_empty() {
            return at(loc_of(cmd), "`rgw.radosgw_admin` is empty");
        }
        plan.radosgw_admin = words;
    }
    Ok(plan)
}

/// `index_set`: the buckets ask for an index layout, which turns the imitation on.
pub fn embedded(raw: Option<&Spanned<RawEmbedded>>, index_set: bool) -> R<EmbeddedPlan> {
    let mut plan = EmbeddedPlan::default();
    plan.index.dynamic = index_set;
    plan.rgw_like = index_set;
    let Some(raw) = raw else { return Ok(plan) };
    let e = &raw.value;
    if let Some(i) = &e.index {
        plan.rgw_like = true;
        let v = &i.value;
        let p = &mut plan.index;
        if let Some(s) = &v.shards {
            p.shards = in_range(s, "embedded.index.shards", 1, MAX_SHARDS)? as u32;
        }
        if let Some(d) = v.dynamic {
            p.dynamic = d;
        }
        if let Some(m) = &v.max_objs_per_shard {
            p.max_objs_per_shard = positive(m, "embedded.index.max_objs_per_shard")?;
        }
        if let Some(d) = &v.check_interval {
            p.check_interval = duration(d, "embedded.index.check_interval")?;
            if p.check_interval < rgw_index::MIN_CHECK_INTERVAL {
                return at(
                    loc_of(d),
                    format!(
                        "`check_interval` must be at least {}",
                        humantime::format_duration(rgw_index::MIN_CHECK_INTERVAL)
                    ),
                );
            }
        }
        if let Some(d) = &v.reshard_time_per_object {
            p.reshard_time_per_object = duration(d, "embedded.index.reshard_time_per_object")?;
        }
        if let Some(d) = &v.retry_step {
            p.retry_step = duration(d, "embedded.index.retry_step")?;
            if p.retry_step.is_zero() {
                return at(loc_of(d), "`retry_step` must be longer than zero");
            }
        }
        if let Some(d) = &v.list_time_per_shard {
            p.list_time_per_shard = duration(d, "embedded.index.list_time_per_shard")?;
        }
    }
    if let Some(l) = &e.latency {
        plan.latency = latency(&l.value)?;
    }
    if let Some(f) = &e.faults {
        plan.faults = faults(f)?;
    }
    if let Some(m) = &e.max_memory {
        plan.max_memory = Some(max_memory(m)?);
    }
    if let Some(n) = &e.max_inflight {
        let most = i64::from(crate::plan::MAX_INFLIGHT);
        plan.max_inflight = Some(in_range(n, "embedded.max_inflight", 1, most)? as u32);
    }
    Ok(plan)
}

/// Smallest budget accepted: room for a few objects at least.
const MIN_MAX_MEMORY: u64 = 64 << 10;

/// `embedded.max_memory`: a size such as `512MiB`.
fn max_memory(m: &Spanned<RawSize>) -> R<u64> {
    let text = match &m.value {
        RawSize::Bytes(n) => n.to_string(),
        RawSize::Text(t) => t.clone(),
        RawSize::Weighted(_) => {
            return at(
                loc_of(m),
                "`embedded.max_memory` is one size, e.g. `512MiB` or `4GiB`",
            );
        }
    };
    let n = match crate::size::parse_size(&text) {
        Ok(n) => n,
        Err(e) => return at(loc_of(m), format!("`embedded.max_memory`: {e}")),
    };
    if n < MIN_MAX_MEMORY {
        return at(
            loc_of(m),
            format!("`embedded.max_memory` must be at least 64KiB, not {text}"),
        );
    }
    Ok(n)
}

/// A name in `latency` or `faults.ops` that is not an object operation.
#[derive(Debug, thiserror::Error)]
#[error("unknown operation {name:?} in `{field}`; use put, get, head, list or delete")]
struct UnknownOp {
    name: String,
    field: &'static str,
}

/// An object operation named in `latency` or `faults.ops`.
fn object_op(name: &str, field: &'static str) -> Result<OpKind, UnknownOp> {
    Ok(match name {
        "put" => OpKind::Put,
        "get" => OpKind::Get,
        "head" => OpKind::Head,
        "list" => OpKind::List,
        "delete" => OpKind::Delete,
        other => {
            return Err(UnknownOp {
                name: other.to_string(),
                field,
            });
        }
    })
}

fn latency(raw: &BTreeMap<String, Spanned<String>>) -> R<BTreeMap<OpKind, DelayPlan>> {
    let mut out = BTreeMap::new();
    for (op, text) in raw {
        let kind = object_op(op, "latency").or_else(|m| at(loc_of(text), m.to_string()))?;
        let delay = text.value.trim().parse::<keystorm_types::Delay>().map_err(|e| {
            super::validate::Located {
                line: text.referenced.line() as usize,
                column: text.referenced.column() as usize,
                message: format!(
                    "`latency.{op}: {}`: {e}; write e.g. `2ms`, `1ms..3ms`, `exp:2ms` or `lognormal:2ms,20ms`",
                    text.value
                ),
            }
        })?;
        out.insert(
            kind,
            DelayPlan {
                text: text.value.trim().to_string(),
                delay,
            },
        );
    }
    Ok(out)
}

fn faults(raw: &Spanned<RawFaults>) -> R<FaultsPlan> {
    let f = &raw.value;
    // `of`: what the rate is a fraction of.
    let fraction = |v: &Option<Spanned<f64>>, what: &str, of: &str| -> R<f64> {
        match v {
            None => Ok(0.0),
            Some(r) if (0.0..=1.0).contains(&r.value) => Ok(r.value),
            Some(r) => at(
                loc_of(r),
                format!(
                    "`faults.{what}` is a fraction of {of} between 0 and 1, not {}",
                    r.value
                ),
            ),
        }
    };
    let rate = |v: &Option<Spanned<f64>>, what: &str| fraction(v, what, "requests");
    let plan = FaultsPlan {
        slow_down: rate(&f.slow_down, "slow_down")?,
        internal_error: rate(&f.internal_error, "internal_error")?,
        reset: rate(&f.reset, "reset")?,
        stall: rate(&f.stall, "stall")?,
        key_error: rate(&f.key_error, "key_error")?,
        corrupt: rate(&f.corrupt, "corrupt")?,
        lose_on_reshard: fraction(
            &f.lose_on_reshard,
            "lose_on_reshard",
            "the index entries a reshard moves",
        )?,
        list_twice: fraction(&f.list_twice, "list_twice", "the continued listing pages")?,
        stall_time: match &f.stall_time {
            Some(d) => duration(d, "faults.stall_time")?,
            None => FaultsPlan::default().stall_time,
        },
        seed: match &f.seed {
            Some(s) => in_range(s, "faults.seed", 0, i64::MAX)? as u64,
            None => 0,
        },
        ops: f
            .ops
            .iter()
            .flatten()
            .map(|op| {
                object_op(op.value.trim(), "faults.ops").or_else(|m| at(loc_of(op), m.to_string()))
            })
            .collect::<R<_>>()?,
    };
    let total = plan.request_rates();
    if total > 1.0 {
        return at(
            loc_of(raw),
            format!("the fault rates add up to {total}; together they must not exceed 1"),
        );
    }
    if plan.stall > 0.0 && plan.stall_time.is_zero() {
        return at(
            loc_of(raw),
            "`faults.stall` needs a `stall_time` longer than zero",
        );
    }
    Ok(plan)
}

pub fn stalls(raw: Option<Spanned<RawStalls>>) -> R<StallPlan> {
    let mut plan = StallPlan::default();
    let Some(raw) = raw else { return Ok(plan) };
    let s = raw.value;
    if let Some(t) = &s.throughput_below {
        if !(t.value > 0.0 && t.value < 1.0) {
            return at(
                loc_of(t),
                format!(
                    "`stalls.throughput_below` is a fraction between 0 and 1, not {}",
                    t.value
                ),
            );
        }
        plan.throughput_below = t.value;
    }
    if let Some(p) = &s.p99_above {
        if p.value <= 1.0 || !p.value.is_finite() {
            return at(
                loc_of(p),
                format!("`stalls.p99_above` is a factor above 1, not {}", p.value),
            );
        }
        plan.p99_above = p.value;
    }
    if let Some(m) = &s.min_intervals {
        plan.min_intervals = in_range(m, "stalls.min_intervals", 1, 3600)? as u32;
    }
    Ok(plan)
}
