//! `keystorm sim`'s flags as the `target.embedded` section a workload would write, one
//! flag per line, validated by the workload's own validator: a setting of the
//! simulator has one check, one limit, one default and one message, whether a flag or
//! a workload gives it. An error is told at the flag its line came from.

use std::collections::BTreeMap;

use keystorm_workload::plan::EmbeddedPlan;
use keystorm_workload::spec::{SpecError, parse_embedded};

use crate::CliError;
use crate::cli::SimArgs;

/// A `target.embedded` section written from flags.
#[derive(Default)]
pub(super) struct FlagSection {
    /// Each line of the section, with the flag it came from.
    lines: Vec<(&'static str, String)>,
}

impl FlagSection {
    fn push(&mut self, flag: &'static str, line: String) {
        self.lines.push((flag, line));
    }

    /// The section as YAML.
    pub(super) fn text(&self) -> String {
        self.lines.iter().map(|(_, l)| format!("{l}\n")).collect()
    }

    /// The settings, checked as a workload's are; an error names its flag.
    pub(super) fn plan(&self) -> Result<EmbeddedPlan, CliError> {
        parse_embedded(&self.text(), "flags").map_err(|e| {
            CliError::bad_input(match e {
                SpecError::Invalid { line, message, .. } => {
                    let flag = self.lines.get(line - 1).map_or("keystorm sim", |(f, _)| f);
                    format!("{flag}: {message}")
                }
                other => other.to_string(),
            })
        })
    }
}

/// A text as a YAML string, whatever it holds.
fn quoted(text: &str) -> String {
    serde_json::Value::from(text).to_string()
}

/// The target's own settings: index, latency, faults without a port, memory and
/// requests at once.
pub(super) fn target_section(args: &SimArgs) -> FlagSection {
    let mut s = FlagSection::default();
    let numbers = [
        ("--index-shards", "shards", args.index_shards),
        (
            "--max-objs-per-shard",
            "max_objs_per_shard",
            args.max_objs_per_shard,
        ),
    ];
    let durations = [
        (
            "--reshard-check-interval",
            "check_interval",
            &args.reshard_check_interval,
        ),
        (
            "--reshard-time-per-object",
            "reshard_time_per_object",
            &args.reshard_time_per_object,
        ),
        (
            "--reshard-retry-step",
            "retry_step",
            &args.reshard_retry_step,
        ),
        (
            "--list-time-per-shard",
            "list_time_per_shard",
            &args.list_time_per_shard,
        ),
    ];
    let index_given = args.dynamic_resharding
        || numbers.iter().any(|(_, _, v)| v.is_some())
        || durations.iter().any(|(_, _, v)| v.is_some());
    if index_given {
        s.push("--index-shards", "index:".into());
        for (flag, field, v) in numbers {
            if let Some(v) = v {
                s.push(flag, format!("  {field}: {v}"));
            }
        }
        if args.dynamic_resharding {
            s.push("--dynamic-resharding", "  dynamic: true".into());
        }
        for (flag, field, v) in durations {
            if let Some(v) = v {
                s.push(flag, format!("  {field}: {}", quoted(v)));
            }
        }
    }
    latency(
        &mut s,
        "--latency",
        args.latency.iter().map(|(op, d)| (op, d)),
    );
    faults(&mut s, args, None);
    if let Some(m) = &args.max_memory {
        s.push("--max-memory", format!("max_memory: {}", quoted(m)));
    }
    if let Some(n) = args.max_inflight {
        s.push("--max-inflight", format!("max_inflight: {n}"));
    }
    s
}

/// What one port adds: its --port-latency and its --fault PORT:KIND=RATE faults (with
/// the --stall-time, --fault-seed and --fault-ops they share).
pub(super) fn port_section(args: &SimArgs, port: u16) -> FlagSection {
    let mut s = FlagSection::default();
    let flags = args.port_latency.iter().filter(|(p, _, _)| *p == port);
    latency(&mut s, "--port-latency", flags.map(|(_, op, d)| (op, d)));
    faults(&mut s, args, Some(port));
    s
}

/// `latency:` from `OP=DIST` flags; a later flag for an operation wins.
fn latency<'a>(
    s: &mut FlagSection,
    flag: &'static str,
    given: impl Iterator<Item = (&'a String, &'a String)>,
) {
    let latest: BTreeMap<&String, &String> = given.collect();
    if latest.is_empty() {
        return;
    }
    s.push(flag, "latency:".into());
    for (op, dist) in latest {
        s.push(flag, format!("  {}: {}", quoted(op), quoted(dist)));
    }
}

/// `faults:` from the --fault flags of `port` (`None`: the target's own) and those
/// they share; a later flag for a kind wins.
fn faults(s: &mut FlagSection, args: &SimArgs, port: Option<u16>) {
    let rates: BTreeMap<String, f64> = args
        .faults
        .iter()
        .filter(|(p, _, _)| *p == port)
        .map(|(_, kind, rate)| (kind.field(), *rate))
        .collect();
    let shared =
        args.stall_time.is_some() || args.fault_seed.is_some() || !args.fault_ops.is_empty();
    if rates.is_empty() && (port.is_some() || !shared) {
        return;
    }
    s.push("--fault", "faults:".into());
    for (field, rate) in rates {
        s.push("--fault", format!("  {field}: {rate:?}"));
    }
    if let Some(t) = &args.stall_time {
        s.push("--stall-time", format!("  stall_time: {}", quoted(t)));
    }
    if let Some(seed) = args.fault_seed {
        s.push("--fault-seed", format!("  seed: {seed}"));
    }
    if !args.fault_ops.is_empty() {
        let ops: Vec<String> = args.fault_ops.iter().map(|o| quoted(o)).collect();
        s.push("--fault-ops", format!("  ops: [{}]", ops.join(", ")));
    }
}
