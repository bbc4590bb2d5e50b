//! What the tests that run the `keystorm` binary against an embedded target share: a
//! signature-verifying target kept serving by its own runtime, and the binary's JSON
//! output read with its exit status checked and against its schema in `docs/schema`.

#![allow(dead_code)]

use keystorm_sim::{SimConfig, SimHandle};

/// A target on loopback verifying SigV4 with these keys, alive as long as the runtime.
pub fn signing_target(access_key: &str, secret_key: &str) -> (tokio::runtime::Runtime, SimHandle) {
    signing_target_with(
        access_key,
        secret_key,
        keystorm_sim::LatencyConfig::default(),
    )
}

/// The same target, taking `latency` per operation.
pub fn signing_target_with(
    access_key: &str,
    secret_key: &str,
    latency: keystorm_sim::LatencyConfig,
) -> (tokio::runtime::Runtime, SimHandle) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let sim = rt
        .block_on(keystorm_sim::start(
            "127.0.0.1:0".parse().unwrap(),
            SimConfig {
                credentials: Some((access_key.into(), secret_key.into())),
                latency,
                ..SimConfig::default()
            },
        ))
        .unwrap();
    (rt, sim)
}

/// The JSON a successful command printed on stdout, valid against `docs/schema/NAME`.
pub fn json_of(out: &std::process::Output, schema: &str) -> serde_json::Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let errors = schema_violations(schema, &value);
    assert!(
        errors.is_empty(),
        "{schema} violations: {errors:#?}\n{value:#}"
    );
    value
}

/// What `value` breaks of the schema `docs/schema/NAME`.
pub fn schema_violations(schema: &str, value: &serde_json::Value) -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/schema")
        .join(schema);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let schema: serde_json::Value = serde_json::from_str(&text).expect("schema is JSON");
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    validator
        .iter_errors(value)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect()
}

/// The id of the one run in the results folder `results`.
pub fn only_run(results: &std::path::Path) -> String {
    let mut runs = std::fs::read_dir(results)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("manifest.json").is_file());
    let run = runs.next().expect("a run folder");
    assert!(
        runs.next().is_none(),
        "more than one run in {}",
        results.display()
    );
    run.file_name().into_string().unwrap()
}

/// Writes `text` as `name` in `dir`; its path.
pub fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}
