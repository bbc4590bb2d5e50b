//! Credentials reach the target from where the workload says: a named profile in the
//! AWS shared files, or environment variables; a missing source is a setup error that
//! names what to set. The target verifies SigV4 signatures, so wrong keys would fail.

mod cli_support;

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

const ACCESS: &str = "AKIDPROFILE";
const SECRET: &str = "profile-secret-key";

fn target() -> (tokio::runtime::Runtime, keystorm_sim::SimHandle) {
    cli_support::signing_target(ACCESS, SECRET)
}

fn workload(dir: &Path, endpoint: &str, credentials: &str) -> std::path::PathBuf {
    let text = format!(
        "name: creds
target: {{ endpoint: \"{endpoint}\", credentials: {credentials} }}
buckets: {{ names: [creds] }}
objects: {{ size: 16B }}
before:
  - {{ name: fill, op: put, concurrency: 2, until_objects: 20 }}
"
    );
    let p = dir.join("creds.yaml");
    std::fs::write(&p, text).unwrap();
    p
}

fn keystorm(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("keystorm").unwrap();
    cmd.env_remove("AWS_ACCESS_KEY_ID")
        .env_remove("AWS_SECRET_ACCESS_KEY")
        .env_remove("AWS_SESSION_TOKEN")
        .env_remove("AWS_PROFILE")
        .env("AWS_CONFIG_FILE", dir.join("config"))
        .env("AWS_SHARED_CREDENTIALS_FILE", dir.join("credentials"))
        .env("HOME", dir);
    cmd
}

/// `keystorm run FILE` with results in the temp folder and no progress output.
fn run(dir: &Path, file: &Path) -> Command {
    let mut cmd = keystorm(dir);
    cmd.arg("run")
        .arg(file)
        .args(["--progress", "quiet", "--results"])
        .arg(dir.join("results"));
    cmd
}

#[test]
fn a_named_profile_signs_requests_the_target_accepts() {
    let (_rt, sim) = target();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("credentials"),
        format!(
            "[default]\naws_access_key_id = wrong\naws_secret_access_key = wrong\n\n\
             [bench]\naws_access_key_id = {ACCESS}\naws_secret_access_key = {SECRET}\n"
        ),
    )
    .unwrap();
    let f = workload(dir.path(), &sim.endpoint(), "{ profile: bench }");
    run(dir.path(), &f).assert().success();
    assert_eq!(sim.object_count("creds"), Some(20));
}

#[test]
fn the_default_chain_falls_back_to_the_default_profile() {
    let (_rt, sim) = target();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("credentials"),
        format!("[default]\naws_access_key_id = {ACCESS}\naws_secret_access_key = {SECRET}\n"),
    )
    .unwrap();
    let f = workload(dir.path(), &sim.endpoint(), "null");
    run(dir.path(), &f).assert().success();
    assert_eq!(sim.object_count("creds"), Some(20));
}

#[test]
fn named_environment_variables_are_read() {
    let (_rt, sim) = target();
    let dir = tempfile::tempdir().unwrap();
    let f = workload(
        dir.path(),
        &sim.endpoint(),
        "{ env: { access_key: LAB_KEY, secret_key: LAB_SECRET } }",
    );
    run(dir.path(), &f)
        .env("LAB_KEY", ACCESS)
        .env("LAB_SECRET", SECRET)
        .assert()
        .success();
    assert_eq!(sim.object_count("creds"), Some(20));
}

#[test]
fn a_missing_profile_or_variable_is_a_clear_setup_error() {
    let (_rt, sim) = target();
    let dir = tempfile::tempdir().unwrap();
    let f = workload(dir.path(), &sim.endpoint(), "{ profile: nowhere }");
    run(dir.path(), &f)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("profile \"nowhere\""));

    let f = workload(
        dir.path(),
        &sim.endpoint(),
        "{ env: { access_key: LAB_KEY_UNSET, secret_key: LAB_SECRET_UNSET } }",
    );
    run(dir.path(), &f)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("LAB_KEY_UNSET"));
    assert_eq!(sim.object_count("creds"), None);
}
