//! What the tests that run the `keystorm` binary against an embedded target share: a
//! signature-verifying target kept serving by its own runtime, and the binary's JSON
//! output read with its exit status checked.

#![allow(dead_code)]

use keystorm_sim::{SimConfig, SimHandle};

/// A target on loopback verifying SigV4 with these keys, alive as long as the runtime.
pub fn signing_target(access_key: &str, secret_key: &str) -> (tokio::runtime::Runtime, SimHandle) {
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
                ..SimConfig::default()
            },
        ))
        .unwrap();
    (rt, sim)
}

/// The JSON a successful command printed on stdout.
pub fn json_of(out: &std::process::Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}
