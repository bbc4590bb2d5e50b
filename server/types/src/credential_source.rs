//! Where a target's credentials come from, as a workload's plan records it: never the
//! secret.

use serde::Serialize;

/// Where credentials come from. Serialized without the secret itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CredentialSource {
    /// Environment variables holding the access key, secret key and optional session token.
    Env {
        access_key_var: String,
        secret_key_var: String,
        session_token_var: String,
    },
    /// A named profile from the AWS shared config/credentials files.
    Profile(String),
    /// Written in the workload (allowed, with a warning). The secret and the session
    /// token are skipped on output (and the access key redacted where it is written).
    Inline {
        access_key_id: String,
        #[serde(skip)]
        secret_access_key: String,
        #[serde(skip)]
        session_token: Option<String>,
    },
    /// Defaults: env vars if set, otherwise the default profile; for `embedded`, fixed keys.
    Default,
}
