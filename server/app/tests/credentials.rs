//! Credentials reach the target from where the workload says: a named profile in the
//! AWS shared files, or environment variables; missing ones are bad input (exit code
//! 2) with a message that names what to set, for a run and for the commands that talk
//! to a bucket directly. The target verifies SigV4 signatures, so wrong keys would fail.

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
    run(dir.path(), &f).assert().code(2).stderr(
        predicate::str::contains("profile \"nowhere\"")
            .and(predicate::str::contains("target.credentials.profile")),
    );

    let f = workload(
        dir.path(),
        &sim.endpoint(),
        "{ env: { access_key: LAB_KEY_UNSET, secret_key: LAB_SECRET_UNSET } }",
    );
    run(dir.path(), &f).assert().code(2).stderr(
        predicate::str::contains("LAB_KEY_UNSET")
            .and(predicate::str::contains("target.credentials.env")),
    );
    assert_eq!(sim.object_count("creds"), None);
}

/// What a message about missing default credentials must name.
fn names_what_to_set(stderr: &str) {
    for needle in [
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "~/.aws/credentials",
        "AWS_PROFILE",
    ] {
        assert!(stderr.contains(needle), "lacks {needle}: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn no_credentials_anywhere_is_bad_input_that_names_what_to_set() {
    let (_rt, sim) = target();
    sim.store().create_bucket("present");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let f = workload(d, &sim.endpoint(), "null");
    let out = run(d, &f).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    names_what_to_set(&stderr);
    assert!(stderr.contains("target.credentials"), "{stderr}");
    assert!(
        !d.join("results").exists(),
        "a run that never started left results"
    );

    let endpoint = sim.endpoint();
    let restore = d.join("restore");
    let commands: [&[&str]; 3] = [
        &["list", "present"],
        &["download", "present", restore.to_str().unwrap()],
        &["upload", d.to_str().unwrap(), "present"],
    ];
    for args in commands {
        let out = keystorm(d)
            .args(args)
            .args(["--endpoint", &endpoint])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        names_what_to_set(&stderr);
        assert!(stderr.contains("--profile"), "{stderr}");
    }
    assert!(!restore.exists());

    // Half of the pair is named as the missing half.
    let out = keystorm(d)
        .args(["list", "present", "--endpoint", &endpoint])
        .env("AWS_ACCESS_KEY_ID", ACCESS)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("AWS_SECRET_ACCESS_KEY is not set"),
        "{stderr}"
    );
}
