//! `target.endpoints`: several gateways in one workload, how requests spread over them
//! and what a lost one does, with every mistake reported at its line and column.

use std::time::Duration;

use keystorm_workload::plan::*;
use keystorm_workload::spec::parse_workload;

mod spec_support;
use spec_support::{HEAD, expect_error};

fn target(yaml: &str) -> TargetPlan {
    let text = format!("{HEAD}target:\n{yaml}before:\n  - {{ op: put, operations: 1 }}\n");
    parse_workload(&text, "w.yaml").unwrap().0.target
}

#[test]
fn endpoints_spread_and_health_become_the_plan() {
    let t = target(
        "  endpoints: [http://127.0.0.1:7480/, \"http://127.0.0.1:7481\"]\n  spread: least_outstanding\n  on_endpoint_down: count\n  endpoint_health: { down_after: 5, probe: 500ms, probe_max: 10s }\n",
    );
    assert_eq!(
        t.endpoint,
        Endpoint::Urls(vec![
            "http://127.0.0.1:7480".into(),
            "http://127.0.0.1:7481".into()
        ])
    );
    assert_eq!(
        t.gateways,
        GatewaysPlan {
            spread: Spread::LeastOutstanding,
            on_down: OnEndpointDown::Count,
            down_after: 5,
            probe: Duration::from_millis(500),
            probe_max: Duration::from_secs(10),
        }
    );
    assert_eq!(
        t.endpoint.describe(),
        "http://127.0.0.1:7480,http://127.0.0.1:7481"
    );
}

#[test]
fn one_endpoint_keeps_the_defaults() {
    let t = target("  endpoint: http://127.0.0.1:7480\n");
    assert_eq!(
        t.endpoint,
        Endpoint::Urls(vec!["http://127.0.0.1:7480".into()])
    );
    assert_eq!(t.gateways, GatewaysPlan::default());
    assert_eq!(t.gateways.spread, Spread::PerWorker);
    assert_eq!(t.gateways.on_down, OnEndpointDown::Shift);
    // A probe longer than the default longest rest raises it.
    let t = target("  endpoints: [http://a:1, http://b:1]\n  endpoint_health: { probe: 1m }\n");
    assert_eq!(t.gateways.probe_max, Duration::from_secs(60));
}

fn bad(yaml: &str, line: usize, column: usize, needle: &str) {
    let text = format!("{HEAD}target:\n{yaml}before:\n  - {{ op: put, operations: 1 }}\n");
    expect_error(&text, line, column, needle);
}

#[test]
fn endpoint_mistakes_are_named_where_they_are() {
    bad(
        "  endpoint: http://a:1\n  endpoints: [http://b:1]\n",
        4,
        13,
        "either `endpoint` or `endpoints`",
    );
    bad("  endpoints: []\n", 4, 14, "at least one URL");
    bad(
        "  endpoints: [http://a:1, ftp://b:1]\n",
        4,
        27,
        "must be `embedded` or start with http",
    );
    bad(
        "  endpoints: [http://a:1, http://a:1/]\n",
        4,
        27,
        "listed twice",
    );
    bad("  endpoints: [embedded]\n", 4, 15, "`endpoint: embedded`");
    bad(
        "  endpoints: [http://a:1]\n  spread: random\n",
        5,
        11,
        "unknown spread \"random\"",
    );
    bad(
        "  endpoints: [http://a:1]\n  on_endpoint_down: ignore\n",
        5,
        21,
        "use `shift` or `count`",
    );
    bad(
        "  endpoints: [http://a:1]\n  endpoint_health: { down_after: 0 }\n",
        5,
        34,
        "down_after",
    );
    bad(
        "  endpoints: [http://a:1]\n  endpoint_health: { probe: 5s, probe_max: 1s }\n",
        5,
        44,
        "shorter than `probe`",
    );
    bad(
        "  endpoints: [http://a:1]\n  endpoint_health: { probes: 5s }\n",
        5,
        22,
        "probes",
    );
}
