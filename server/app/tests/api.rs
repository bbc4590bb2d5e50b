//! The HTTP API against a real server on loopback and the embedded target: every
//! endpoint, bad input (always JSON 4xx), path traversal, the one-run-at-a-time 409,
//! the live stream with replay, the token and cross-site guards, and that no secret
//! ever comes back.

mod api_support;

use api_support::{LONG_WORKLOAD, Server, SseEvent, rounds_workload};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workloads_are_listed_read_validated_and_saved() {
    let s = Server::start().await;
    let list = s.get("/api/workloads").await;
    assert_eq!(list.status, 200);
    let names: Vec<String> = list
        .json()
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names, ["long", "rounds"]);

    let one = s.get("/api/workloads/rounds").await;
    assert_eq!(one.status, 200);
    assert_eq!(one.json()["text"], rounds_workload("rounds", 3));
    assert_eq!(s.get("/api/workloads/nope").await.error_code(), "not_found");

    // Validation: 200 either way; errors carry line and column.
    let ok = s
        .post(
            "/api/workloads/validate",
            json!({"text": rounds_workload("x", 2)}),
        )
        .await
        .json();
    assert_eq!(ok["valid"], true);
    assert_eq!(ok["outline"]["rounds"], 2);
    assert_eq!(ok["outline"]["phases"].as_array().unwrap().len(), 3);
    let bad = s
        .post(
            "/api/workloads/validate",
            json!({"text": "name: x\nbuckets: { names: [abc] }\nobjects: { size: 12XB }\n"}),
        )
        .await;
    assert_eq!(bad.status, 200);
    let bad = bad.json();
    assert_eq!(bad["valid"], false);
    assert_eq!(bad["errors"][0]["line"], 3);
    assert!(bad["errors"][0]["column"].as_u64().unwrap() > 1);

    // Saving: created, then 409 without overwrite, then replaced with it.
    let text = rounds_workload("saved", 1);
    let r = s.put("/api/workloads/saved", json!({"text": text})).await;
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(
        std::fs::read_to_string(s.workloads().join("saved.yaml")).unwrap(),
        text
    );
    let again = s.put("/api/workloads/saved", json!({"text": text})).await;
    assert_eq!((again.status, again.error_code().as_str()), (409, "exists"));
    let text2 = rounds_workload("saved", 2);
    let r = s
        .put(
            "/api/workloads/saved",
            json!({"text": text2, "overwrite": true}),
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        std::fs::read_to_string(s.workloads().join("saved.yaml")).unwrap(),
        text2
    );
    // Invalid text is not saved: 422 with where the problem is.
    let r = s
        .put(
            "/api/workloads/broken",
            json!({"text": "name: x\nnope: 1\n"}),
        )
        .await;
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["line"], 2);
    assert!(!s.workloads().join("broken.yaml").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_name_reaches_outside_its_folder() {
    let s = Server::start().await;
    std::fs::write(s.dir.path().join("secret.yaml"), "name: outside\n").unwrap();
    for name in [
        "..%2Fsecret",
        "..%2F..%2Fetc%2Fpasswd",
        "%2E%2E%2Fsecret",
        "a.b",
        "x%00y",
        &"a".repeat(65),
    ] {
        let r = s.get(&format!("/api/workloads/{name}")).await;
        assert_eq!(r.status, 400, "{name}: {}", r.text());
        assert_eq!(r.error_code(), "bad_request");
        let r = s
            .put(
                &format!("/api/workloads/{name}"),
                json!({"text": rounds_workload("x", 1)}),
            )
            .await;
        assert_eq!(r.status, 400, "{name}");
    }
    for id in ["..", "..%2F..%2Fetc", "%2E%2E", "a%2Fb"] {
        for path in [
            format!("/api/runs/{id}"),
            format!("/api/runs/{id}/events"),
            format!("/api/runs/{id}/export/summary.csv"),
        ] {
            let r = s.get(&path).await;
            assert!(r.status == 400 || r.status == 404, "{path}: {}", r.status);
            r.error_code();
        }
        assert_eq!(s.delete(&format!("/api/runs/{id}")).await.status / 100, 4);
    }
    assert!(s.dir.path().join("secret.yaml").exists());
    let r = s.get("/api/runs/x/export/..%2F..%2Fsecret.yaml").await;
    assert_eq!(r.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_is_started_watched_live_and_its_results_served() {
    let s = Server::start().await;
    let r = s
        .post(
            "/api/runs",
            json!({"workload": "rounds", "labels": {"bucket": "dynamic"}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["run_id"].as_str().unwrap().to_string();

    // The live stream from the start to `finished`, ids contiguous from 0.
    let events = s.events(&id, None, |e| e.name == "finished").await;
    let ids: Vec<u64> = events.iter().map(|e| e.id).collect();
    assert_eq!(ids, (0..events.len() as u64).collect::<Vec<_>>());
    assert_eq!(events[0].name, "started");
    assert_eq!(events[0].data["phases"], 7);
    let finished = events.last().unwrap();
    assert_eq!(finished.name, "finished");
    assert_eq!(finished.data["status"], "completed");
    assert_eq!(
        events.iter().filter(|e| e.name == "phase_finished").count(),
        7
    );

    // A reconnecting client gets exactly what came after its last id, from disk.
    let replay = s.events(&id, Some(4), |_| false).await;
    assert_eq!(replay.first().unwrap().id, 5);
    assert_eq!(replay.len(), events.len() - 5);
    assert_eq!(replay.last().unwrap().name, "finished");

    // A client drawing only the recent past gets the last interval and every other
    // event, in order; a reconnect with an id still gets everything after it.
    let intervals = events.iter().filter(|e| e.name == "interval").count();
    assert!(intervals > 1, "{intervals} intervals");
    let recent = s.events_with(&id, "recent=1", None, |_| false).await;
    let names = |es: &[SseEvent]| -> Vec<(u64, String)> {
        es.iter().map(|e| (e.id, e.name.clone())).collect()
    };
    let last_interval = events.iter().rfind(|e| e.name == "interval").unwrap().id;
    let expected: Vec<SseEvent> = events
        .iter()
        .filter(|e| e.name != "interval" || e.id == last_interval)
        .cloned()
        .collect();
    assert_eq!(names(&recent), names(&expected));
    let resumed = s.events_with(&id, "recent=1", Some(4), |_| false).await;
    assert_eq!(resumed.len(), events.len() - 5);

    // The runs list and the detail.
    let runs = s.get("/api/runs").await.json();
    let run = &runs[0];
    assert_eq!(run["run_id"], id.as_str());
    assert_eq!(run["status"], "completed");
    assert_eq!(run["labels"]["bucket"], "dynamic");
    let ops: Vec<&str> = run["headline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["op"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["put", "get"]);
    let detail = s.get(&format!("/api/runs/{id}")).await.json();
    let rows = detail["summary"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 7);
    assert_eq!(detail["workload_text"], rounds_workload("rounds", 3));
    assert_eq!(detail["manifest"]["status"], "completed");
    assert!(
        detail["manifest"]["command_line"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a == "bucket=dynamic")
    );

    // Per-second series, filtered.
    let intervals = s
        .get(&format!(
            "/api/runs/{id}/intervals?section=round&round=2&phase=read"
        ))
        .await
        .json();
    let intervals = intervals.as_array().unwrap();
    assert!(!intervals.is_empty());
    assert!(
        intervals
            .iter()
            .all(|i| i["round"] == 2 && i["phase"] == "read")
    );
    let ops_in_intervals: u64 = intervals
        .iter()
        .map(|i| i["ops"]["get"]["ops"].as_u64().unwrap())
        .sum();
    assert_eq!(ops_in_intervals, 150);
    // Merged into one point: all of them, and their operations.
    let one = s
        .get(&format!(
            "/api/runs/{id}/intervals?section=round&round=2&phase=read&max_points=1"
        ))
        .await
        .json();
    // A record may already stand for more than one interval (a short last one is
    // folded into the one before it): count what each stands for.
    let measured: u64 = intervals
        .iter()
        .filter(|i| i["warmup"] == false)
        .map(|i| i["merged"].as_u64().unwrap_or(1))
        .sum();
    let point = one
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["warmup"] == false)
        .unwrap();
    assert_eq!(point["merged"].as_u64().unwrap_or(1), measured);
    assert_eq!(point["ops"]["get"]["ops"], 150);
    let zero = s
        .request(
            "GET",
            &format!("/api/runs/{id}/intervals?max_points=0"),
            None,
            &[],
        )
        .await;
    assert_eq!(zero.status, 400, "{}", zero.text());
    assert!(zero.text().contains("max_points"));
    zero.error_code();

    // The distribution is the merged histogram: its count is the phase's operations
    // and its top is the summary's max.
    let read2 = rows
        .iter()
        .find(|r| r["phase"] == "read" && r["round"] == 2)
        .unwrap();
    let d = s
        .get(&format!(
            "/api/runs/{id}/distribution?section=round&round=2&phase=read&op=get"
        ))
        .await
        .json();
    assert_eq!(d["count"], read2["ops"]);
    let points = d["points"].as_array().unwrap();
    assert_eq!(
        points.last().unwrap()["latency_us"],
        read2["latency_us"]["max"]
    );
    assert!(
        points
            .windows(2)
            .all(|w| w[0]["latency_us"].as_u64() <= w[1]["latency_us"].as_u64())
    );
    // The heatmap of round 2's read: every GET once, in the row of its latency.
    let heat = s
        .get(&format!(
            "/api/runs/{id}/heatmap?op=get&section=round&round=2&phase=read"
        ))
        .await
        .json();
    let cells = heatmap_cells(&heat);
    assert_eq!(cells, read2["ops"].as_u64().unwrap());
    assert_eq!(heat["rows_us"].as_array().unwrap().len(), 71);
    assert_eq!(heat["phases"][0]["phase"], "read");
    // The whole run's PUTs, in two columns at most: seconds merged, none lost.
    let puts: u64 = rows
        .iter()
        .filter(|r| r["op"] == "put")
        .map(|r| r["ops"].as_u64().unwrap())
        .sum();
    let heat = s
        .get(&format!("/api/runs/{id}/heatmap?op=put&max_columns=2"))
        .await
        .json();
    assert!(heat["counts"].as_array().unwrap().len() <= 2);
    let cells = heatmap_cells(&heat);
    assert_eq!(cells, puts);
    // The log grows, as a running run's does: the next answer takes in what it gained
    // and is what a fresh read of the whole log gives.
    let hlog = s.results().join(&id).join("histograms.hlog");
    let last_s = std::fs::read_to_string(&hlog)
        .unwrap()
        .lines()
        .filter_map(|l| {
            l.strip_prefix("Tag=")?
                .split(',')
                .nth(1)?
                .parse::<f64>()
                .ok()
        })
        .fold(0.0, f64::max);
    let mut h = hdrhistogram::Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
    h.record_n(1_500, 7).unwrap();
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(&hlog)
        .unwrap();
    keystorm_results::HlogWriter::default()
        .write(&mut log, "round.3.write.put", last_s + 5.0, 1.0, &h)
        .unwrap();
    drop(log);
    let grown = s
        .get(&format!("/api/runs/{id}/heatmap?op=put&max_columns=2"))
        .await
        .json();
    assert_eq!(heatmap_cells(&grown), puts + 7);
    let fresh = keystorm_results::heatmap(&hlog, |t: &str| t.ends_with(".put"), 2)
        .unwrap()
        .unwrap();
    assert_eq!(grown["counts"], json!(fresh.counts));
    assert_eq!(grown["merged"], fresh.merged);
    let r = s
        .get(&format!("/api/runs/{id}/heatmap?op=put&max_columns=0"))
        .await;
    assert_eq!(r.status, 400);
    // A phase named alone: that phase in every round.
    let reads: u64 = rows
        .iter()
        .filter(|r| r["op"] == "get" && r["phase"] == "read")
        .map(|r| r["ops"].as_u64().unwrap())
        .sum();
    let heat = s
        .get(&format!("/api/runs/{id}/heatmap?op=get&phase=read"))
        .await
        .json();
    assert_eq!(heatmap_cells(&heat), reads);
    // One time axis: every operation's columns are the run's whole seconds, and every
    // phase is named on the heatmap of one operation, those that ran others too.
    let gets = s
        .get(&format!("/api/runs/{id}/heatmap?op=get"))
        .await
        .json();
    let named: Vec<String> = gets["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{}.{}", p["round"], p["phase"].as_str().unwrap()))
        .collect();
    // (The line appended above comes last, as one more "3.write".)
    assert_eq!(
        named[..7],
        [
            "null.fill",
            "1.write",
            "1.read",
            "2.write",
            "2.read",
            "3.write",
            "3.read"
        ]
    );
    let puts = s
        .get(&format!("/api/runs/{id}/heatmap?op=put"))
        .await
        .json();
    // Columns sit where their intervals ran: the first where its phase began, each
    // after the one before.
    for h in [&gets, &puts] {
        let spans: Vec<(f64, f64)> = h["spans_s"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s[0].as_f64().unwrap(), s[1].as_f64().unwrap()))
            .collect();
        assert_eq!(spans.len(), h["counts"].as_array().unwrap().len());
        let starts: Vec<f64> = h["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["t_s"].as_f64().unwrap())
            .collect();
        assert!(starts.contains(&spans[0].0), "{spans:?} {starts:?}");
        assert!(
            spans
                .windows(2)
                .all(|w| w[0].0 < w[0].1 && w[0].1 <= w[1].0 + 0.1),
            "{spans:?}"
        );
    }
    let r = s.get(&format!("/api/runs/{id}/heatmap?op=delete")).await;
    assert_eq!((r.status, r.error_code().as_str()), (404, "not_found"));
    let r = s
        .get(&format!(
            "/api/runs/{id}/distribution?section=round&phase=read&op=get"
        ))
        .await;
    assert_eq!((r.status, r.error_code().as_str()), (400, "bad_request"));
    let r = s
        .get(&format!(
            "/api/runs/{id}/distribution?section=round&round=2&phase=read&op=fly"
        ))
        .await;
    assert_eq!(r.status, 400);

    // Exports.
    let csv = s.get(&format!("/api/runs/{id}/export/summary.csv")).await;
    assert_eq!(csv.status, 200);
    assert_eq!(csv.text().lines().count(), 1 + rows.len());
    assert!(
        csv.headers["content-disposition"]
            .to_str()
            .unwrap()
            .contains("attachment")
    );
    let icsv = s
        .get(&format!("/api/runs/{id}/export/intervals.csv"))
        .await
        .text();
    assert!(icsv.starts_with("section,round,phase,interval,"));
    // One line per interval and operation, slivers folded as the points have them.
    let all = s
        .get(&format!("/api/runs/{id}/intervals?max_points=100000"))
        .await
        .json();
    let rows_expected: usize = all
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["ops"].as_object().unwrap().len())
        .sum();
    assert_eq!(icsv.lines().count(), 1 + rows_expected);
    // Files come as they lie on disk.
    let hlog = s
        .get(&format!("/api/runs/{id}/export/histograms.hlog"))
        .await
        .text();
    assert!(hlog.starts_with("#[Histogram log format version 1.3]"));
    assert_eq!(
        hlog,
        std::fs::read_to_string(s.results().join(&id).join("histograms.hlog")).unwrap()
    );
    let r = s.get(&format!("/api/runs/{id}/export/passwd")).await;
    assert_eq!(r.status, 404);
    // The offline report: one HTML file with the run's data inlined (when the UI is
    // built; otherwise a clear 404 saying how to build it).
    let report = s.get(&format!("/api/runs/{id}/export/report.html")).await;
    let template =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/dist-report/report.html");
    if template.is_file() {
        assert_eq!(report.status, 200);
        let html = report.text();
        assert!(!html.contains("__KEYSTORM_REPORT_DATA__"));
        assert!(html.contains(&format!("\"run_id\":\"{id}\"")));
        assert!(html.contains("\"metadata_scans\":["), "listings inlined");
        // The workload it ran, as the run page shows it.
        let detail = s.get(&format!("/api/runs/{id}")).await.json();
        let text = detail["workload_text"].as_str().unwrap();
        assert!(!text.is_empty());
        assert!(
            html.contains(&format!(
                "\"workload_text\":{}",
                serde_json::to_string(text).unwrap()
            )),
            "workload inlined"
        );
        assert!(html.contains("\"heatmaps\":{"), "heatmaps inlined");
        assert!(html.contains("\"rows_us\":[10,13,"), "heatmaps inlined");
        assert!(
            !html.contains("src=\"http") && !html.contains("href=\"http"),
            "no network"
        );
    } else {
        assert_eq!(
            (report.status, report.error_code().as_str()),
            (404, "report_not_built")
        );
    }

    // Labels and notes are edited beside the manifest, which stays as recorded.
    let r = s
        .patch(
            &format!("/api/runs/{id}"),
            json!({"labels": {"bucket": "presharded"}, "notes": "first try"}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["labels"]["bucket"], "presharded");
    let again = s.get(&format!("/api/runs/{id}")).await.json();
    assert_eq!(again["info"]["notes"], "first try");
    assert_eq!(again["manifest"]["labels"]["bucket"], "dynamic");
    let r = s
        .patch(
            &format!("/api/runs/{id}"),
            json!({"labels": {"bad key": "x"}}),
        )
        .await;
    assert_eq!(r.status, 400);

    // /metrics speaks Prometheus.
    let m = s.get("/metrics").await;
    assert!(
        m.headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let m = m.text();
    assert!(m.contains("keystorm_run_running{"), "{m}");
    let line = m
        .lines()
        .find(|l| {
            l.starts_with("keystorm_ops_total{")
                && l.contains("phase=\"read\"")
                && l.contains("round=\"2\"")
        })
        .expect("a read series for round 2");
    assert!(line.ends_with(" 150"), "{line}");

    // Delete: gone from disk and from the API.
    assert_eq!(s.delete(&format!("/api/runs/{id}")).await.status, 204);
    assert!(!s.results().join(&id).exists());
    assert_eq!(s.get(&format!("/api/runs/{id}")).await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_run_at_a_time_and_stop_is_graceful() {
    let s = Server::start().await;
    let id = s.start_yaml(LONG_WORKLOAD).await;
    let second = s.post("/api/runs", json!({"workload": "rounds"})).await;
    assert_eq!(second.status, 409);
    assert_eq!(second.error_code(), "run_in_progress");
    assert!(second.json()["detail"].as_str().unwrap().contains(&id));
    let status = s.get("/api/status").await.json();
    assert_eq!(status["running"], id.as_str());

    // Running runs cannot be deleted.
    assert_eq!(s.delete(&format!("/api/runs/{id}")).await.status, 409);

    // Wait for a first interval on the live stream, then stop.
    let seen = s.events(&id, None, |e| e.name == "interval").await;
    assert_eq!(seen.last().unwrap().name, "interval");
    let last = seen.last().unwrap().id;
    let r = s.post(&format!("/api/runs/{id}/stop"), json!({})).await;
    assert_eq!(r.status, 202);
    let rest = s.events(&id, Some(last), |e| e.name == "finished").await;
    assert_eq!(rest.first().unwrap().id, last + 1);
    assert_eq!(rest.last().unwrap().data["status"], "interrupted");
    // The results were written: the phase's summary exists and the slot is free.
    let detail = s.get(&format!("/api/runs/{id}")).await.json();
    assert_eq!(detail["manifest"]["status"], "interrupted");
    let r = s.post(&format!("/api/runs/{id}/stop"), json!({})).await;
    assert_eq!((r.status, r.error_code().as_str()), (409, "not_running"));
    let next = s.post("/api/runs", json!({"workload": "rounds"})).await;
    assert_eq!(next.status, 201, "{}", next.text());
    let next = next.json()["run_id"].as_str().unwrap().to_string();
    s.events(&next, None, |e| e.name == "finished").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_json_4xx_never_5xx() {
    let s = Server::start().await;
    let cases: Vec<(&str, &str, Option<&[u8]>)> = vec![
        ("POST", "/api/runs", Some(b"{not json")),
        ("POST", "/api/runs", Some(b"[]")),
        (
            "POST",
            "/api/runs",
            Some(br#"{"workload": "rounds", "yaml": "x"}"#),
        ),
        ("POST", "/api/runs", Some(br#"{}"#)),
        (
            "POST",
            "/api/runs",
            Some(br#"{"workload": "rounds", "colour": 1}"#),
        ),
        ("POST", "/api/runs", Some(br#"{"workload": "missing"}"#)),
        (
            "POST",
            "/api/runs",
            Some(br#"{"yaml": "name: x\nbogus: 1\n"}"#),
        ),
        (
            "POST",
            "/api/runs",
            Some(br#"{"workload": "rounds", "endpoint": "ftp://x"}"#),
        ),
        (
            "POST",
            "/api/runs",
            Some(br#"{"workload": "rounds", "labels": {"": "x"}}"#),
        ),
        ("POST", "/api/workloads/validate", Some(br#"{"text": 5}"#)),
        ("GET", "/api/runs/nope", None),
        ("GET", "/api/runs/nope/intervals?round=x", None),
        ("POST", "/api/runs/nope/stop", None),
        ("GET", "/api/nothing-here", None),
        ("DELETE", "/api/workloads/rounds", None),
    ];
    for (method, path, body) in cases {
        let r = s.request(method, path, body, &[]).await;
        assert!(
            (400..500).contains(&r.status),
            "{method} {path}: {} {}",
            r.status,
            r.text()
        );
        r.error_code();
    }
    // One endpoint named twice, however it is spelled, for a run here or on agents.
    for body in [
        json!({"workload": "rounds", "endpoint": "http://127.0.0.1:9,http://127.0.0.1:9/"}),
        json!({"workload": "rounds", "agents": 2, "endpoint": "http://127.0.0.1:9, HTTP://127.0.0.1:9"}),
    ] {
        let r = s.post("/api/runs", body).await;
        assert_eq!(r.status, 400, "{}", r.text());
        let detail = r.json()["detail"].as_str().unwrap().to_string();
        assert!(
            detail.contains("\"http://127.0.0.1:9\" is listed twice"),
            "{detail}"
        );
    }
    // A key file the server cannot read is refused where the workload names it.
    let yaml = "name: k\ntarget: { endpoint: embedded }\nbuckets: { names: [abc] }\nbefore:\n  \
                - { name: p, op: get, operations: 5, keys: { file: /nowhere/missing.keys } }\n";
    let r = s.post("/api/runs", json!({ "yaml": yaml })).await;
    assert_eq!(r.status, 422, "{}", r.text());
    let body = r.json();
    assert_eq!(
        (&body["line"], &body["column"]),
        (&json!(5), &json!(46)),
        "{body}"
    );
    assert!(
        body["detail"].as_str().unwrap().contains("missing.keys"),
        "{body}"
    );
    // An invalid workload says where.
    let r = s
        .post("/api/runs", json!({"yaml": "name: x\nbuckets: { names: [abc] }\nbefore:\n  - { name: p, op: fly }\n"}))
        .await;
    assert_eq!(r.status, 422);
    assert_eq!(r.json()["line"], 4);
    // Bodies are capped. The server answers before it has read such a body and may
    // close the connection, so this request does not leave it for the next one.
    let big = json!({"text": "#".repeat(2 * 1024 * 1024)}).to_string();
    let r = s
        .request(
            "POST",
            "/api/workloads/validate",
            Some(big.as_bytes()),
            &[("connection", "close")],
        )
        .await;
    assert_eq!(r.status, 413);
    assert_eq!(r.error_code(), "body_too_large");
    // Nothing was started by any of it.
    assert!(
        s.get("/api/runs")
            .await
            .json()
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn path_segments_that_are_not_utf8_get_the_json_error_shape() {
    let s = Server::start().await;
    let text = json!({"text": rounds_workload("x", 1)}).to_string();
    let cases: Vec<(&str, &str, Option<&[u8]>)> = vec![
        ("GET", "/api/runs/%FF", None),
        ("GET", "/api/runs/%C3%28/intervals", None),
        ("GET", "/api/runs/%FF/events", None),
        ("GET", "/api/runs/%FF/index", None),
        ("GET", "/api/runs/%FF/listings", None),
        (
            "GET",
            "/api/runs/%FF/distribution?section=before&phase=p&op=put",
            None,
        ),
        ("GET", "/api/runs/x/export/%FF", None),
        ("PATCH", "/api/runs/%FF", Some(b"{}")),
        ("POST", "/api/runs/%FF/stop", None),
        ("DELETE", "/api/runs/%FF", None),
        ("GET", "/api/workloads/%FF", None),
        ("PUT", "/api/workloads/%E2%82", Some(text.as_bytes())),
    ];
    for (method, path, body) in cases {
        let r = s.request(method, path, body, &[]).await;
        assert_eq!(r.status, 400, "{method} {path}: {}", r.text());
        assert_eq!(
            r.headers["content-type"],
            "application/json",
            "{method} {path}: {}",
            r.text()
        );
        assert_eq!(r.error_code(), "bad_request", "{method} {path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn label_values_are_limited_in_characters_not_bytes_and_all_show() {
    let s = Server::start().await;
    // 256 characters of two bytes each: within the documented limit of 256 characters.
    let wide = "é".repeat(256);
    let r = s
        .post(
            "/api/runs",
            json!({"workload": "rounds", "labels": {"site": wide}}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["run_id"].as_str().unwrap().to_string();
    s.events(&id, None, |e| e.name == "finished").await;
    let info = s.get(&format!("/api/runs/{id}")).await.json();
    assert_eq!(info["info"]["labels"]["site"], wide.as_str());

    let wider = "ü".repeat(256);
    let r = s
        .patch(
            &format!("/api/runs/{id}"),
            json!({"labels": {"site": wider}}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.json()["labels"]["site"], wider.as_str());
    // One character more is refused, whatever its width.
    let r = s
        .patch(
            &format!("/api/runs/{id}"),
            json!({"labels": {"site": "v".repeat(257)}}),
        )
        .await;
    assert_eq!((r.status, r.error_code().as_str()), (400, "bad_request"));
    // A value that would show other than it is: refused when editing and starting.
    for invisible in ["admin\u{202E}txt", "zero\u{200B}width", "two\u{2028}lines"] {
        let r = s
            .patch(
                &format!("/api/runs/{id}"),
                json!({"labels": {"site": invisible}}),
            )
            .await;
        assert_eq!(
            (r.status, r.error_code().as_str()),
            (400, "bad_request"),
            "{invisible:?}"
        );
        let r = s
            .post(
                "/api/runs",
                json!({"workload": "rounds", "labels": {"site": invisible}}),
            )
            .await;
        assert_eq!(r.status, 400, "{invisible:?}: {}", r.text());
    }
    let info = s.get(&format!("/api/runs/{id}")).await.json();
    assert_eq!(info["info"]["labels"]["site"], wider.as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_bodies_must_be_json_objects_not_arrays() {
    let s = Server::start().await;
    let id = s.start_yaml(&rounds_workload("arrays", 1)).await;
    s.events(&id, None, |e| e.name == "finished").await;
    // serde reads a struct from an array of its fields in order; the API must not.
    let text = serde_json::to_string(&rounds_workload("x", 1)).unwrap();
    let cases = [
        ("POST", "/api/runs".to_string(), r#"["rounds"]"#.to_string()),
        (
            "POST",
            "/api/runs".to_string(),
            format!("[null, {text}, null, {{}}]"),
        ),
        (
            "PATCH",
            format!("/api/runs/{id}"),
            "[null, null]".to_string(),
        ),
        (
            "PATCH",
            format!("/api/runs/{id}"),
            r#"[null, "notes"]"#.to_string(),
        ),
        (
            "POST",
            "/api/workloads/validate".to_string(),
            format!("[{text}]"),
        ),
        (
            "PUT",
            "/api/workloads/arrays".to_string(),
            format!("[{text}, true]"),
        ),
    ];
    for (method, path, body) in &cases {
        let r = s.request(method, path, Some(body.as_bytes()), &[]).await;
        assert_eq!(r.status, 422, "{method} {path} {body}: {}", r.text());
        assert_eq!(r.error_code(), "bad_json", "{method} {path} {body}");
    }
    // Nothing was started, annotated or saved.
    let runs = s.get("/api/runs").await.json();
    assert_eq!(runs.as_array().unwrap().len(), 1, "{runs}");
    assert_eq!(runs[0]["notes"], "");
    assert!(!s.workloads().join("arrays.yaml").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_last_event_id_that_is_no_event_id_is_refused() {
    let s = Server::start().await;
    let id = s.start_yaml(&rounds_workload("resume", 1)).await;
    let all = s.events(&id, None, |e| e.name == "finished").await;
    let path = format!("/api/runs/{id}/events");
    for bad in ["abc", "-1", "1.5", "9223372036854775808", ""] {
        let r = s
            .request("GET", &path, None, &[("last-event-id", bad)])
            .await;
        assert_eq!(r.status, 400, "{bad}: {}", r.text());
        assert_eq!(r.error_code(), "bad_request", "{bad}");
    }
    // Without the header: the whole log.
    let r = s.get(&path).await;
    assert_eq!(r.status, 200, "{}", r.text());
    let ids = r.text().lines().filter(|l| l.starts_with("id: ")).count();
    assert_eq!(ids, all.len());
    // A real id resumes after it.
    let r = s
        .request("GET", &path, None, &[("last-event-id", "0")])
        .await;
    assert_eq!(r.status, 200);
    assert!(!r.text().contains("id: 0\n"), "{}", r.text());
    assert!(r.text().contains("id: 1\n"), "{}", r.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_section_that_does_not_exist_is_refused_not_answered_empty() {
    let s = Server::start().await;
    let id = s.start_yaml(&rounds_workload("sections", 1)).await;
    s.events(&id, None, |e| e.name == "finished").await;
    let ok = s
        .get(&format!("/api/runs/{id}/intervals?section=round"))
        .await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    assert!(!ok.json().as_array().unwrap().is_empty());
    for query in [
        "intervals?section=rounds",
        "intervals?section=",
        "intervals?max_points=4294967296",
        "distribution?section=middle&phase=read&op=get",
        "distribution?section=round&round=1&phase=read&op=fly",
    ] {
        let r = s.get(&format!("/api/runs/{id}/{query}")).await;
        assert_eq!(r.status, 400, "{query}: {}", r.text());
        assert_eq!(r.error_code(), "bad_request", "{query}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_site_requests_are_refused() {
    let s = Server::start().await;
    let body = json!({"workload": "rounds"}).to_string();
    for headers in [
        vec![("sec-fetch-site", "cross-site")],
        vec![("sec-fetch-site", "same-site")],
        vec![("origin", "http://evil.example")],
    ] {
        let r = s
            .request("POST", "/api/runs", Some(body.as_bytes()), &headers)
            .await;
        assert_eq!(r.status, 403, "{headers:?}");
        assert_eq!(r.error_code(), "cross_site_request");
    }
    // Reads stay open to cross-site navigation; the same-origin UI can write.
    let r = s
        .request(
            "GET",
            "/api/runs",
            None,
            &[("sec-fetch-site", "cross-site")],
        )
        .await;
    assert_eq!(r.status, 200);
    let r = s
        .request(
            "POST",
            "/api/workloads/validate",
            Some(json!({"text": "x"}).to_string().as_bytes()),
            &[("sec-fetch-site", "same-origin")],
        )
        .await;
    assert_eq!(r.status, 200);
    assert!(
        s.get("/api/runs")
            .await
            .json()
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_guards_every_call() {
    let token = "0123456789abcdef-token";
    let s = Server::start_with(Some(token)).await;
    assert_eq!(s.get("/api/status").await.status, 401);
    let body = json!({"workload": "rounds"}).to_string();
    for auth in [None, Some("Bearer wrong-token-0000000"), Some(token)] {
        let headers: Vec<(&str, &str)> = auth.map(|a| ("authorization", a)).into_iter().collect();
        let r = s
            .request("POST", "/api/runs", Some(body.as_bytes()), &headers)
            .await;
        assert_eq!(r.status, 401, "{auth:?}");
        assert_eq!(r.error_code(), "unauthorized");
        let r = s
            .request(
                "PUT",
                "/api/workloads/x",
                Some(json!({"text": "a"}).to_string().as_bytes()),
                &headers,
            )
            .await;
        assert_eq!(r.status, 401);
        let r = s.request("DELETE", "/api/runs/x", None, &headers).await;
        assert_eq!(r.status, 401);
    }
    let bearer = format!("Bearer {token}");
    let r = s
        .request(
            "POST",
            "/api/runs",
            Some(body.as_bytes()),
            &[("authorization", &bearer)],
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["run_id"].as_str().unwrap().to_string();
    // Reading needs the token too.
    assert_eq!(s.get("/api/runs").await.status, 401);
    let r = s
        .request("GET", "/api/runs", None, &[("authorization", &bearer)])
        .await;
    assert_eq!(r.status, 200);
    s.events_as(&id, "", &[("authorization", &bearer)], |e| {
        e.name == "finished"
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inline_secrets_never_come_back() {
    let s = Server::start().await;
    let secret = "wJalrXUtnFEMI-inline-secret";
    let yaml = format!(
        "name: secretive\ntarget:\n  endpoint: embedded\n  credentials:\n    access_key: AKIDEXAMPLE\n    secret_key: {secret}\nbuckets: {{ names: [sec-test] }}\nbefore:\n  - {{ name: fill, op: put, concurrency: 2, until_objects: 20 }}\n"
    );
    std::fs::write(s.workloads().join("secretive.yaml"), &yaml).unwrap();
    let text = s.get("/api/workloads/secretive").await.text();
    assert!(
        !text.contains(secret) && text.contains("<redacted>"),
        "{text}"
    );
    let list = s.get("/api/workloads").await.text();
    assert!(!list.contains(secret));

    let id = s.start_yaml(&yaml).await;
    let events = s.events(&id, None, |e| e.name == "finished").await;
    assert_eq!(events.last().unwrap().data["status"], "completed");
    for path in [
        format!("/api/runs/{id}"),
        "/api/runs".to_string(),
        format!("/api/runs/{id}/export/summary.csv"),
        format!("/api/runs/{id}/export/intervals.csv"),
        "/metrics".to_string(),
    ] {
        assert!(!s.get(&path).await.text().contains(secret), "{path}");
    }
    for e in &events {
        assert!(!e.data.to_string().contains(secret));
    }
    for entry in std::fs::read_dir(s.results().join(&id)).unwrap() {
        let content = std::fs::read(entry.unwrap().path()).unwrap();
        assert!(
            !String::from_utf8_lossy(&content).contains(secret),
            "a result file holds the secret"
        );
    }
    // The redacted text cannot be saved back over a workload.
    let r = s
        .put(
            "/api/workloads/secretive",
            json!({"text": text_of(&s, "secretive").await, "overwrite": true}),
        )
        .await;
    assert_eq!(
        (r.status, r.error_code().as_str()),
        (422, "redacted_secret")
    );
}

async fn text_of(s: &Server, name: &str) -> String {
    s.get(&format!("/api/workloads/{name}")).await.json()["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_document_is_served_and_checked_in() {
    let s = Server::start().await;
    let served = s.get("/api/openapi.json").await.json();
    assert!(served["paths"]["/api/runs/{id}/events"].is_object());
    assert!(served["components"]["schemas"]["RunInfo"].is_object());
    let generated: serde_json::Value =
        serde_json::from_str(&keystorm_server::api::openapi_json()).unwrap();
    assert_eq!(served, generated);
    let checked_in =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/openapi.json");
    let on_disk: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&checked_in).unwrap_or_default())
            .unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/openapi.json is out of date: run `cargo run -p keystorm -- openapi > docs/openapi.json` \
         and `npm run gen:api`"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ui_is_served_with_a_fallback_for_client_routes() {
    let s = Server::start().await;
    for path in ["/", "/runs", "/runs/some-id/live", "/compare?runs=a,b"] {
        let r = s.get(path).await;
        assert_eq!(r.status, 200, "{path}");
        assert!(
            r.headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html"),
            "{path}"
        );
        assert!(r.text().contains("<html") || r.text().contains("<!doctype html"));
    }
    let r = s.get("/assets/missing-file.js").await;
    assert_eq!(r.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tracked_run_serves_its_reshards_stalls_and_shard_columns() {
    let s = Server::start().await;
    // 11 shards × 100 objects: the bucket reshards past 1100 objects, and again later.
    let yaml = "name: tracked\ntarget:\n  endpoint: embedded\n  embedded:\n    storage: size-only\n    index: { max_objs_per_shard: 100, check_interval: 100ms, reshard_time_per_object: 100us, retry_step: 500ms }\n  rgw: { poll: 200ms }\nbuckets:\n  names: [tracked]\n  index: dynamic\nobjects: { size: 10B }\nbefore:\n  - { name: fill, op: put, concurrency: 8, until_objects: 3000 }\n";
    let id = s.start_yaml(yaml).await;
    let events = s.events(&id, None, |e| e.name == "finished").await;
    assert_eq!(events.last().unwrap().data["status"], "completed");
    let live_reshards: Vec<_> = events.iter().filter(|e| e.name == "reshard").collect();
    assert!(
        !live_reshards.is_empty(),
        "the live stream carries reshard events"
    );
    assert_eq!(live_reshards[0].data["from_shards"], 11);
    assert!(live_reshards[0].data["to_shards"].as_u64().unwrap() > 11);

    let index = s.get(&format!("/api/runs/{id}/index")).await;
    assert_eq!(index.status, 200);
    let index = index.json();
    let reshards = index["reshards"].as_array().unwrap();
    assert_eq!(reshards.len(), live_reshards.len());
    assert_eq!(reshards[0]["id"], live_reshards[0].id);
    assert_eq!(reshards[0]["bucket"], "tracked");
    assert!(index["polling"]["polls"].as_u64().unwrap() >= 2);

    let csv = s
        .get(&format!("/api/runs/{id}/export/intervals.csv"))
        .await
        .text();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let shards_col = header.iter().position(|h| *h == "shards").unwrap();
    let shards: Vec<u32> = csv
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(shards_col).unwrap().parse().unwrap())
        .collect();
    // The fill may outrun the first interval, so the series starts at 11 or at a count
    // the bucket was resharded to; it never goes down and ends past 11.
    let seen: Vec<u64> = std::iter::once(11)
        .chain(reshards.iter().map(|r| r["to_shards"].as_u64().unwrap()))
        .collect();
    assert!(
        shards.iter().all(|s| seen.contains(&u64::from(*s))),
        "{shards:?} vs {seen:?}"
    );
    assert!(shards.windows(2).all(|w| w[0] <= w[1]), "{shards:?}");
    assert!(*shards.last().unwrap() > 11, "{shards:?}");

    // The phase polls before its first request, so its start is exact.
    let summary = s
        .get(&format!("/api/runs/{id}/export/summary.csv"))
        .await
        .text();
    let header: Vec<&str> = summary.lines().next().unwrap().split(',').collect();
    let at_start = header.iter().position(|h| *h == "shards_at_start").unwrap();
    let at_end = header.iter().position(|h| *h == "shards_at_end").unwrap();
    let fill: Vec<&str> = summary.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(fill[at_start], "11", "{summary}");
    let end: u64 = fill[at_end].parse().unwrap();
    assert!(
        seen.contains(&end) && end >= u64::from(*shards.last().unwrap()),
        "{summary}"
    );

    let metrics = s.get("/metrics").await.text();
    assert!(
        metrics.contains("keystorm_bucket_index_shards{run=\"")
            && metrics.contains(&format!(
                "keystorm_reshards_total{{run=\"{id}\"}} {}",
                reshards.len()
            )),
        "{metrics}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_an_audit_found_is_in_the_integrity_report_and_in_metrics() {
    let s = Server::start().await;
    let yaml = "name: audited\ntarget:\n  endpoint: embedded\n  embedded:\n    storage: size-only\n    index: { dynamic: true, max_objs_per_shard: 20, check_interval: 10ms, reshard_time_per_object: 1us, retry_step: 1ms }\n    faults: { lose_on_reshard: 0.05, list_twice: 0.2, seed: 9 }\nbuckets: { names: [audited], create: true }\nobjects: { size: 10B }\nbefore:\n  - { name: fill, op: put, concurrency: 8, until_objects: 2000 }\n  - { name: check, op: audit, page_size: 40 }\n";
    let id = s.start_yaml(yaml).await;
    let events = s.events(&id, None, |e| e.name == "finished").await;
    assert_eq!(events.last().unwrap().data["status"], "completed");
    let audits: Vec<_> = events.iter().filter(|e| e.name == "audit").collect();
    assert_eq!(audits.len(), 1, "the live stream carries the audit");
    let counts = &audits[0].data["counts"];
    assert_eq!(counts["expected"], 2000);
    assert!(counts["missing"].as_u64().unwrap() > 0, "{counts}");

    let report = s.get(&format!("/api/runs/{id}/integrity")).await;
    assert_eq!(report.status, 200);
    let report = report.json();
    assert_eq!(report["audits"][0]["counts"], *counts);
    assert_eq!(report["audits"][0]["bucket"], "audited");

    let metrics = s.get("/metrics").await.text();
    for kind in [
        "expected",
        "listed",
        "missing",
        "doubled",
        "extra",
        "size_mismatch",
    ] {
        let line = format!(
            "keystorm_audit_keys{{run=\"{id}\",section=\"before\",round=\"\",phase=\"check\",bucket=\"audited\",kind=\"{kind}\"}} {}",
            counts[kind]
        );
        assert!(metrics.contains(&line), "{line} in\n{metrics}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_thresholds_reach_its_stream_its_detail_its_verdict_and_metrics() {
    let s = Server::start().await;
    // Every GET takes 2 ms on the target: its median is never under 1 ms.
    let yaml = "name: expecting\ntarget:\n  endpoint: embedded\n  embedded: { storage: size-only, latency: { get: 2ms } }\nbuckets: { names: [expecting] }\nobjects: { size: 10B }\nbefore:\n  - { name: fill, op: put, workers: 4, operations: 100 }\n  - { name: read, op: get, workers: 4, operations: 100, expect: [\"get.p50 < 1ms\", \"get.p50 < 10s\"] }\n";
    let id = s.start_yaml(yaml).await;
    let events = s.events(&id, None, |e| e.name == "finished").await;
    let told: Vec<(String, bool)> = events
        .iter()
        .filter(|e| e.name == "threshold")
        .map(|e| {
            (
                e.data["expect"].as_str().unwrap().to_string(),
                e.data["passed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        told,
        [
            ("get.p50 < 1ms".to_string(), false),
            ("get.p50 < 10s".to_string(), true)
        ]
    );
    let detail = s.get(&format!("/api/runs/{id}")).await.json();
    assert_eq!(
        detail["verdict"]["overall"], "missed_threshold",
        "{detail:#}"
    );
    assert_eq!(detail["thresholds"][0]["phase"], "before read");
    assert_eq!(detail["thresholds"][0]["passed"], false);
    assert!(detail["thresholds"][0]["actual"].as_f64().unwrap() >= 2_000.0);
    let metrics = s.get("/metrics").await.text();
    for (expect, met) in [("get.p50 < 1ms", 0), ("get.p50 < 10s", 1)] {
        let line = format!(
            "keystorm_threshold_met{{run=\"{id}\",phase=\"before read\",expect=\"{expect}\"}} {met}"
        );
        assert!(metrics.contains(&line), "{line} in\n{metrics}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thresholds_so_far_and_integrity_reach_the_stream_the_detail_and_metrics() {
    let s = Server::start().await;
    // Verified GETs of 2 ms each for 3 s: a p50 under 1 ms is missed all along, and
    // the store keeps what it is given.
    let yaml = "name: kept\ntarget:\n  endpoint: embedded\n  embedded: { latency: { get: 2ms } }\nbuckets: { names: [kept] }\nobjects: { size: 10B }\nexpect: [\"integrity: as_written\"]\nbefore:\n  - { name: fill, op: put, workers: 4, operations: 100 }\n  - { name: read, op: get, workers: 4, duration: 3s, verify: true, expect: [\"get.p50 < 1ms\"] }\n";
    let id = s.start_yaml(yaml).await;
    let events = s.events(&id, None, |e| e.name == "finished").await;
    let so_far: Vec<&SseEvent> = events
        .iter()
        .filter(|e| e.name == "thresholds_so_far")
        .collect();
    assert!(so_far.len() >= 2, "one a second: {}", so_far.len());
    for e in &so_far {
        assert_eq!(e.data["phase"]["name"], "read");
        assert_eq!(e.data["checks"][0]["expect"], "get.p50 < 1ms");
        assert_eq!(e.data["checks"][0]["passed"], false, "{}", e.data);
    }
    let told: Vec<(String, String, bool)> = events
        .iter()
        .filter(|e| e.name == "threshold")
        .map(|e| {
            (
                e.data["phase"].as_str().unwrap().to_string(),
                e.data["expect"].as_str().unwrap().to_string(),
                e.data["passed"].as_bool().unwrap(),
            )
        })
        .collect();
    let owned = |p: &str, e: &str, ok| (p.to_string(), e.to_string(), ok);
    assert_eq!(
        told,
        [
            owned("before read", "get.p50 < 1ms", false),
            owned("run", "integrity: as_written", true)
        ]
    );
    let detail = s.get(&format!("/api/runs/{id}")).await.json();
    assert_eq!(detail["thresholds"][1]["phase"], "run", "{detail:#}");
    assert_eq!(detail["thresholds"][1]["passed"], true);
    let metrics = s.get("/metrics").await.text();
    for (phase, expect, met) in [
        ("before read", "get.p50 < 1ms", 0),
        ("run", "integrity: as_written", 1),
    ] {
        let line = format!(
            "keystorm_threshold_met{{run=\"{id}\",phase=\"{phase}\",expect=\"{expect}\"}} {met}"
        );
        assert!(metrics.contains(&line), "{line} in\n{metrics}");
    }
    // A client drawing the recent past is spared the older ones, as it is intervals.
    let recent = s.events_with(&id, "recent=1", None, |_| false).await;
    let kept: Vec<u64> = recent
        .iter()
        .filter(|e| e.name == "thresholds_so_far")
        .map(|e| e.id)
        .collect();
    assert_eq!(kept, [so_far.last().unwrap().id]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_that_move_local_folders_are_refused() {
    let s = Server::start().await;
    for op in ["download", "upload"] {
        let yaml = format!(
            "name: t\ntarget: {{ endpoint: embedded }}\nbuckets: {{ names: [abc] }}\nafter:\n  - {{ op: {op}, dir: /etc }}\n"
        );
        let r = s
            .post("/api/runs", serde_json::json!({ "yaml": yaml }))
            .await;
        assert_eq!(r.status, 400, "{}", r.text());
        let body = r.json();
        assert!(
            body["detail"]
                .as_str()
                .unwrap()
                .contains("downloads or uploads a local folder"),
            "{body}"
        );
    }
    let runs = s.get("/api/runs").await.json();
    assert_eq!(runs.as_array().unwrap().len(), 0, "nothing started");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_on_agents_is_refused_with_a_reason_when_it_cannot_be_split() {
    let s = Server::start().await;
    let workload = |target: &str, extra: &str| {
        format!(
            "name: split\ntarget: {target}\nbuckets: {{ names: [split] }}\n{extra}\
             before:\n  - {{ op: put, operations: 10 }}\n"
        )
    };
    let refused = |r: &api_support::Reply, code: &str, words: &str| {
        assert_eq!(r.error_code(), code, "{}", r.text());
        let detail = r.json()["detail"].as_str().unwrap().to_string();
        assert!(detail.contains(words), "{detail}");
    };
    let url = "{ endpoint: \"http://127.0.0.1:9\" }";
    // Keys written in the workload would travel to every agent: refused.
    let inline =
        "{ endpoint: \"http://127.0.0.1:9\", credentials: { access_key: AK, secret_key: SK } }";
    let r = s
        .post(
            "/api/runs",
            json!({"yaml": workload(inline, ""), "agents": 2}),
        )
        .await;
    assert_eq!(r.status, 422);
    refused(&r, "cannot_start", "sends no keys");
    assert!(!r.text().contains("SK"));
    let r = s
        .post(
            "/api/runs",
            json!({"yaml": workload("{ endpoint: embedded }", ""), "agents": 2}),
        )
        .await;
    refused(&r, "cannot_start", "embedded");
    let r = s
        .post(
            "/api/runs",
            json!({"yaml": workload(url, "cleanup: { buckets: true }\n"), "agents": 2}),
        )
        .await;
    assert_eq!(r.status, 422, "{}", r.text());
    let r = s
        .post("/api/runs", json!({"yaml": workload(url, ""), "agents": 0}))
        .await;
    assert_eq!(r.status, 400, "{}", r.text());
    // A good workload with no agent connected: 409, saying how to start one.
    let r = s
        .post("/api/runs", json!({"yaml": workload(url, ""), "agents": 2}))
        .await;
    assert_eq!(r.status, 409);
    refused(&r, "not_enough_agents", "keystorm agent --controller");
    let view = s.get("/api/agents").await.json();
    assert_eq!(view, json!({"agents": [], "run": null}));
    // Another version of keystorm cannot register.
    let r = s
        .post(
            "/api/agents/register",
            json!({"name": "old", "host": "h", "version": "0.0.1", "cores": 1}),
        )
        .await;
    assert_eq!(r.status, 409);
    refused(&r, "version_mismatch", "0.0.1");
}

/// The operations in all cells of a heatmap answer, added up.
fn heatmap_cells(heat: &serde_json::Value) -> u64 {
    heat["counts"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c.as_array().unwrap())
        .map(|n| n.as_u64().unwrap())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_on_agents_shows_the_endpoint_it_was_started_with_from_its_first_second() {
    let s = Server::start().await;
    let r = s
        .post(
            "/api/agents/register",
            json!({"name": "a0", "host": "h", "version": env!("CARGO_PKG_VERSION"), "cores": 1}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.text());
    // The workload names the embedded target; the run is given the agents' endpoint.
    let yaml = "name: ep\ntarget: { endpoint: embedded }\nbuckets: { names: [ep-test] }\n\
                before:\n  - { op: put, operations: 10 }\n";
    let endpoint = "http://127.0.0.1:9";
    let r = s
        .post(
            "/api/runs",
            json!({"yaml": yaml, "agents": 1, "endpoint": endpoint}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.text());
    let id = r.json()["run_id"].as_str().unwrap().to_string();
    let runs = s.get("/api/runs").await.json();
    assert_eq!(runs[0]["run_id"], id.as_str());
    assert_eq!(runs[0]["endpoint"], endpoint, "{runs}");
    assert_eq!(
        s.get(&format!("/api/runs/{id}")).await.json()["manifest"]["endpoint"],
        endpoint
    );
    let events = s.events(&id, None, |e| e.name == "started").await;
    assert_eq!(events.last().unwrap().data["endpoint"], endpoint);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_run_says_why_in_the_runs_list() {
    let s = Server::start().await;
    // Nothing listens on port 9 of loopback: the run fails before its first phase.
    let id = s
        .start_yaml(
            "name: nowhere\ntarget:\n  endpoint: http://127.0.0.1:9\n  retries: 0\n\
             \x20 credentials: { access_key: AK, secret_key: SK }\n\
             buckets: { names: [nowhere], create: true }\nobjects: { size: 1KiB }\n\
             before:\n  - { name: fill, op: put, concurrency: 1, until_objects: 10 }\n",
        )
        .await;
    let end = s.events(&id, None, |e| e.name == "finished").await;
    assert_eq!(end.last().unwrap().data["status"], "failed");
    let runs = s.get("/api/runs").await.json();
    let run = runs
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["run_id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(run["status"], "failed", "{run}");
    let why = run["error"].as_str().unwrap_or_default();
    assert!(why.contains("127.0.0.1:9"), "{run}");
    let detail = s.get(&format!("/api/runs/{id}")).await.json();
    assert_eq!(detail["info"]["error"], run["error"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_reading_a_listing_says_what_it_read_and_the_runs_list_filters_on_buckets() {
    let s = Server::start().await;
    let yaml = "name: listed\ntarget: { endpoint: embedded }\nbuckets: { names: [listed] }\n\
                objects: { size: 100B }\nbefore:\n  \
                - { name: fill, op: put, concurrency: 8, until_objects: 500, allow_writes: true }\n  \
                - { name: read, op: get, concurrency: 8, epochs: 2, keys: { from: listing } }\n";
    let id = s.start_yaml(yaml).await;
    let events = s.events(&id, None, |e| e.name == "finished").await;
    assert_eq!(events.last().unwrap().data["status"], "completed");
    let keys: Vec<_> = events.iter().filter(|e| e.name == "keys").collect();
    assert_eq!(keys.len(), 1, "the live stream carries the keys event");
    assert_eq!(keys[0].data["bucket"], "listed");
    assert_eq!(keys[0].data["keys"], 500);
    assert_eq!(keys[0].data["file"], "keys-1.keys");
    let listings = s.get(&format!("/api/runs/{id}/listings")).await.json();
    assert_eq!(listings["keys"][0], keys[0].data);
    let intervals = s
        .get(&format!("/api/runs/{id}/intervals?phase=read"))
        .await
        .json();
    let last = intervals.as_array().unwrap().last().cloned().unwrap();
    assert_eq!(last["epoch"], 2, "{last}");

    let other = s
        .start_yaml(
            "name: other\ntarget: { endpoint: embedded }\nbuckets: { names: [elsewhere] }\n\
             objects: { size: 100B }\nbefore:\n  - { op: put, concurrency: 2, until_objects: 10 }\n",
        )
        .await;
    s.events(&other, None, |e| e.name == "finished").await;
    let ids = |runs: serde_json::Value| -> Vec<String> {
        runs.as_array()
            .unwrap()
            .iter()
            .map(|r| r["run_id"].as_str().unwrap().to_string())
            .collect()
    };
    let all = s.get("/api/runs").await.json();
    assert_eq!(ids(all.clone()), vec![other.clone(), id.clone()]);
    assert_eq!(all[1]["buckets"], serde_json::json!(["listed"]));
    assert_eq!(ids(s.get("/api/runs?bucket=listed").await.json()), vec![id]);
    assert_eq!(
        ids(s.get("/api/runs?bucket=elsewhere").await.json()),
        vec![other]
    );
    assert!(ids(s.get("/api/runs?bucket=none").await.json()).is_empty());
    let bad = s.get("/api/runs?buckets=listed").await;
    assert_eq!(bad.status, 400, "an unknown filter is refused");
    let long = s
        .get(&format!("/api/runs?bucket={}", "b".repeat(256)))
        .await;
    assert_eq!(
        long.status, 400,
        "a bucket longer than its schema allows is refused"
    );
    assert!(long.text().contains("at most 255"), "{}", long.text());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_endpoint_is_in_the_endpoints_report_and_each_row_breaks_down_by_endpoint() {
    let s = Server::start().await;
    let sim = keystorm_sim::start("127.0.0.1:0".parse().unwrap(), Default::default())
        .await
        .unwrap();
    // A port nothing listens on: the second endpoint is lost from the start.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let gone = format!("http://{}", closed.local_addr().unwrap());
    drop(closed);
    let up = format!("http://{}", sim.addr());
    let yaml = format!(
        "name: two-gateways\ntarget:\n  endpoints: [\"{up}\", \"{gone}\"]\n  spread: round_robin\n  on_endpoint_down: shift\n  endpoint_health: {{ down_after: 2, probe: 10s }}\n  credentials: {{ access_key: a-key, secret_key: a-secret }}\nbuckets: {{ names: [gateways] }}\nobjects: {{ size: 10B }}\nbefore:\n  - {{ name: fill, op: put, concurrency: 2, operations: 300 }}\n"
    );
    let id = s.start_yaml(&yaml).await;
    let events = s.events(&id, None, |e| e.name == "finished").await;
    assert_eq!(events.last().unwrap().data["status"], "completed");

    let report = s.get(&format!("/api/runs/{id}/endpoints")).await;
    assert_eq!(report.status, 200);
    let report = report.json();
    assert_eq!(report["omitted"], 0);
    let down = &report["events"][0];
    assert_eq!(down["endpoint"], gone.as_str(), "{report}");
    assert_eq!(down["state"], "down");
    assert_eq!(down["phase"]["name"], "fill");
    assert_eq!(down["failures"], 2);

    let detail = s.get(&format!("/api/runs/{id}")).await.json();
    let row = &detail["summary"]["rows"][0];
    let parts = row["endpoints"].as_array().unwrap();
    let ops: u64 = parts.iter().map(|p| p["ops"].as_u64().unwrap()).sum();
    assert_eq!(ops, row["ops"].as_u64().unwrap());
    assert_eq!(parts[0]["endpoint"], up.as_str());

    // A run of one endpoint has none to report; an unknown run is a 404.
    let one = s
        .start_yaml("name: one\nbuckets: { names: [one-endpoint] }\nbefore:\n  - { op: put, operations: 10 }\n")
        .await;
    s.events(&one, None, |e| e.name == "finished").await;
    let none = s.get(&format!("/api/runs/{one}/endpoints")).await.json();
    assert_eq!(none, json!({"events": [], "omitted": 0}));
    assert_eq!(s.get("/api/runs/no-such-run/endpoints").await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_starts_as_soon_as_the_one_before_said_it_finished() {
    let s = Server::start().await;
    // Each start follows the previous run's `finished` event with nothing in between:
    // the server is one run at a time, and a run that said it finished is no longer
    // going (it was refused as "still going" while it closed its files).
    for n in 0..12 {
        let id = s
            .start_yaml(&format!(
                "name: back-to-back-{n}\nbuckets: {{ names: [back-to-back] }}\nbefore:\n  - {{ op: put, operations: 5 }}\n"
            ))
            .await;
        let events = s.events(&id, None, |e| e.name == "finished").await;
        assert_eq!(
            events.last().unwrap().data["status"],
            "completed",
            "run {n}"
        );
    }
}

/// Three rounds of GETs against the embedded target taking `latency` per GET.
fn compared_workload(name: &str, latency: &str) -> String {
    format!(
        "name: {name}\ntarget:\n  endpoint: embedded\n  embedded: {{ storage: size-only, latency: {{ get: {latency} }} }}\n\
         buckets: {{ names: [compared] }}\nobjects: {{ size: 10B }}\nbefore:\n  - {{ name: fill, op: put, workers: 4, operations: 100 }}\n\
         rounds:\n  count: 3\n  phases:\n    - {{ name: read, op: get, workers: 4, operations: 400 }}\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compare_judges_each_change_and_refuses_what_it_cannot_read() {
    let s = Server::start().await;
    let mut ids = Vec::new();
    // Twenty times slower: a round of the slow run takes 2 s of the store's own time,
    // which no starved client makes of the fast run's 0.1 s.
    for (name, latency) in [("fast", "1ms"), ("slow", "20ms")] {
        let id = s.start_yaml(&compared_workload(name, latency)).await;
        s.events(&id, None, |e| e.name == "finished").await;
        ids.push(id);
    }
    let (base, new) = (&ids[0], &ids[1]);
    let c = s.get(&format!("/api/compare?base={base}&new={new}")).await;
    assert_eq!(c.status, 200);
    let c = c.json();
    assert_eq!(c["base"]["run_id"], base.as_str());
    assert_eq!(c["noise_floor"], 0.02);
    let changes = c["runs"][0]["changes"].as_array().unwrap();
    let find = |round: Option<u64>, metric: &str| {
        changes
            .iter()
            .find(|x| {
                x["phase"] == "read"
                    && x["metric"] == metric
                    && x["round"].as_u64() == round
                    && (round.is_some() || x["all_rounds"] == true)
            })
            .unwrap_or_else(|| panic!("no {metric} of round {round:?} in {c:#}"))
    };
    // A round alone is too short to judge, and says so; the three rounds together,
    // drawn over the rounds, show the fivefold GET clearly.
    let one = find(Some(1), "p50");
    assert_eq!(one["verdict"], "inconclusive", "{one:#}");
    assert!(
        one["why"]
            .as_str()
            .unwrap()
            .contains("an interval needs at least 10"),
        "{one:#}"
    );
    let all = find(None, "p50");
    assert_eq!(all["verdict"], "regressed", "{all:#}");
    assert!(all["ratio"]["low"].as_f64().unwrap() > 1.2, "{all:#}");
    let throughput = find(None, "ops_per_sec");
    assert_eq!(throughput["verdict"], "regressed", "{throughput:#}");
    assert!(c["runs"][0]["counts"]["regressed"].as_u64().unwrap() >= 2);
    // The paragraph says it in words: the rounds-together ratio with its interval and
    // verdict, and that the difference recurs in every round.
    let paragraph = c["runs"][0]["paragraph"].as_str().unwrap();
    assert!(
        paragraph.contains("read (rounds together) get −"),
        "{paragraph}"
    );
    assert!(paragraph.contains("), regressed"), "{paragraph}");
    assert!(
        paragraph.contains("read get throughput round by round: −"),
        "{paragraph}"
    );
    // Each round alone too short to judge: lower every time, judged in none.
    assert!(
        paragraph.contains("lower in every round; judged a change in 0 of 3."),
        "{paragraph}"
    );
    // Narrowed to one metric.
    let narrowed = s
        .get(&format!(
            "/api/compare?base={base}&new={new}&metrics=p99&ops=get"
        ))
        .await
        .json();
    let changes = narrowed["runs"][0]["changes"].as_array().unwrap();
    assert!(!changes.is_empty() && changes.iter().all(|x| x["metric"] == "p99"));
    // A run's detail carries its intervals (the rounds too short: each says why).
    let detail = s.get(&format!("/api/runs/{base}")).await.json();
    let intervals = detail["intervals"].as_array().unwrap();
    assert_eq!(intervals.len(), detail["phases"].as_array().unwrap().len());
    assert!(
        intervals.iter().all(|i| i["none_because"].is_string()),
        "{intervals:#?}"
    );
    // What it cannot read or judge: JSON 4xx, never a 5xx.
    for (query, status, said) in [
        (format!("base=nosuch&new={new}"), 404, "no run"),
        (format!("base={base}&new=nosuch"), 404, "no run"),
        (format!("base={base}&new=.."), 400, "bad run id"),
        (format!("base={base}&new="), 400, "names no run"),
        (format!("base={base}"), 400, ""),
        (
            format!("base={base}&new={new}&metrics=p42"),
            400,
            "is not a metric",
        ),
        (
            format!("base={base}&new={new}&ops=copy"),
            400,
            "is not an operation",
        ),
        (
            format!("base={base}&new={new}&noise_floor=2"),
            400,
            "noise_floor",
        ),
        (
            format!("base={base}&new={}", [new.as_str(); 9].join(",")),
            400,
            "at most 8",
        ),
    ] {
        let r = s.get(&format!("/api/compare?{query}")).await;
        assert_eq!(r.status, status, "{query}: {}", r.text());
        assert!(r.text().contains(said), "{query}: {}", r.text());
    }
}
