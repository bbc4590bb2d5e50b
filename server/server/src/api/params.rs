//! The formats of path parameters and request fields as the OpenAPI document states
//! them, kept beside the checks the server makes, so that a client (or a fuzzer) that
//! follows the document is never refused by a rule the document does not mention.

use serde::Deserialize;
use utoipa::IntoParams;
use utoipa::openapi::schema::{Object, ObjectBuilder, SchemaType, Type};

use keystorm_types::text::PRINTABLE_PATTERN as LABEL_VALUE_PATTERN;
use keystorm_types::{LABEL_KEY_PATTERN, LABEL_VALUE_MAX_CHARS};

/// The `{id}` of every `/api/runs/{id}` route: what [`super::run_files::run_dir`] accepts.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct RunIdParam {
    /// Run id, e.g. `20261122-154000-demo-3f9a`: letters, digits, `-` and `_`, in
    /// parts joined by single dots; at most 128 characters.
    #[param(pattern = r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$", max_length = 128)]
    pub id: String,
}

/// The `{name}` of `/api/workloads/{name}`: what [`super::workloads::check_name`] accepts.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct WorkloadNameParam {
    /// Workload name (the file name without `.yaml`, which may be added): 1-64
    /// letters, digits, `-` or `_`.
    #[param(pattern = r"^[A-Za-z0-9_-]{1,64}(\.yaml)?$")]
    pub name: String,
}

fn labels_builder() -> ObjectBuilder {
    ObjectBuilder::new()
        .description(Some(
            "Labels: keys of 1-64 letters, digits, '-', '_' or '.'; values of at most 256 \
             characters, none of them a control or invisible formatting character.",
        ))
        .property_names(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(LABEL_KEY_PATTERN)),
        ))
        .additional_properties(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .max_length(Some(LABEL_VALUE_MAX_CHARS))
                .pattern(Some(LABEL_VALUE_PATTERN)),
        ))
}

/// The schema of a `labels` field.
pub fn labels_schema() -> Object {
    labels_builder().schema_type(Type::Object).build()
}

/// The schema of a `labels` field that may also be null (leave the labels as they are).
pub fn optional_labels_schema() -> Object {
    labels_builder()
        .schema_type(SchemaType::from_iter([Type::Object, Type::Null]))
        .build()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::{Value, json};

    use super::super::active::check_labels;
    use super::super::openapi_json;
    use super::super::run_files::is_run_id;
    use super::super::workloads::check_name;

    fn document() -> Value {
        serde_json::from_str(&openapi_json()).unwrap()
    }

    fn valid(schema: &Value, instance: &Value) -> bool {
        jsonschema::is_valid(schema, instance)
    }

    #[test]
    fn the_documented_run_id_is_the_one_the_server_accepts() {
        let doc = document();
        let schema = &doc["paths"]["/api/runs/{id}"]["get"]["parameters"][0]["schema"];
        assert!(schema["pattern"].is_string(), "{schema}");
        let long = "x".repeat(128);
        let too_long = "x".repeat(129);
        for id in [
            "20261122-154000-demo-3f9a",
            "a",
            "a.b",
            "a_b-c.d",
            long.as_str(),
            too_long.as_str(),
            "",
            ".",
            "..",
            ".a",
            "a.",
            "a..b",
            "a/b",
            "a b",
            "é",
            "a\0",
        ] {
            assert_eq!(valid(schema, &json!(id)), is_run_id(id), "{id:?}");
        }
    }

    #[test]
    fn the_documented_workload_name_is_the_one_the_server_accepts() {
        let doc = document();
        let schema = &doc["paths"]["/api/workloads/{name}"]["get"]["parameters"][0]["schema"];
        assert!(schema["pattern"].is_string(), "{schema}");
        let longest = "x".repeat(64);
        let too_long = "x".repeat(65);
        let longest_file = format!("{longest}.yaml");
        for name in [
            "demo",
            "demo.yaml",
            "a-b_C9",
            longest.as_str(),
            longest_file.as_str(),
            too_long.as_str(),
            "",
            ".yaml",
            "a.yaml.yaml",
            "a.b",
            "../x",
            "ünï",
        ] {
            assert_eq!(
                valid(schema, &json!(name)),
                check_name(name).is_ok(),
                "{name:?}"
            );
        }
        let start = &doc["components"]["schemas"]["StartRunRequest"]["properties"]["workload"];
        assert_eq!(start["pattern"], schema["pattern"]);
    }

    #[test]
    fn documented_labels_are_the_ones_the_server_accepts() {
        let doc = document();
        let schema = &doc["components"]["schemas"]["StartRunRequest"]["properties"]["labels"];
        assert!(schema["propertyNames"]["pattern"].is_string(), "{schema}");
        let key64 = "k".repeat(64);
        let key65 = "k".repeat(65);
        let ascii256 = "v".repeat(256);
        let ascii257 = "v".repeat(257);
        let wide256 = "é".repeat(256);
        let wide257 = "é".repeat(257);
        for (k, v) in [
            ("bucket", "dynamic"),
            ("a.b-c_d", ""),
            (key64.as_str(), "v"),
            (key65.as_str(), "v"),
            ("", "v"),
            ("a b", "v"),
            ("k", ascii256.as_str()),
            ("k", ascii257.as_str()),
            ("k", wide256.as_str()),
            ("k", wide257.as_str()),
            ("k", "bell\u{7}"),
            ("k", "next line\u{85}"),
            ("k", "tab\t"),
            ("k", "emoji 🦀"),
        ] {
            let labels = BTreeMap::from([(k.to_string(), v.to_string())]);
            assert_eq!(
                valid(schema, &json!(labels)),
                check_labels(&labels).is_ok(),
                "{k:?}: {v:?}"
            );
        }
    }
}
