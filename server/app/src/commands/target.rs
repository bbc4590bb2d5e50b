//! The S3 client of the commands that talk to a bucket directly (`list`, `download`,
//! `upload`): endpoint and signing from the command line, keys from the environment
//! or a profile, checked before anything is sent.

use keystorm_results::secrets::Redactor;
use keystorm_s3::{ClientConfig, S3Client, TlsConfig};
use keystorm_types::ClientKind;
use keystorm_types::CredentialSource;
use keystorm_types::ErrorClass;

use crate::CliError;
use crate::cli::TargetArgs;

/// The fast client for `target`, with a pool for `pool_size` requests in flight.
pub async fn connect(target: &TargetArgs, pool_size: usize) -> Result<S3Client, CliError> {
    let endpoint = endpoint(target)?;
    let source = match &target.profile {
        Some(p) => CredentialSource::Profile(p.clone()),
        None => CredentialSource::Default,
    };
    let credentials = keystorm_s3::credentials::resolve(&source)
        .await
        .map_err(|e| {
            CliError::bad_input(match source {
                CredentialSource::Default => format!("{e}; or name a profile with --profile"),
                _ => format!("{e} (--profile)"),
            })
        })?;
    // The command ends with the keys: nothing it prints shows them.
    keystorm_results::secrets::register(Redactor::of_keys(&credentials)).for_the_process();
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

/// The endpoint as requests address it: http(s), without a trailing slash.
pub fn endpoint(target: &TargetArgs) -> Result<String, CliError> {
    keystorm_types::check_endpoint_url(&target.endpoint)
        .map_err(|refusal| CliError::bad_input(format!("--{refusal}")))
}

/// `--endpoint` given once or more (each perhaps a comma list) as one checked list, in
/// lower case, none twice; `None` when not given.
pub fn endpoint_list(given: &[String]) -> Result<Option<String>, CliError> {
    crate::cli::endpoints_given(given)
        .map(|list| {
            keystorm_types::endpoint_urls(&list)
                .map(|urls| urls.join(","))
                .map_err(|refusal| CliError::bad_input(format!("--{refusal}")))
        })
        .transpose()
}

/// Fails with the bucket and the endpoint named unless the bucket is there, before any
/// work (or local folder) is started for it.
pub async fn require_bucket(
    client: &S3Client,
    target: &TargetArgs,
    bucket: &str,
) -> Result<(), CliError> {
    let endpoint = endpoint(target)?;
    match client.bucket_exists(bucket).await {
        Ok(true) => Ok(()),
        Ok(false) => Err(CliError::failed(format!(
            "bucket {bucket:?} does not exist at {endpoint}"
        ))),
        Err(e) if e.class == ErrorClass::Http(403) => Err(CliError::failed(format!(
            "bucket {bucket:?} at {endpoint}: access denied (HTTP 403): the keys are not \
             accepted there, or may not use this bucket"
        ))),
        Err(e) => Err(CliError::failed(format!(
            "cannot reach bucket {bucket:?} at {endpoint}: {e}"
        ))),
    }
}

/// Stops the work on Ctrl-C (finishing what is in flight).
pub fn stop_on_ctrl_c(stop: &tokio_util::sync::CancellationToken) -> tokio::task::JoinHandle<()> {
    let stop = stop.clone();
    keystorm_console::output::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stderrln!("stopping: finishing the requests in flight");
            stop.cancel();
        }
    })
}
