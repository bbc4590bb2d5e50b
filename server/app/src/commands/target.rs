//! The S3 client of the commands that talk to a bucket directly (`list`, `download`,
//! `upload`): endpoint and signing from the command line, keys from the environment
//! or a profile, checked before anything is sent.

use keystorm_engine::plan::CredentialSource;
use keystorm_engine::s3::{ClientConfig, ClientKind, S3Client, TlsConfig};

use crate::CliError;
use crate::cli::TargetArgs;

/// The fast client for `target`, with a pool for `pool_size` requests in flight.
pub async fn connect(target: &TargetArgs, pool_size: usize) -> Result<S3Client, CliError> {
    let credentials = keystorm_engine::s3::credentials::resolve(&match &target.profile {
        Some(p) => CredentialSource::Profile(p.clone()),
        None => CredentialSource::Default,
    })
    .await
    .map_err(|e| CliError::bad_input(e.to_string()))?;
    let endpoint = target.endpoint.trim_end_matches('/').to_string();
    if !(endpoint.starts_with("http://") || endpoint.starts_with("https://")) {
        return Err(CliError::bad_input(format!(
            "--endpoint {endpoint:?} must start with http:// or https://"
        )));
    }
    S3Client::connect(&ClientConfig {
        kind: ClientKind::Fast,
        endpoint,
        region: target.region.clone(),
        path_style: !target.virtual_hosted,
        credentials,
        tls: TlsConfig {
            ca_file: None,
            insecure_skip_verify: target.insecure,
        },
        timeout: Some(target.timeout),
        retries: 0,
        pool_size,
        checksums: false,
        payload_signing: false,
    })
    .await
    .map_err(|e| CliError::failed(format!("cannot set up the S3 client: {}", e.message)))
}

/// Stops the work on Ctrl-C (finishing what is in flight).
pub fn stop_on_ctrl_c(stop: &tokio_util::sync::CancellationToken) -> tokio::task::JoinHandle<()> {
    let stop = stop.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            eprintln!("stopping: finishing the requests in flight");
            stop.cancel();
        }
    })
}
