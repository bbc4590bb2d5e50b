//! docker-compose.yml is for users with Docker (no engine runs here): check that it
//! parses, names the services and volumes it should, publishes only on loopback, runs
//! keystorm with a token and TLS since it listens beyond loopback inside the container
//! (the agents trusting its certificate, and not given its key) and answering to the
//! name the agents dial it by, that every keystorm command in it is one the binary
//! accepts (agents included), and that the store's default keys are no part of a name
//! of the shipped workloads (a workload holding a secret's value there is refused).

use std::collections::BTreeMap;

use clap::Parser;
use serde::Deserialize;

#[derive(Deserialize)]
struct Compose {
    services: BTreeMap<String, Service>,
    volumes: BTreeMap<String, Option<serde_json::Value>>,
}

#[derive(Deserialize)]
struct Service {
    build: Option<serde_json::Value>,
    image: Option<String>,
    #[serde(default)]
    command: Vec<String>,
    #[serde(default)]
    environment: BTreeMap<String, String>,
    #[serde(default)]
    ports: Vec<String>,
    #[serde(default)]
    volumes: Vec<String>,
}

fn compose() -> Compose {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docker-compose.yml");
    let text = std::fs::read_to_string(path).unwrap();
    serde_saphyr::from_str(&text).unwrap_or_else(|e| panic!("docker-compose.yml: {e}"))
}

#[test]
fn compose_names_keystorm_and_its_s3_store_with_their_volumes() {
    let c = compose();
    assert_eq!(
        c.services.keys().collect::<Vec<_>>(),
        ["agent", "keystorm", "minio"]
    );
    assert_eq!(c.volumes.keys().collect::<Vec<_>>(), ["minio-data"]);

    let k = &c.services["keystorm"];
    assert!(k.build.is_some(), "keystorm is built from the Dockerfile");
    assert!(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../Dockerfile")
            .is_file()
    );
    assert_eq!(k.command.first().map(String::as_str), Some("serve"));
    assert!(k.volumes.contains(&"./workloads:/workloads".to_string()));
    assert!(k.volumes.contains(&"./results:/results".to_string()));
    assert!(k.environment.contains_key("KEYSTORM_TOKEN"));
    assert_eq!(
        k.environment
            .get("KEYSTORM_DEFAULT_ENDPOINT")
            .map(String::as_str),
        Some("http://minio:9000")
    );

    let m = &c.services["minio"];
    assert!(
        m.image
            .as_deref()
            .is_some_and(|i| i.starts_with("minio/minio"))
    );
    assert!(m.volumes.contains(&"minio-data:/data".to_string()));
    assert_eq!(
        m.environment.get("MINIO_ROOT_USER"),
        k.environment.get("AWS_ACCESS_KEY_ID"),
        "keystorm signs with the store's keys"
    );
}

#[test]
fn agents_dial_the_controller_with_its_token_and_the_stores_keys() {
    let c = compose();
    let (a, k) = (&c.services["agent"], &c.services["keystorm"]);
    assert!(
        a.build.is_some(),
        "agents run the same image as the controller"
    );
    assert!(a.ports.is_empty(), "an agent needs no open port");
    let cli = keystorm::cli::Cli::try_parse_from(
        std::iter::once("keystorm").chain(a.command.iter().map(String::as_str)),
    )
    .unwrap_or_else(|e| panic!("the agent's command: {e}"));
    let keystorm::cli::Command::Agent(args) = cli.command else {
        panic!("the agent service runs `keystorm agent`");
    };
    assert_eq!(args.controller, "https://keystorm:7878");
    assert_eq!(
        args.link.ca_file.as_deref(),
        Some(std::path::Path::new("/tls/tls.crt"))
    );
    assert!(!args.link.insecure_http);
    // The certificate alone, read-only: the key stays with the controller.
    assert_eq!(a.volumes, ["./tls/tls.crt:/tls/tls.crt:ro"]);
    // No --name: each container is named after its host name, unique per replica.
    assert!(args.name.is_none());
    for key in [
        "KEYSTORM_TOKEN",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
    ] {
        assert_eq!(a.environment.get(key), k.environment.get(key), "{key}");
    }
    let serve = keystorm::cli::Cli::try_parse_from(
        std::iter::once("keystorm").chain(k.command.iter().map(String::as_str)),
    )
    .unwrap_or_else(|e| panic!("the controller's command: {e}"));
    let keystorm::cli::Command::Serve(serve) = serve.command else {
        panic!("the keystorm service runs `keystorm serve`");
    };
    assert!(!serve.bind.is_loopback());
    assert_eq!(
        serve.tls.tls_cert.as_deref(),
        Some(std::path::Path::new("/tls/tls.crt"))
    );
    assert_eq!(
        serve.tls.tls_key.as_deref(),
        Some(std::path::Path::new("/tls/tls.key"))
    );
    assert!(!serve.tls.insecure_http);
    assert!(k.volumes.contains(&"./tls:/tls:ro".to_string()));
    // The controller answers to the name the agents dial.
    let hosts = keystorm_server::api::AllowedHosts::new(
        serve.bind.is_loopback(),
        &serve.allowed_host,
        serve.public_url.as_slice(),
    )
    .unwrap();
    let dialled = args.controller.trim_start_matches("https://");
    assert!(hosts.allows(dialled), "{dialled} is not an allowed host");
}

/// The default of a `${VAR:-default}` value.
fn default_of(value: &str) -> &str {
    value
        .split_once(":-")
        .map_or(value, |(_, d)| d.trim_end_matches('}'))
}

#[test]
fn the_stores_default_keys_are_in_no_name_of_the_shipped_workloads() {
    let k = &compose().services["keystorm"];
    let keys: Vec<&str> = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"]
        .iter()
        .map(|name| default_of(&k.environment[*name]))
        .collect();
    let known = keystorm_results::secrets::Redactor::new(&keys);
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../workloads");
    let mut checked = 0;
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = std::fs::read_to_string(&path).unwrap();
            keystorm_workload::spec::check_secret_places(
                &text,
                &path.display().to_string(),
                &known,
            )
            .unwrap_or_else(|e| panic!("{e}"));
            checked += 1;
        }
    }
    assert!(checked >= 5, "{checked} workloads");
}

#[test]
fn every_published_port_is_on_loopback() {
    for (name, s) in compose().services {
        if name == "agent" {
            continue;
        }
        assert!(!s.ports.is_empty(), "{name} publishes its port");
        for p in s.ports {
            assert!(p.starts_with("127.0.0.1:"), "{name}: {p}");
        }
    }
}
