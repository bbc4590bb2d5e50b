//! docker-compose.yml is for users with Docker (no engine runs here): check that it
//! parses, names the services and volumes it should, publishes only on loopback, and
//! runs keystorm with a token since it listens beyond loopback inside the container.

use std::collections::BTreeMap;

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
    assert_eq!(c.services.keys().collect::<Vec<_>>(), ["keystorm", "minio"]);
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
fn every_published_port_is_on_loopback() {
    for (name, s) in compose().services {
        assert!(!s.ports.is_empty(), "{name} publishes its port");
        for p in s.ports {
            assert!(p.starts_with("127.0.0.1:"), "{name}: {p}");
        }
    }
}
