//! Raw workload -> [`Plan`]: defaults filled in, every rule checked, every error
//! pointing at the line and column of the value at fault.

use std::collections::HashSet;
use std::time::Duration;

use serde_saphyr::{Location, Spanned};

use super::SpecWarning;
use super::raw::*;
use super::template::parse_template;
use crate::listing::ListMode;
use crate::ops::OpKind;
use crate::plan::*;
use crate::s3::ClientKind;
use crate::size::{UNITS_HELP, parse_size};

/// A validation error at a position.
#[derive(Debug)]
pub struct Located {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

pub(super) type R<T> = Result<T, Located>;

pub(super) fn at<T>(loc: &Location, message: impl Into<String>) -> R<T> {
    Err(Located {
        line: loc.line() as usize,
        column: loc.column() as usize,
        message: message.into(),
    })
}

pub(super) fn loc_of<T>(s: &Spanned<T>) -> &Location {
    &s.referenced
}

/// Listers feeding a metadata scan's HEAD workers unless `list_concurrency` says.
const DEFAULT_SCAN_LISTERS: u32 = 4;

/// Default per-request timeout: long enough for big objects, short enough to notice a hang.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
const DEFAULT_CONCURRENCY: i64 = 16;
const MAX_CONCURRENCY: i64 = 100_000;
const MAX_OBJECT_SIZE: u64 = 5 << 30;
/// How often a running phase saves its progress unless `checkpoint_every` says.
const DEFAULT_CHECKPOINT_EVERY: Duration = Duration::from_secs(5);
const MIN_CHECKPOINT_EVERY: Duration = Duration::from_secs(1);
const MAX_CHECKPOINT_EVERY: Duration = Duration::from_secs(3600);

pub fn validate(raw: RawWorkload, warnings: &mut Vec<SpecWarning>) -> R<Plan> {
    let name = raw.name.value.trim().to_string();
    if name.is_empty() {
        return at(loc_of(&raw.name), "`name` must not be empty");
    }
    let buckets = buckets(raw.buckets)?;
    let target = target(raw.target, buckets.index.is_some(), warnings)?;
    let stalls = super::rgw::stalls(raw.stalls)?;
    let checkpoint_every = match &raw.checkpoint_every {
        Some(v) => {
            let every = duration(v, "checkpoint_every")?;
            if !(MIN_CHECKPOINT_EVERY..=MAX_CHECKPOINT_EVERY).contains(&every) {
                return at(
                    loc_of(v),
                    "`checkpoint_every` is between 1s and 1h: a crash costs at most this much work",
                );
            }
            every
        }
        None => DEFAULT_CHECKPOINT_EVERY,
    };
    let keyspace = keyspace(raw.keyspace)?;
    let objects = objects(raw.objects)?;

    let before = phases(raw.before.unwrap_or_default(), "before")?;
    let rounds = match raw.rounds {
        Some(r) => {
            let loc = *loc_of(&r);
            let count = match &r.value.count {
                Some(c) => positive(c, "rounds.count")? as u32,
                None => 1,
            };
            if r.value.phases.is_empty() {
                return at(
                    &loc,
                    "`rounds.phases` is empty: give the phases each round runs",
                );
            }
            RoundsAt {
                count,
                phases: phases(r.value.phases, "rounds")?,
            }
        }
        None => RoundsAt {
            count: 0,
            phases: Vec::new(),
        },
    };
    let after = phases(raw.after.unwrap_or_default(), "after")?;
    if before.is_empty() && rounds.phases.is_empty() && after.is_empty() {
        return at(
            loc_of(&raw.name),
            "the workload has no phases: add `before`, `rounds` or `after`",
        );
    }
    check_window(keyspace.existing, &before, &rounds, &after)?;
    if buckets.names.len() > 1
        && let Some((_, loc)) = before
            .iter()
            .chain(&rounds.phases)
            .chain(&after)
            .find(|(p, _)| p.transfer.is_some())
    {
        return at(
            loc,
            format!(
                "a download or upload phase works on one bucket, and the workload names {}",
                buckets.names.len()
            ),
        );
    }
    let cleanup = raw
        .cleanup
        .map(|c| CleanupPlan {
            objects: c.objects.unwrap_or(false),
            buckets: c.buckets.unwrap_or(false),
        })
        .unwrap_or_default();
    let strip = |v: Vec<PhaseAt>| v.into_iter().map(|(p, _)| p).collect();
    Ok(Plan {
        name,
        description: raw.description,
        target,
        buckets,
        keyspace,
        objects,
        before: strip(before),
        rounds: RoundsPlan {
            count: rounds.count,
            phases: strip(rounds.phases),
        },
        after: strip(after),
        cleanup,
        stalls,
        checkpoint_every,
    })
}

/// Rounds with each phase's position, before they become a plan.
struct RoundsAt {
    count: u32,
    phases: Vec<PhaseAt>,
}

/// Follows the live window through the phases wherever its size is known, and refuses
/// what cannot work: a fill below the current size, a drain above it, more deletes
/// than objects, reads from a keyspace that is certainly empty.
fn check_window(existing: u64, before: &[PhaseAt], rounds: &RoundsAt, after: &[PhaseAt]) -> R<()> {
    let mut known = Some(existing);
    // Two rounds are enough to see what a round does to the next one.
    let rounds_twice = (0..rounds.count.min(2)).flat_map(|_| rounds.phases.iter());
    for (p, loc) in before.iter().chain(rounds_twice).chain(after.iter()) {
        known = match (&p.work, &p.end) {
            (PhaseWork::Single(OpKind::Put), PhaseEnd::UntilObjects(n)) => {
                if let Some(k) = known
                    && *n < k
                {
                    return at(
                        loc,
                        format!(
                            "phase {:?} fills to {n} objects, but the keyspace holds {k} at this point: the fill target is below its current size",
                            p.name
                        ),
                    );
                }
                Some(*n)
            }
            (PhaseWork::Single(OpKind::Put), PhaseEnd::Operations(k)) => known.map(|s| s + k),
            (PhaseWork::Single(OpKind::Delete), PhaseEnd::UntilObjects(n)) => {
                if let Some(k) = known
                    && *n > k
                {
                    return at(
                        loc,
                        format!(
                            "phase {:?} drains to {n} objects, but the keyspace holds only {k} at this point",
                            p.name
                        ),
                    );
                }
                Some(*n)
            }
            (PhaseWork::Single(OpKind::Delete), PhaseEnd::Operations(k)) => match known {
                Some(s) if *k > s => {
                    return at(
                        loc,
                        format!(
                            "phase {:?} deletes {k} objects, but the keyspace holds only {s} at this point",
                            p.name
                        ),
                    );
                }
                Some(s) => Some(s - k),
                None => None,
            },
            // A metadata scan or a transfer moves what it finds, not the window.
            (PhaseWork::Single(OpKind::Head | OpKind::Get | OpKind::Put), PhaseEnd::ListOnce) => {
                known
            }
            (PhaseWork::Single(op @ (OpKind::Get | OpKind::Head | OpKind::Delete)), _) => {
                if known == Some(0) {
                    return at(
                        loc,
                        format!(
                            "phase {:?} would {op} from an empty keyspace: put objects first (or set `keyspace.existing`)",
                            p.name
                        ),
                    );
                }
                if *op == OpKind::Delete { None } else { known }
            }
            (PhaseWork::Single(OpKind::Put), _) => None,
            (PhaseWork::Single(OpKind::List), _) => known,
            (PhaseWork::Mix(w), _) => {
                let puts = w.iter().any(|(k, _)| *k == OpKind::Put);
                if known == Some(0) && !puts {
                    return at(
                        loc,
                        format!(
                            "mix {:?} reads from an empty keyspace and never puts: put objects first",
                            p.name
                        ),
                    );
                }
                None
            }
        };
    }
    Ok(())
}

pub(super) fn positive(v: &Spanned<i64>, what: &str) -> R<u64> {
    if v.value <= 0 {
        return at(
            loc_of(v),
            format!("`{what}` must be a positive number, not {}", v.value),
        );
    }
    Ok(v.value as u64)
}

fn non_negative(v: &Spanned<i64>, what: &str) -> R<u64> {
    if v.value < 0 {
        return at(
            loc_of(v),
            format!("`{what}` must not be negative ({})", v.value),
        );
    }
    Ok(v.value as u64)
}

pub(super) fn in_range(v: &Spanned<i64>, what: &str, lo: i64, hi: i64) -> R<i64> {
    if v.value < lo || v.value > hi {
        return at(
            loc_of(v),
            format!("`{what}` must be between {lo} and {hi}, not {}", v.value),
        );
    }
    Ok(v.value)
}

pub(super) fn duration(v: &Spanned<RawDuration>, what: &str) -> R<Duration> {
    match &v.value {
        RawDuration::Number(n) => at(
            loc_of(v),
            format!("`{what}: {n}` needs a unit, e.g. `{n}s`, `2m`, `1h30m`"),
        ),
        RawDuration::Text(t) => humantime::parse_duration(t.trim()).map_err(|e| Located {
            line: v.referenced.line() as usize,
            column: v.referenced.column() as usize,
            message: format!(
                "`{what}: {t}` is not a duration ({e}); write e.g. `30s`, `5m`, `1h30m`"
            ),
        }),
    }
}

fn target(
    raw: Option<Spanned<RawTarget>>,
    index_set: bool,
    warnings: &mut Vec<SpecWarning>,
) -> R<TargetPlan> {
    let Some(raw) = raw else {
        return Ok(TargetPlan {
            endpoint: Endpoint::Embedded {
                storage: EmbeddedStorage::Memory,
            },
            region: "us-east-1".to_string(),
            path_style: true,
            client: ClientKind::Fast,
            credentials: CredentialSource::Default,
            tls: TlsPlan::default(),
            timeout: Some(DEFAULT_TIMEOUT),
            retries: 0,
            checksums: false,
            payload_signing: false,
            embedded: super::rgw::embedded(None, index_set)?,
            rgw: RgwPlan::default(),
        });
    };
    let t = raw.value;
    let storage = match &t.embedded {
        Some(e) => match &e.value.storage {
            Some(s) => match s.value.as_str() {
                "memory" => EmbeddedStorage::Memory,
                "size-only" => EmbeddedStorage::SizeOnly,
                other => {
                    return at(
                        loc_of(s),
                        format!("unknown embedded storage {other:?}; use `memory` or `size-only`"),
                    );
                }
            },
            None => EmbeddedStorage::Memory,
        },
        None => EmbeddedStorage::Memory,
    };
    let endpoint = match &t.endpoint {
        None => Endpoint::Embedded { storage },
        Some(e) if e.value.trim() == "embedded" => Endpoint::Embedded { storage },
        Some(e) => {
            if let Some(emb) = &t.embedded {
                return at(
                    loc_of(emb),
                    "`embedded` options only apply with `endpoint: embedded`",
                );
            }
            Endpoint::Url(endpoint_url(e)?)
        }
    };
    if let Some(tls) = &t.tls
        && let Endpoint::Url(u) = &endpoint
        && u.starts_with("http://")
        && (tls.value.ca_file.is_some() || tls.value.insecure_skip_verify == Some(true))
    {
        return at(loc_of(tls), "`tls` options need an https:// endpoint");
    }
    if let (Some(tls), Endpoint::Embedded { .. }) = (&t.tls, &endpoint) {
        return at(
            loc_of(tls),
            "`tls` options need an https:// endpoint, not `embedded`",
        );
    }
    let client = match &t.client {
        None => ClientKind::Fast,
        Some(c) => match c.value.as_str() {
            "fast" => ClientKind::Fast,
            "sdk" => ClientKind::Sdk,
            other => {
                return at(
                    loc_of(c),
                    format!("unknown client {other:?}; use `fast` or `sdk`"),
                );
            }
        },
    };
    let credentials = match &t.credentials {
        None => CredentialSource::Default,
        Some(c) => credentials(c, warnings)?,
    };
    let timeout = match &t.timeout {
        None => Some(DEFAULT_TIMEOUT),
        Some(v) if matches!(&v.value, RawDuration::Text(s) if s.trim() == "none") => None,
        Some(v) => {
            let d = duration(v, "timeout")?;
            if d.is_zero() {
                return at(loc_of(v), "`timeout` must be longer than zero (or `none`)");
            }
            Some(d)
        }
    };
    let retries = match &t.retries {
        Some(r) => in_range(r, "retries", 0, 100)? as u32,
        None => 0,
    };
    let embedded = super::rgw::embedded(t.embedded.as_ref(), index_set)?;
    let rgw = super::rgw::rgw(t.rgw.as_ref(), warnings)?;
    let region = t.region.unwrap_or_else(|| "us-east-1".to_string());
    let tls = t
        .tls
        .map(|tls| TlsPlan {
            ca_file: tls.value.ca_file.map(Into::into),
            insecure_skip_verify: tls.value.insecure_skip_verify.unwrap_or(false),
        })
        .unwrap_or_default();
    Ok(TargetPlan {
        endpoint,
        region,
        path_style: t.path_style.unwrap_or(true),
        client,
        credentials,
        tls,
        timeout,
        retries,
        checksums: t.checksums.unwrap_or(false),
        payload_signing: t.payload_signing.unwrap_or(false),
        embedded,
        rgw,
    })
}

pub(super) fn endpoint_url(e: &Spanned<String>) -> R<String> {
    let url = e.value.trim().trim_end_matches('/');
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"));
    let Some(rest) = rest else {
        return at(
            loc_of(e),
            format!("endpoint {url:?} must be `embedded` or start with http:// or https://"),
        );
    };
    if rest.is_empty() || rest.contains(['/', '?', '#', ' ']) {
        return at(
            loc_of(e),
            format!("endpoint {url:?} must be scheme://host[:port], without a path or query"),
        );
    }
    if let Some((_, port)) = rest.rsplit_once(':')
        && !rest.ends_with(']')
        && port.parse::<u16>().is_err()
    {
        return at(
            loc_of(e),
            format!("endpoint {url:?} has a bad port {port:?}"),
        );
    }
    Ok(url.to_string())
}

pub(super) fn credentials(
    c: &Spanned<RawCredentials>,
    warnings: &mut Vec<SpecWarning>,
) -> R<CredentialSource> {
    let v = &c.value;
    let forms = [
        v.env.is_some(),
        v.profile.is_some(),
        v.access_key.is_some() || v.secret_key.is_some(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    if forms != 1 {
        return at(
            loc_of(c),
            "`credentials` takes exactly one of `env`, `profile`, or `access_key` with `secret_key`",
        );
    }
    if let Some(env) = &v.env {
        return Ok(CredentialSource::Env {
            access_key_var: env
                .access_key
                .clone()
                .unwrap_or_else(|| "AWS_ACCESS_KEY_ID".into()),
            secret_key_var: env
                .secret_key
                .clone()
                .unwrap_or_else(|| "AWS_SECRET_ACCESS_KEY".into()),
            session_token_var: env
                .session_token
                .clone()
                .unwrap_or_else(|| "AWS_SESSION_TOKEN".into()),
        });
    }
    if let Some(p) = &v.profile {
        return Ok(CredentialSource::Profile(p.clone()));
    }
    match (&v.access_key, &v.secret_key) {
        (Some(a), Some(s)) => {
            warnings.push(SpecWarning {
                line: s.referenced.line() as usize,
                column: s.referenced.column() as usize,
                message: "inline secret key in the workload file; prefer `credentials: { env: ... }` or a profile"
                    .to_string(),
            });
            Ok(CredentialSource::Inline {
                access_key_id: a.value.clone(),
                secret_access_key: s.value.clone(),
            })
        }
        _ => at(
            loc_of(c),
            "inline credentials need both `access_key` and `secret_key`",
        ),
    }
}

fn bucket_name(n: &Spanned<String>) -> R<String> {
    let s = n.value.as_str();
    let ok_chars = s
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'-');
    let ends_ok = s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && s.bytes().last().is_some_and(|b| b.is_ascii_alphanumeric());
    if !(3..=63).contains(&s.len()) || !ok_chars || !ends_ok || s.contains("..") {
        return at(
            loc_of(n),
            format!(
                "bad bucket name {s:?}: 3-63 characters of lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit"
            ),
        );
    }
    Ok(s.to_string())
}

fn buckets(raw: Spanned<RawBuckets>) -> R<BucketsPlan> {
    let loc = *loc_of(&raw);
    let b = raw.value;
    let forms = [
        b.names.is_some(),
        b.name.is_some(),
        b.prefix.is_some() || b.count.is_some(),
    ]
    .iter()
    .filter(|x| **x)
    .count();
    if forms != 1 {
        return at(
            &loc,
            "`buckets` takes exactly one of `names: [...]`, `name: ...`, or `prefix` with `count`",
        );
    }
    let mut names = Vec::new();
    if let Some(list) = &b.names {
        if list.is_empty() {
            return at(&loc, "`buckets.names` is empty");
        }
        for n in list {
            names.push((bucket_name(n)?, *loc_of(n)));
        }
    } else if let Some(n) = &b.name {
        names.push((bucket_name(n)?, *loc_of(n)));
    } else {
        let (Some(prefix), Some(count)) = (&b.prefix, &b.count) else {
            return at(&loc, "`buckets.prefix` and `buckets.count` go together");
        };
        let count = in_range(count, "buckets.count", 1, 1000)?;
        for i in 0..count {
            let spanned = Spanned {
                value: format!("{}{i}", prefix.value),
                referenced: prefix.referenced,
                defined: prefix.defined,
            };
            names.push((bucket_name(&spanned)?, *loc_of(prefix)));
        }
    }
    let mut seen = HashSet::new();
    for (n, l) in &names {
        if !seen.insert(n.clone()) {
            return at(l, format!("bucket {n:?} is listed twice"));
        }
    }
    Ok(BucketsPlan {
        names: names.into_iter().map(|(n, _)| n).collect(),
        create: b.create.unwrap_or(true),
        index: super::rgw::bucket_index(&b.index)?,
    })
}

fn keyspace(raw: Option<Spanned<RawKeyspace>>) -> R<KeyspacePlan> {
    let Some(raw) = raw else {
        return Ok(KeyspacePlan {
            seed: 1,
            prefix: String::new(),
            layout: KeyLayout::Random,
            key_length: 16,
            existing: 0,
        });
    };
    let loc = *loc_of(&raw);
    let k = raw.value;
    let layout_name = k
        .layout
        .as_ref()
        .map(|l| l.value.as_str())
        .unwrap_or("random");
    let tree_only = |v: &Option<Spanned<i64>>, what: &str| -> R<()> {
        match v {
            Some(v) if layout_name != "tree" => at(
                loc_of(v),
                format!("`{what}` only applies to `layout: tree`"),
            ),
            _ => Ok(()),
        }
    };
    tree_only(&k.fanout, "fanout")?;
    tree_only(&k.depth, "depth")?;
    let (layout, min_len, default_len) = match layout_name {
        "random" => (KeyLayout::Random, 12, 16),
        "sequential" => (KeyLayout::Sequential, 1, 12),
        "tree" => {
            let fanout = match &k.fanout {
                Some(f) => in_range(f, "fanout", 2, 1_000_000)? as u32,
                None => 16,
            };
            let depth = match &k.depth {
                Some(d) => in_range(d, "depth", 1, 32)? as u32,
                None => 3,
            };
            (KeyLayout::Tree { fanout, depth }, 12, 16)
        }
        other => {
            let l = k.layout.as_ref().map(loc_of).copied().unwrap_or(loc);
            return at(
                &l,
                format!("unknown layout {other:?}; use `random`, `sequential` or `tree`"),
            );
        }
    };
    let key_length = match &k.key_length {
        Some(v) => in_range(v, "key_length", min_len, 512)? as usize,
        None => default_len,
    };
    let prefix = match &k.prefix {
        Some(p) => {
            if p.value.starts_with('/') {
                return at(loc_of(p), "`prefix` must not start with `/`");
            }
            if p.value.len() > 512 {
                return at(loc_of(p), "`prefix` is longer than 512 bytes");
            }
            p.value.clone()
        }
        None => String::new(),
    };
    Ok(KeyspacePlan {
        seed: match &k.seed {
            Some(s) => non_negative(s, "seed")?,
            None => 1,
        },
        prefix,
        layout,
        key_length,
        existing: match &k.existing {
            Some(e) => non_negative(e, "existing")?,
            None => 0,
        },
    })
}

fn objects(raw: Option<Spanned<RawObjects>>) -> R<ObjectsPlan> {
    let Some(raw) = raw else {
        return Ok(ObjectsPlan {
            size: SizeDist::Fixed { bytes: 1024 },
            content: Content::Random,
            metadata: Vec::new(),
        });
    };
    let o = raw.value;
    let size = match &o.size {
        Some(s) => size_dist(s)?,
        None => SizeDist::Fixed { bytes: 1024 },
    };
    let content = match &o.content {
        None => Content::Random,
        Some(c) => match c.value.as_str() {
            "random" => Content::Random,
            "zero" => Content::Zero,
            other => {
                return at(
                    loc_of(c),
                    format!("unknown content {other:?}; use `random` or `zero`"),
                );
            }
        },
    };
    let mut metadata = Vec::new();
    for (name, template) in o.metadata.unwrap_or_default() {
        let valid = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
        if !valid {
            return at(
                loc_of(&template),
                format!("metadata name {name:?}: use lowercase letters, digits, `-` and `_`"),
            );
        }
        let t = parse_template(&template.value).map_err(|m| Located {
            line: template.referenced.line() as usize,
            column: template.referenced.column() as usize,
            message: m,
        })?;
        metadata.push((name, t));
    }
    Ok(ObjectsPlan {
        size,
        content,
        metadata,
    })
}

fn size_dist(s: &Spanned<RawSize>) -> R<SizeDist> {
    let loc = loc_of(s);
    let one = |text: &str| -> R<u64> {
        let n = parse_size(text).map_err(|m| Located {
            line: loc.line() as usize,
            column: loc.column() as usize,
            message: format!("`size`: {m}"),
        })?;
        if n > MAX_OBJECT_SIZE {
            return at(
                loc,
                format!("`size`: {text} is larger than the 5 GiB S3 single-PUT limit"),
            );
        }
        Ok(n)
    };
    match &s.value {
        RawSize::Bytes(n) => Ok(SizeDist::Fixed {
            bytes: one(&n.to_string())?,
        }),
        RawSize::Text(t) => {
            // `1KiB-4KiB`: a range (no size text contains `-` otherwise).
            match t.split_once('-') {
                Some((lo, hi)) => {
                    let (min, max) = (one(lo)?, one(hi)?);
                    if min > max {
                        return at(
                            loc,
                            format!("`size: {t}`: the range's minimum is above its maximum"),
                        );
                    }
                    Ok(if min == max {
                        SizeDist::Fixed { bytes: min }
                    } else {
                        SizeDist::Uniform { min, max }
                    })
                }
                None => Ok(SizeDist::Fixed { bytes: one(t)? }),
            }
        }
        RawSize::Weighted(map) => {
            if map.is_empty() {
                return at(
                    loc,
                    format!("`size` map is empty; e.g. {{4KiB: 70, 1MiB: 30}} ({UNITS_HELP})"),
                );
            }
            let mut choices = Vec::new();
            for (text, weight) in map {
                if *weight <= 0 {
                    return at(
                        loc,
                        format!("`size` weight for {text} must be positive, not {weight}"),
                    );
                }
                let w = u32::try_from(*weight).map_err(|_| Located {
                    line: loc.line() as usize,
                    column: loc.column() as usize,
                    message: format!("`size` weight {weight} is too large"),
                })?;
                choices.push((one(text)?, w));
            }
            choices.sort();
            Ok(SizeDist::Weighted { choices })
        }
    }
}

/// A phase with the position of its entry, for window checks.
type PhaseAt = (PhasePlan, Location);

fn op_kind(name: &str) -> Option<OpKind> {
    OpKind::parse(name)
}

const OPS_HELP: &str = "put, get, head, list, delete, download, upload";

fn phases(raw: Vec<Spanned<RawPhase>>, section: &str) -> R<Vec<PhaseAt>> {
    let mut out: Vec<PhaseAt> = Vec::new();
    let mut names: HashSet<String> = HashSet::new();
    for p in raw {
        let loc = *loc_of(&p);
        let plan = phase(p, section)?;
        let mut name = plan.name.clone();
        if names.contains(&name) {
            if plan.name_given {
                return at(
                    &loc,
                    format!("phase name {name:?} is used twice in `{section}`"),
                );
            }
            let mut n = 2;
            while names.contains(&format!("{name}-{n}")) {
                n += 1;
            }
            name = format!("{name}-{n}");
        }
        names.insert(name.clone());
        let mut plan = plan.plan;
        plan.name = name;
        out.push((plan, loc));
    }
    Ok(out)
}

struct NamedPhase {
    name: String,
    name_given: bool,
    plan: PhasePlan,
}

impl std::ops::Deref for NamedPhase {
    type Target = PhasePlan;
    fn deref(&self) -> &PhasePlan {
        &self.plan
    }
}

fn phase(raw: Spanned<RawPhase>, section: &str) -> R<NamedPhase> {
    let loc = *loc_of(&raw);
    let p = raw.value;
    let transfer = super::transfer::plan(&p)?;
    let work = match (&p.op, &p.mix) {
        (Some(_), None) if transfer.is_some() => PhaseWork::Single(match &transfer {
            Some(t) if t.direction == TransferDirection::Upload => OpKind::Put,
            _ => OpKind::Get,
        }),
        (Some(_), Some(m)) => return at(loc_of(m), "a phase has either `op` or `mix`, not both"),
        (None, None) => {
            return at(
                &loc,
                format!("a phase in `{section}` needs `op` ({OPS_HELP}) or `mix`"),
            );
        }
        (Some(op), None) => match op_kind(&op.value) {
            Some(k) => PhaseWork::Single(k),
            None => {
                return at(
                    loc_of(op),
                    format!("unknown op {:?}; use one of {OPS_HELP}", op.value),
                );
            }
        },
        (None, Some(m)) => {
            if m.value.is_empty() {
                return at(
                    loc_of(m),
                    "`mix` is empty; e.g. {get: 70, put: 20, list: 5, delete: 5}",
                );
            }
            let mut weights = Vec::new();
            for (name, w) in &m.value {
                let Some(k) = op_kind(name) else {
                    return at(
                        loc_of(w),
                        format!("unknown op {name:?} in `mix`; use {OPS_HELP}"),
                    );
                };
                if w.value <= 0 {
                    return at(
                        loc_of(w),
                        format!("`mix` weight of {name} must be positive, not {}", w.value),
                    );
                }
                let weight = u32::try_from(w.value).map_err(|_| Located {
                    line: w.referenced.line() as usize,
                    column: w.referenced.column() as usize,
                    message: format!("`mix` weight {} is too large", w.value),
                })?;
                weights.push((k, weight));
            }
            weights.sort_by_key(|(k, _)| *k);
            let weight_of = |k: OpKind| {
                weights
                    .iter()
                    .find(|(o, _)| *o == k)
                    .map(|(_, w)| *w)
                    .unwrap_or(0)
            };
            if weight_of(OpKind::Delete) > weight_of(OpKind::Put) {
                return at(
                    loc_of(m),
                    format!(
                        "deletes outrun puts in this `mix` (delete {} > put {}): the window would drain",
                        weight_of(OpKind::Delete),
                        weight_of(OpKind::Put)
                    ),
                );
            }
            PhaseWork::Mix(weights)
        }
    };
    let single = match &work {
        PhaseWork::Single(k) => Some(*k),
        PhaseWork::Mix(_) => None,
    };
    let (name, name_given) = match &p.name {
        Some(n) if n.value.trim().is_empty() => {
            return at(loc_of(n), "phase `name` must not be empty");
        }
        Some(n) => (n.value.trim().to_string(), true),
        None => (
            match (&transfer, single) {
                (Some(t), _) if t.direction == TransferDirection::Upload => "upload".into(),
                (Some(_), _) => "download".into(),
                (None, Some(k)) => k.as_str().to_string(),
                (None, None) => "mix".into(),
            },
            false,
        ),
    };
    let concurrency = match &p.concurrency {
        Some(c) => in_range(c, "concurrency", 1, MAX_CONCURRENCY)? as u32,
        None => DEFAULT_CONCURRENCY as u32,
    };
    let rate = match &p.rate {
        Some(r) if !(r.value > 0.0 && r.value.is_finite()) => {
            return at(
                loc_of(r),
                format!(
                    "`rate` must be a positive number of operations per second, not {}",
                    r.value
                ),
            );
        }
        Some(r) => Some(r.value),
        None => None,
    };
    let ends = [
        p.duration.is_some(),
        p.operations.is_some(),
        p.until_objects.is_some(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    if ends > 1 {
        return at(
            &loc,
            "give one end per phase: `duration`, `operations` or `until_objects`",
        );
    }
    let scan = scans_bucket(&p)?;
    let end = if transfer.is_some() {
        PhaseEnd::ListOnce
    } else if let Some(d) = &p.duration {
        let d2 = duration(d, "duration")?;
        if d2.is_zero() {
            return at(loc_of(d), "`duration` must be longer than zero");
        }
        PhaseEnd::Duration(d2)
    } else if let Some(n) = &p.operations {
        PhaseEnd::Operations(positive(n, "operations")?)
    } else if let Some(n) = &p.until_objects {
        if !matches!(single, Some(OpKind::Put) | Some(OpKind::Delete)) {
            return at(
                loc_of(n),
                "`until_objects` ends `put` (fill to N) or `delete` (drain to N) phases only",
            );
        }
        PhaseEnd::UntilObjects(non_negative(n, "until_objects")?)
    } else if single == Some(OpKind::List) || (single == Some(OpKind::Head) && scan) {
        PhaseEnd::ListOnce
    } else {
        return at(
            &loc,
            format!("phase {name:?} needs an end: `duration`, `operations` or `until_objects`"),
        );
    };
    let warmup = match &p.warmup {
        Some(w) => {
            let d = duration(w, "warmup")?;
            if let PhaseEnd::Duration(total) = end
                && d >= total
            {
                return at(
                    loc_of(w),
                    "`warmup` must be shorter than the phase's `duration`",
                );
            }
            d
        }
        None => Duration::ZERO,
    };
    let selection = match &p.select {
        None => Selection::Uniform,
        Some(s) => {
            let reads = match &work {
                PhaseWork::Single(k) => matches!(k, OpKind::Get | OpKind::Head),
                PhaseWork::Mix(w) => w
                    .iter()
                    .any(|(k, _)| matches!(k, OpKind::Get | OpKind::Head)),
            };
            if !reads {
                return at(loc_of(s), "`select` applies to phases that get or head");
            }
            match &s.value {
                RawSelect::Name(n) if n == "uniform" => Selection::Uniform,
                RawSelect::Name(n) => {
                    return at(
                        loc_of(s),
                        format!("unknown select {n:?}; use `uniform` or `{{zipf: 1.1}}`"),
                    );
                }
                RawSelect::Zipf { zipf } if *zipf > 0.0 && zipf.is_finite() => {
                    Selection::Zipf { exponent: *zipf }
                }
                RawSelect::Zipf { zipf } => {
                    return at(
                        loc_of(s),
                        format!("zipf exponent must be positive, not {zipf}"),
                    );
                }
            }
        }
    };
    let page_size = match &p.page_size {
        Some(v) => in_range(v, "page_size", 1, 1000)? as u32,
        None => 1000,
    };
    let max_error_rate = match &p.max_error_rate {
        Some(v) if !(0.0..=1.0).contains(&v.value) => {
            return at(
                loc_of(v),
                format!(
                    "`max_error_rate` is a fraction between 0 and 1, not {}",
                    v.value
                ),
            );
        }
        Some(v) => Some(v.value),
        None => None,
    };
    let listing = if transfer.is_some() {
        None
    } else {
        listing_plan(&p, &loc, &end)?
    };
    Ok(NamedPhase {
        name: name.clone(),
        name_given,
        plan: PhasePlan {
            name,
            work,
            concurrency,
            rate,
            warmup,
            end,
            selection,
            page_size,
            max_error_rate,
            listing,
            transfer,
        },
    })
}

/// `keys: bucket` (a metadata scan) or `keys: window` (the default) on a head phase.
fn scans_bucket(p: &RawPhase) -> R<bool> {
    match &p.keys {
        None => Ok(false),
        Some(k) if p.op.as_ref().is_none_or(|op| op.value.trim() != "head") => at(
            loc_of(k),
            "`keys` applies to `op: head` phases (`keys: bucket` scans every listed key)",
        ),
        Some(k) => match k.value.trim() {
            "bucket" => {
                for (field, given) in [
                    ("duration", p.duration.as_ref().map(loc_of)),
                    ("operations", p.operations.as_ref().map(loc_of)),
                ] {
                    if let Some(l) = given {
                        return at(
                            l,
                            format!("`keys: bucket` HEADs every listed key once: drop `{field}`"),
                        );
                    }
                }
                Ok(true)
            }
            "window" => Ok(false),
            other => at(
                loc_of(k),
                format!("unknown `keys` {other:?}; use `window` or `bucket`"),
            ),
        },
    }
}

/// The listing settings of a complete-listing or scan phase; an error where they are
/// given to any other phase.
fn listing_plan(p: &RawPhase, loc: &Location, end: &PhaseEnd) -> R<Option<ListingPlan>> {
    let scan =
        *end == PhaseEnd::ListOnce && p.op.as_ref().is_some_and(|op| op.value.trim() == "head");
    if *end != PhaseEnd::ListOnce {
        let given = [
            ("mode", p.mode.as_ref().map(loc_of)),
            ("prefix_depth", p.prefix_depth.as_ref().map(loc_of)),
            ("alphabet", p.alphabet.as_ref().map(loc_of)),
            ("delimiter", p.delimiter.as_ref().map(loc_of)),
            ("report", p.report.as_ref().map(loc_of)),
            ("prefix", p.prefix.as_ref().map(loc_of)),
            ("list_concurrency", p.list_concurrency.as_ref().map(loc_of)),
        ];
        if let Some((field, Some(l))) = given.into_iter().find(|(_, l)| l.is_some()) {
            return at(
                l,
                format!(
                    "`{field}` applies to complete listings only (`op: list` without \
                     `duration` or `operations`, or `op: head` with `keys: bucket`)"
                ),
            );
        }
        return Ok(None);
    }
    if let Some(l) = p.list_concurrency.as_ref().filter(|_| !scan) {
        return at(
            loc_of(l),
            "`list_concurrency` applies to scans (`op: head` with `keys: bucket`); a list phase's listers are its `concurrency`",
        );
    }
    let scan_listers = match (&p.list_concurrency, scan) {
        (Some(n), true) => Some(in_range(n, "list_concurrency", 1, 4096)? as u32),
        (None, true) => Some(DEFAULT_SCAN_LISTERS),
        _ => None,
    };
    let mode_name = p.mode.as_ref().map_or("serial", |m| m.value.trim());
    let only_for = |field: &str, l: Option<&Location>, mode: &str| match l {
        Some(l) if mode_name != mode => at(
            l,
            format!("`{field}` applies to `mode: {mode}` listings, not `{mode_name}`"),
        ),
        _ => Ok(()),
    };
    only_for(
        "prefix_depth",
        p.prefix_depth.as_ref().map(loc_of),
        "prefix",
    )?;
    only_for("alphabet", p.alphabet.as_ref().map(loc_of), "prefix")?;
    only_for("delimiter", p.delimiter.as_ref().map(loc_of), "adaptive")?;
    let mode = match mode_name {
        "serial" => ListMode::Serial,
        "prefix" => {
            let depth = match &p.prefix_depth {
                Some(d) => in_range(d, "prefix_depth", 1, 4)? as u32,
                None => 1,
            };
            let alphabet = match &p.alphabet {
                Some(a) if a.value.is_empty() => {
                    return at(loc_of(a), "`alphabet` must not be empty");
                }
                Some(a) => a.value.clone(),
                None => crate::listing::BASE62_ALPHABET.to_string(),
            };
            ListMode::Prefix { depth, alphabet }
        }
        "adaptive" => ListMode::Adaptive {
            delimiter: match &p.delimiter {
                Some(d) if d.value.is_empty() => None,
                Some(d) => Some(d.value.clone()),
                None => Some("/".to_string()),
            },
        },
        other => {
            let l = p.mode.as_ref().map(loc_of).unwrap_or(loc);
            return at(
                l,
                format!("unknown list mode {other:?}; use `serial`, `prefix` or `adaptive`"),
            );
        }
    };
    Ok(Some(ListingPlan {
        mode,
        report_depth: p.report.as_ref().is_some_and(|r| r.value).then_some(1),
        prefix: p.prefix.as_ref().map(|x| x.value.clone()),
        scan_listers,
    }))
}
