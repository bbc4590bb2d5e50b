//! `target.endpoints` and how a run spreads its requests over them: the spread, what a
//! lost endpoint does, and when one counts as lost.

use serde_saphyr::Spanned;

use super::access::endpoint_url;
use super::values::{R, at, duration, in_range, loc_of};
use crate::plan::{GatewaysPlan, OnEndpointDown, Spread};
use crate::spec::raw::RawTarget;

/// Most endpoints one run drives.
pub(super) const MAX_ENDPOINTS: usize = 64;

/// The endpoint URLs of `endpoints:` (at least one, none twice), or `None` when the
/// target names one `endpoint` (or none).
pub(super) fn endpoint_list(t: &Spanned<RawTarget>) -> R<Option<Vec<String>>> {
    let Some(list) = &t.value.endpoints else {
        return Ok(None);
    };
    if let Some(one) = &t.value.endpoint {
        return at(
            loc_of(one),
            "give either `endpoint` or `endpoints`, not both",
        );
    }
    if list.value.is_empty() {
        return at(loc_of(list), "`endpoints` needs at least one URL");
    }
    if list.value.len() > MAX_ENDPOINTS {
        return at(
            loc_of(list),
            format!(
                "`endpoints` lists {} URLs; at most {MAX_ENDPOINTS}",
                list.value.len()
            ),
        );
    }
    let mut urls: Vec<String> = Vec::with_capacity(list.value.len());
    for e in &list.value {
        if e.value.trim() == "embedded" {
            return at(
                loc_of(e),
                "`endpoints` takes URLs; for the embedded target write `endpoint: embedded`",
            );
        }
        let url = endpoint_url(e)?;
        if urls.contains(&url) {
            return at(loc_of(e), format!("endpoint {url:?} is listed twice"));
        }
        urls.push(url);
    }
    Ok(Some(urls))
}

/// The spread and health settings (defaults where not given).
pub(super) fn gateways(t: &Spanned<RawTarget>) -> R<GatewaysPlan> {
    let d = GatewaysPlan::default();
    let v = &t.value;
    let spread = match &v.spread {
        None => d.spread,
        Some(s) => match s.value.trim() {
            "per_worker" => Spread::PerWorker,
            "round_robin" => Spread::RoundRobin,
            "least_outstanding" => Spread::LeastOutstanding,
            other => {
                return at(
                    loc_of(s),
                    format!(
                        "unknown spread {other:?}; use `per_worker`, `round_robin` or \
                         `least_outstanding`"
                    ),
                );
            }
        },
    };
    let on_down = match &v.on_endpoint_down {
        None => d.on_down,
        Some(s) => match s.value.trim() {
            "shift" => OnEndpointDown::Shift,
            "count" => OnEndpointDown::Count,
            other => {
                return at(
                    loc_of(s),
                    format!("unknown on_endpoint_down {other:?}; use `shift` or `count`"),
                );
            }
        },
    };
    let (mut down_after, mut probe, mut probe_max) = (d.down_after, d.probe, d.probe_max);
    if let Some(h) = &v.endpoint_health {
        if let Some(n) = &h.value.down_after {
            down_after = in_range(n, "down_after", 1, 1_000_000)? as u32;
        }
        if let Some(p) = &h.value.probe {
            probe = duration(p, "probe")?;
            if probe.is_zero() {
                return at(loc_of(p), "`probe` must be longer than zero");
            }
        }
        if let Some(p) = &h.value.probe_max {
            probe_max = duration(p, "probe_max")?;
            if probe_max < probe {
                return at(
                    loc_of(p),
                    format!(
                        "`probe_max` ({}) is shorter than `probe` ({})",
                        humantime::format_duration(probe_max),
                        humantime::format_duration(probe)
                    ),
                );
            }
        } else {
            probe_max = probe_max.max(probe);
        }
    }
    Ok(GatewaysPlan {
        spread,
        on_down,
        down_after,
        probe,
        probe_max,
    })
}
