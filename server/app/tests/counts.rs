//! One default and one limit per count name (`workers`, `listers`, `head_workers`,
//! `in_flight`, `parts_in_flight`), as `keystorm_workload::counts` defines them, held
//! against every surface that takes one: a workload's phases (validation, as the CLI's
//! `run` and `validate` read it), the API's workload check, and every command-line flag
//! of that name.

mod api_support;

use std::collections::BTreeSet;
use std::ffi::OsStr;

use clap::CommandFactory;
use keystorm::Cli;
use keystorm_workload::counts::{self, Count};
use keystorm_workload::spec::parse_workload;
use serde_json::{Value, json};

/// Phases (but for the count) in which each count applies.
fn phases(count: &Count) -> Vec<&'static str> {
    match count.name {
        "workers" => vec!["op: put, operations: 10"],
        // A listing's own listers, and those feeding a scan and a download.
        "listers" => vec![
            "op: list, mode: adaptive",
            "op: head, keys: bucket, mode: adaptive",
            "op: download, dir: ./d",
        ],
        "head_workers" => vec!["op: head, keys: bucket"],
        "in_flight" => vec!["op: download, dir: ./d", "op: upload, dir: ./d"],
        "parts_in_flight" => vec!["op: put, operations: 10", "op: download, dir: ./d"],
        other => panic!("no phase written for count {other}"),
    }
}

/// A workload of one `phase`, with `count` written as `value` (or not at all).
fn workload(phase: &str, count: &Count, value: Option<i64>) -> String {
    let given = value.map_or(String::new(), |v| format!(", {}: {v}", count.name));
    format!("name: w\nbuckets: {{ name: bkt }}\nbefore:\n  - {{ name: p, {phase}{given} }}\n")
}

/// The value of the first `name` anywhere in `json`.
fn find(json: &Value, name: &str) -> Option<u64> {
    match json {
        Value::Object(map) => map
            .get(name)
            .and_then(Value::as_u64)
            .or_else(|| map.values().find_map(|v| find(v, name))),
        Value::Array(items) => items.iter().find_map(|v| find(v, name)),
        _ => None,
    }
}

#[test]
fn a_workload_takes_each_count_up_to_its_limit_and_defaults_it_alike_everywhere() {
    for count in counts::ALL {
        for phase in phases(&count) {
            for (given, want) in [
                (Some(count.max as i64), count.max),
                (Some(1), 1),
                (None, count.default),
            ] {
                let text = workload(phase, &count, given);
                let (plan, _) = parse_workload(&text, "w.yaml")
                    .unwrap_or_else(|e| panic!("{}: {e}\n{text}", count.name));
                // What the phase runs at once, as its `phase_started` event says, and
                // its part settings (left out of the plan where they are the defaults).
                let phase = plan.phases().next().unwrap();
                let shown = json!([
                    phase.at_once(),
                    serde_json::to_value(phase).unwrap(),
                    keystorm_workload::plan::PartPlan::default(),
                ]);
                assert_eq!(
                    find(&shown, count.name),
                    Some(u64::from(want)),
                    "{} in {text}",
                    count.name
                );
            }
            for past in [0, count.max as i64 + 1] {
                let text = workload(phase, &count, Some(past));
                let e = parse_workload(&text, "w.yaml").unwrap_err().to_string();
                assert!(
                    e.contains(&format!(
                        "`{}` must be between 1 and {}, not {past}",
                        count.name, count.max
                    )),
                    "{e}"
                );
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apis_workload_check_holds_the_same_limits() {
    let s = api_support::Server::start().await;
    for count in counts::ALL {
        let phase = phases(&count)[0];
        let past = count.max as i64 + 1;
        let bad = s
            .post(
                "/api/workloads/validate",
                json!({"text": workload(phase, &count, Some(past))}),
            )
            .await;
        assert_eq!(bad.status, 200);
        let bad = bad.json();
        assert_eq!(bad["valid"], false, "{} {past}", count.name);
        let message = bad["errors"][0]["message"].as_str().unwrap();
        assert!(
            message.contains(&format!("between 1 and {}", count.max)),
            "{message}"
        );
        let ok = s
            .post(
                "/api/workloads/validate",
                json!({"text": workload(phase, &count, Some(count.max as i64))}),
            )
            .await
            .json();
        assert_eq!(ok["valid"], true, "{} {}: {ok}", count.name, count.max);
    }
}

/// Every (command path, flag) of the command line whose flag names a count, with the
/// count; flags are checked as clap parses them.
fn count_flags() -> Vec<(String, Count, clap::Command)> {
    fn walk(cmd: &clap::Command, path: &str, out: &mut Vec<(String, Count, clap::Command)>) {
        for arg in cmd.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            if let Some(count) = counts::ALL.iter().find(|c| c.flag() == format!("--{long}")) {
                out.push((path.to_string(), *count, cmd.clone()));
            }
        }
        for sub in cmd.get_subcommands() {
            walk(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }
    let mut out = Vec::new();
    let mut cmd = Cli::command();
    cmd.build();
    walk(&cmd, "keystorm", &mut out);
    out
}

#[test]
fn every_flag_named_after_a_count_has_its_default_and_its_limit() {
    let flags = count_flags();
    let found: BTreeSet<String> = flags
        .iter()
        .map(|(path, count, _)| format!("{path} {}", count.flag()))
        .collect();
    let expected: BTreeSet<String> = [
        "keystorm list --listers",
        "keystorm list --head-workers",
        "keystorm diff --listers",
        "keystorm download --listers",
        "keystorm download --in-flight",
        "keystorm download --parts-in-flight",
        "keystorm upload --in-flight",
        "keystorm upload --parts-in-flight",
    ]
    .map(String::from)
    .into();
    assert_eq!(found, expected, "the flags that take a count");
    for (path, count, cmd) in &flags {
        let arg = cmd
            .get_arguments()
            .find(|a| {
                a.get_long()
                    .is_some_and(|l| format!("--{l}") == count.flag())
            })
            .unwrap();
        let defaults: Vec<&OsStr> = arg
            .get_default_values()
            .iter()
            .map(|v| v.as_os_str())
            .collect();
        assert_eq!(
            defaults,
            [OsStr::new(&count.default.to_string())],
            "{path} {}",
            count.flag()
        );
        // The value alone is judged: an error for a missing argument means it passed.
        let parses = |v: u64| {
            let got = cmd.clone().try_get_matches_from([
                cmd.get_name().to_string(),
                count.flag(),
                v.to_string(),
            ]);
            !matches!(got, Err(e) if e.kind() == clap::error::ErrorKind::ValueValidation)
        };
        assert!(
            parses(1) && parses(u64::from(count.max)),
            "{path} {}",
            count.flag()
        );
        assert!(
            !parses(0) && !parses(u64::from(count.max) + 1),
            "{path} {} takes what a workload refuses",
            count.flag()
        );
    }
}

#[test]
fn transfer_size_flags_default_to_the_plans_transfer_settings() {
    let defaults = keystorm_workload::plan::TransferSettings::default();
    let cmd = Cli::command();
    for sub in ["download", "upload"] {
        let sub = cmd.find_subcommand(sub).unwrap();
        for (flag, want) in [
            ("part_size", defaults.part_size),
            ("parts_above", defaults.parts_above),
        ] {
            let arg = sub
                .get_arguments()
                .find(|a| a.get_id() == flag)
                .unwrap_or_else(|| panic!("{} --{flag}", sub.get_name()));
            let given = arg.get_default_values()[0].to_str().unwrap();
            assert_eq!(
                keystorm_workload::size::parse_size(given),
                Ok(want),
                "{} --{flag} defaults to {given}",
                sub.get_name()
            );
        }
    }
}
