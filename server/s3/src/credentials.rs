//! Resolving a workload's credential source into static keys before the run starts.
//!
//! Resolution happens once, up front, so that a missing variable or profile is a setup
//! error with a clear message rather than a run full of 403s, and so that both clients
//! sign with the same keys. The default chain is deliberately local only (environment,
//! then the shared config files): keystorm never probes instance metadata endpoints.

use aws_config::profile::ProfileFileCredentialsProvider;
use aws_credential_types::provider::ProvideCredentials;

use keystorm_types::CredentialSource;
use keystorm_types::Credentials;

/// Why credentials could not be resolved; the message names what to set.
#[derive(Debug, thiserror::Error)]
#[error("credentials: {0}")]
pub struct CredentialsError(String);

/// Resolves `source` to static credentials.
pub async fn resolve(source: &CredentialSource) -> Result<Credentials, CredentialsError> {
    match source {
        CredentialSource::Inline {
            access_key_id,
            secret_access_key,
            session_token,
        } => Ok(Credentials {
            access_key_id: access_key_id.clone(),
            secret_access_key: secret_access_key.clone(),
            session_token: session_token.clone(),
        }),
        CredentialSource::Env {
            access_key_var,
            secret_key_var,
            session_token_var,
        } => Ok(Credentials {
            access_key_id: required_var(access_key_var)?,
            secret_access_key: required_var(secret_key_var)?,
            session_token: optional_var(session_token_var),
        }),
        CredentialSource::Profile(name) => from_profile(Some(name)).await,
        CredentialSource::Default => {
            let key = optional_var("AWS_ACCESS_KEY_ID");
            let secret = optional_var("AWS_SECRET_ACCESS_KEY");
            match (key, secret) {
                (Some(access_key_id), Some(secret_access_key)) => Ok(Credentials {
                    access_key_id,
                    secret_access_key,
                    session_token: optional_var("AWS_SESSION_TOKEN"),
                }),
                (key, secret) => from_profile(None).await.map_err(|e| {
                    let unset = match (key, secret) {
                        (None, None) => "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set",
                        (None, Some(_)) => "AWS_ACCESS_KEY_ID is not set",
                        _ => "AWS_SECRET_ACCESS_KEY is not set",
                    };
                    let profile = match optional_var("AWS_PROFILE") {
                        Some(p) => format!("[{p}] (the profile AWS_PROFILE names)"),
                        None => "[default] (AWS_PROFILE picks another profile)".to_string(),
                    };
                    CredentialsError(format!(
                        "none found: {unset}, and {}; set both variables, or put the keys \
                         in ~/.aws/credentials under {profile}",
                        e.0
                    ))
                }),
            }
        }
    }
}

/// Reads a profile (the named one, or `AWS_PROFILE`/`default`) from the shared files
/// (`AWS_CONFIG_FILE`, `AWS_SHARED_CREDENTIALS_FILE`, or their `~/.aws` defaults).
async fn from_profile(name: Option<&str>) -> Result<Credentials, CredentialsError> {
    let mut builder = ProfileFileCredentialsProvider::builder();
    if let Some(name) = name {
        builder = builder.profile_name(name);
    }
    let shown = name
        .map(str::to_string)
        .unwrap_or_else(|| optional_var("AWS_PROFILE").unwrap_or_else(|| "default".to_string()));
    let creds = builder.build().provide_credentials().await.map_err(|e| {
        let why = match &e {
            // Raised when neither shared file exists; the SDK's own words are vague.
            aws_credential_types::provider::error::CredentialsError::CredentialsNotLoaded(_) => {
                "no AWS config or credentials file was found (looked at AWS_CONFIG_FILE, \
                      AWS_SHARED_CREDENTIALS_FILE and ~/.aws)"
                    .to_string()
            }
            other => error_chain(other),
        };
        CredentialsError(format!("profile {shown:?}: {why}"))
    })?;
    Ok(Credentials {
        access_key_id: creds.access_key_id().to_string(),
        secret_access_key: creds.secret_access_key().to_string(),
        session_token: creds.session_token().map(str::to_string),
    })
}

fn required_var(name: &str) -> Result<String, CredentialsError> {
    optional_var(name)
        .ok_or_else(|| CredentialsError(format!("environment variable {name} is not set")))
}

fn optional_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The error and its sources on one line (the SDK's top-level messages are terse).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}
