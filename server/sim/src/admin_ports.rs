//! The admin API's calls on the target's ports, so that a client in another process can
//! rehearse losing a gateway without a proxy in between:
//!
//! - `GET /admin/keystorm/ports`: every port, in the order opened, with its number,
//!   URL, whether it listens, the requests it received per S3 operation (admin calls
//!   aside) and in all, its own faults and what they injected;
//! - `POST /admin/keystorm/ports/P/close`: port P stops accepting connections and drops
//!   the open ones, requests in flight included, as when a gateway dies;
//! - `POST /admin/keystorm/ports/P/reopen`: port P listens again on its address;
//! - `POST /admin/keystorm/ports/P/faults?reset=0.5&ops=get,put&stall_time=2s&seed=7`:
//!   the port's own request faults (rates as fractions, or percentages with `%`),
//!   replacing what it had; with no rate, none.
//!
//! Each answers with the port as `GET` lists it. A call that would close the port it
//! came through is refused (its answer could not get out): send it through another.

use std::time::Duration;

use http::{Method, StatusCode};
use serde_json::{Value, json};

use crate::admin_call::{Call, Resp, explained, json_response};
use crate::port_list::Gateway;
use crate::request::{Op, parse_query};
use crate::state::State;
use crate::{FaultConfig, FaultCounts, ObjectOp};

const PREFIX: &str = "/admin/keystorm/ports";

/// The stall time of a port's faults when the call does not give one (as `keystorm sim
/// --stall-time`'s default).
const STALL_TIME: Duration = Duration::from_secs(5);

/// What follows `/admin/keystorm/ports` in `path` ("" for the list itself), if the
/// path is one of these calls.
pub(crate) fn path_of(path: &str) -> Option<&str> {
    let rest = path.trim_end_matches('/').strip_prefix(PREFIX)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

pub(crate) async fn handle(state: &State, call: &Call<'_>, rest: &str) -> Resp {
    let method = call.method;
    if rest.is_empty() {
        if method != Method::GET {
            return explained(
                StatusCode::METHOD_NOT_ALLOWED,
                "MethodNotAllowed",
                "the list of ports is read with GET",
            );
        }
        let mut ports = Vec::new();
        for p in state.ports.all() {
            ports.push(describe(&*p).await);
        }
        return ok(&Value::Array(ports));
    }
    let Some((number, action)) = rest.trim_start_matches('/').split_once('/') else {
        return no_such_call();
    };
    if !matches!(action, "close" | "reopen" | "faults") {
        return no_such_call();
    }
    if method != Method::POST {
        return explained(
            StatusCode::METHOD_NOT_ALLOWED,
            "MethodNotAllowed",
            &format!("`{action}` is a POST"),
        );
    }
    let Some(port) = number.parse::<u16>().ok().and_then(|n| state.ports.find(n)) else {
        return explained(
            StatusCode::NOT_FOUND,
            "NoSuchPort",
            &format!("the target does not listen on port {number}"),
        );
    };
    match action {
        "close" if port.number() == call.through => {
            return explained(
                StatusCode::CONFLICT,
                "ClosesItsOwnPort",
                &format!(
                    "this call came through port {number}, which it would close before \
                     answering: send it through another port of the target"
                ),
            );
        }
        "close" => port.close().await,
        "reopen" => {
            if let Err(e) = port.reopen().await {
                return explained(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "CannotReopen",
                    &format!("port {number} cannot listen again: {e}"),
                );
            }
        }
        _ => {
            let faults = match faults_of(call.query) {
                Ok(f) => f,
                Err(e) => {
                    return explained(StatusCode::BAD_REQUEST, "InvalidArgument", &e.to_string());
                }
            };
            if let Err(e) = port.set_faults(faults) {
                return explained(StatusCode::BAD_REQUEST, "InvalidArgument", &e.to_string());
            }
        }
    }
    ok(&describe(&*port).await)
}

fn ok(body: &Value) -> Resp {
    json_response(StatusCode::OK, body)
}

fn no_such_call() -> Resp {
    explained(
        StatusCode::NOT_FOUND,
        "NoSuchKey",
        "the calls on a port are /admin/keystorm/ports/PORT/close, /reopen and /faults",
    )
}

/// What a port's own faults injected, in all.
pub(crate) fn injected(port: &dyn Gateway) -> FaultCounts {
    ObjectOp::ALL
        .into_iter()
        .map(|op| port.injected(op))
        .fold(FaultCounts::default(), |a, b| a + b)
}

/// One port as the admin API shows it.
async fn describe(port: &dyn Gateway) -> Value {
    let requests: serde_json::Map<String, Value> = Op::ALL
        .into_iter()
        .map(|op| (op.name().to_string(), json!(port.requests(op))))
        .collect();
    let total: u64 = Op::ALL.into_iter().map(|op| port.requests(op)).sum();
    let faults = port.faults().map(|f| {
        json!({
            "slow_down": f.slow_down,
            "internal_error": f.internal_error,
            "reset": f.reset,
            "stall": f.stall,
            "corrupt": f.corrupt,
            "stall_time_ms": f.stall_time.as_millis() as u64,
            "seed": f.seed,
            "ops": f.ops.iter().map(|op| op.name()).collect::<Vec<_>>(),
        })
    });
    json!({
        "port": port.number(),
        "endpoint": port.endpoint(),
        "open": port.is_open().await,
        "requests": requests,
        "requests_total": total,
        "faults": faults,
        "injected": injected(port),
    })
}

/// The port's faults a `faults` call's query gives; `None` when it gives no rate.
fn faults_of(query: Option<&str>) -> Result<Option<FaultConfig>, BadFaults> {
    let mut f = FaultConfig {
        stall_time: STALL_TIME,
        ..FaultConfig::default()
    };
    let mut any_rate = false;
    for (key, value) in parse_query(query) {
        let value = value.trim();
        let rate = match key.as_str() {
            "slow_down" => &mut f.slow_down,
            "internal_error" => &mut f.internal_error,
            "reset" => &mut f.reset,
            "stall" => &mut f.stall,
            "corrupt" => &mut f.corrupt,
            "key_error" | "lose_on_reshard" | "list_twice" => {
                return Err(BadFaults(format!(
                    "{key} fails the bucket index, which is the store's whichever port a \
                     request came through: give it to the target, not to a port"
                )));
            }
            "stall_time" => {
                f.stall_time = humantime::parse_duration(value)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .ok_or_else(|| format!("stall_time {value:?} is not a duration, e.g. 2s"))?;
                continue;
            }
            "seed" => {
                f.seed = value
                    .parse()
                    .map_err(|_| format!("seed {value:?} is not a whole number"))?;
                continue;
            }
            "ops" => {
                f.ops = value
                    .split(',')
                    .map(|name| {
                        ObjectOp::ALL
                            .into_iter()
                            .find(|op| op.name() == name.trim())
                            .ok_or_else(|| {
                                format!(
                                    "ops: {:?} is not one of put, get, head, list, delete",
                                    name.trim()
                                )
                            })
                    })
                    .collect::<Result<_, _>>()?;
                continue;
            }
            other => {
                return Err(BadFaults(format!(
                    "unknown setting {other:?}; a port's faults are slow_down, \
                     internal_error, reset, stall and corrupt (rates), with stall_time, \
                     ops and seed"
                )));
            }
        };
        *rate = fraction(value).ok_or_else(|| {
            format!("{key} {value:?} is not a fraction between 0 and 1 (or 0% to 100%)")
        })?;
        any_rate = true;
    }
    Ok(any_rate.then_some(f))
}

/// A `faults` call's query that says no faults of a port.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct BadFaults(String);

impl From<String> for BadFaults {
    fn from(message: String) -> Self {
        BadFaults(message)
    }
}

/// `0.25` or `25%` as a fraction between 0 and 1.
fn fraction(text: &str) -> Option<f64> {
    let value = match text.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().ok()? / 100.0,
        None => text.parse::<f64>().ok()?,
    };
    (0.0..=1.0).contains(&value).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_faults_query_becomes_the_ports_faults() {
        let f = faults_of(Some(
            "reset=0.5&slow_down=10%25&ops=get,put&stall_time=2s&seed=7",
        ))
        .unwrap()
        .unwrap();
        assert_eq!((f.reset, f.slow_down, f.seed), (0.5, 0.1, 7));
        assert_eq!(f.ops, [ObjectOp::Get, ObjectOp::Put]);
        assert_eq!(f.stall_time, Duration::from_secs(2));
        // No rate: no faults (the call clears them).
        assert!(faults_of(None).unwrap().is_none());
        assert!(faults_of(Some("seed=3")).unwrap().is_none());
        for (query, says) in [
            ("reset=2", "reset \"2\" is not a fraction"),
            ("list_twice=0.1", "list_twice fails the bucket index"),
            ("colour=red", "unknown setting \"colour\""),
            ("ops=copy", "\"copy\" is not one of put"),
            (
                "reset=1&stall_time=soon",
                "stall_time \"soon\" is not a duration",
            ),
        ] {
            let e = faults_of(Some(query)).unwrap_err().to_string();
            assert!(e.contains(says), "{query}: {e}");
        }
    }

    #[test]
    fn only_the_ports_paths_are_its_calls() {
        assert_eq!(path_of("/admin/keystorm/ports"), Some(""));
        assert_eq!(path_of("/admin/keystorm/ports/"), Some(""));
        assert_eq!(
            path_of("/admin/keystorm/ports/9001/close"),
            Some("/9001/close")
        );
        assert_eq!(path_of("/admin/keystorm/portsx"), None);
        assert_eq!(path_of("/admin/keystorm/faults"), None);
    }
}
