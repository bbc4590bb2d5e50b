//! The target a run talks to: an embedded target started in-process, or a real
//! endpoint; the shared client sized to the largest phase; buckets made ready.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::context::RunContext;
use super::error::RunError;
use crate::gateways::Gateways;
use crate::plan::{Endpoint, Plan};
use keystorm_results::IndexLayout;
use keystorm_results::secrets::{Redactor, Registration};
use keystorm_s3::{ClientConfig, S3Client, TlsConfig};
use keystorm_types::CredentialSource;
use keystorm_workload::embedded_target::{EmbeddedTarget, EmbeddedTargets};

/// Access keys the embedded target is started with (it verifies signatures).
pub const EMBEDDED_ACCESS_KEY: &str = "keystorm";
pub const EMBEDDED_SECRET_KEY: &str = "keystorm-secret";

pub(crate) struct Target {
    pub client: S3Client,
    /// Every endpoint, for the requests of operation phases.
    pub gateways: Arc<Gateways>,
    /// The endpoints' URLs (the embedded target's own for `embedded`).
    pub endpoints: Vec<String>,
    /// What results show as the endpoint: `embedded` or the URL.
    pub display: String,
    embedded: Option<Box<dyn EmbeddedTarget>>,
    /// The admin API, when the target has one keystorm may use.
    admin: Option<crate::rgw::AdminClient>,
    /// What the run should be told of how it signs (a resume without the inline keys).
    pub notes: Vec<String>,
}

impl Target {
    /// Starts or reaches the target. The keys resolved for it (and for its admin API)
    /// join the run's `secrets`, so that no writer shows them.
    pub async fn connect(
        plan: &Plan,
        endpoint_override: Option<&str>,
        embedded_targets: Option<&dyn EmbeddedTargets>,
        secrets: &Registration,
    ) -> Result<Target, RunError> {
        let mut notes = Vec::new();
        let t = &plan.target;
        let Reached {
            endpoints,
            display,
            started,
        } = reach(plan, endpoint_override, embedded_targets).await?;
        let embedded = started.is_some();
        let credentials = if embedded {
            keystorm_types::Credentials {
                access_key_id: EMBEDDED_ACCESS_KEY.to_string(),
                secret_access_key: EMBEDDED_SECRET_KEY.to_string(),
                session_token: None,
            }
        } else {
            resolve(&t.credentials, "target.credentials", secrets, &mut notes).await?
        };
        // Idle connections kept per host: as many as the phase with the most tasks
        // issuing requests has.
        let pool_size = super::sequence::schedule(plan)
            .iter()
            .map(|p| p.plan.tasks() as usize)
            .max()
            .unwrap_or(1);
        let config = ClientConfig {
            kind: t.client,
            endpoint: endpoints[0].clone(),
            region: t.region.clone(),
            path_style: t.path_style,
            credentials,
            tls: TlsConfig {
                ca_file: t.tls.ca_file.clone(),
                insecure_skip_verify: t.tls.insecure_skip_verify,
            },
            timeout: t.timeout,
            retries: t.retries,
            pool_size,
            checksums: t.checksums,
            payload_signing: t.payload_signing,
        };
        let mut clients = Vec::with_capacity(endpoints.len());
        for endpoint in &endpoints {
            let config = ClientConfig {
                endpoint: endpoint.clone(),
                ..config.clone()
            };
            let client = S3Client::connect(&config).await.map_err(|e| {
                RunError::Setup(format!(
                    "cannot set up the S3 client of {endpoint}: {}",
                    e.message
                ))
            })?;
            clients.push((endpoint.clone(), client));
        }
        // Buckets, listings, scans and transfers use the first endpoint; operation
        // phases spread over all of them.
        let client = clients[0].1.clone();
        let gateways = Arc::new(Gateways::new(
            clients,
            t.gateways.clone(),
            plan.keyspace.shard.index,
            t.retries,
        ));
        let admin = if embedded {
            t.embedded.rgw_like.then_some(config.credentials.clone())
        } else {
            match &t.rgw.admin {
                Some(a) => Some(
                    resolve(
                        &a.credentials,
                        "target.rgw.admin.credentials",
                        secrets,
                        &mut notes,
                    )
                    .await?,
                ),
                None => None,
            }
        };
        let admin = match admin {
            Some(credentials) => {
                let named = t.rgw.admin.as_ref().and_then(|a| a.endpoint.clone());
                let admin_endpoint = named.clone().unwrap_or_else(|| config.endpoint.clone());
                let client = crate::rgw::AdminClient::new(
                    &admin_endpoint,
                    &credentials,
                    &t.region,
                    &config.tls,
                )
                .map_err(|e| RunError::Setup(format!("cannot set up the admin client: {e}")))?;
                // Without an admin endpoint of its own, the admin API is every gateway's:
                // tracking goes on through another when one is lost.
                Some(if named.is_none() {
                    client.with_fallbacks(&endpoints)
                } else {
                    client
                })
            }
            None => None,
        };
        Ok(Target {
            client,
            gateways,
            endpoints,
            display,
            embedded: started,
            admin,
            notes,
        })
    }

    /// The shard tracker, when the target has an admin API keystorm may use.
    pub fn take_tracker(&mut self, plan: &Plan) -> Option<crate::rgw::tracker::IndexTracker> {
        self.admin.take().map(|admin| {
            crate::rgw::tracker::IndexTracker::new(
                admin,
                plan.buckets.names.clone(),
                plan.target.rgw.poll,
            )
        })
    }

    pub fn is_embedded(&self) -> bool {
        self.embedded.is_some()
    }

    pub async fn shutdown(self) {
        drop(self.embedded);
    }
}

/// Where a run's requests go: the endpoints' URLs, what results call the target, and
/// the embedded target when the run started one.
struct Reached {
    endpoints: Vec<String>,
    display: String,
    started: Option<Box<dyn EmbeddedTarget>>,
}

/// The endpoints of `--endpoint` (a comma list), else the workload's; or the embedded
/// target, started. Each URL must be http(s).
async fn reach(
    plan: &Plan,
    endpoint_override: Option<&str>,
    embedded_targets: Option<&dyn EmbeddedTargets>,
) -> Result<Reached, RunError> {
    let t = &plan.target;
    let (endpoints, display, started) = match (endpoint_override, &t.endpoint) {
        (Some(given), _) => {
            let urls = keystorm_types::endpoint_urls(given)
                .map_err(|refusal| RunError::BadInput(refusal.to_string()))?;
            (urls.clone(), urls.join(","), None)
        }
        (None, Endpoint::Urls(urls)) => (urls.clone(), urls.join(","), None),
        (None, Endpoint::Embedded { storage }) => {
            let targets = embedded_targets.ok_or_else(|| {
                RunError::BadInput(
                    "this program has no embedded target: give the workload an endpoint \
                     URL (or --endpoint URL)"
                        .to_string(),
                )
            })?;
            let started = targets
                .start(
                    &t.embedded,
                    *storage,
                    EMBEDDED_ACCESS_KEY,
                    EMBEDDED_SECRET_KEY,
                )
                .await
                .map_err(|e| RunError::Setup(format!("cannot start the embedded target: {e}")))?;
            (
                vec![started.endpoint()],
                "embedded".to_string(),
                Some(started),
            )
        }
    };
    if endpoints.is_empty() {
        return Err(RunError::BadInput(
            "--endpoint names no URL: give one, or several separated by commas".to_string(),
        ));
    }
    Ok(Reached {
        endpoints,
        display,
        started,
    })
}

/// Why the run's buckets could not be made ready.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BucketError {
    #[error(
        "bucket {bucket:?} at {at}: access denied (HTTP 403): the keys are not accepted \
         there, or may not use this bucket"
    )]
    AccessDenied { bucket: String, at: String },
    #[error("bucket {bucket:?} at {at}: {source}")]
    Unreachable {
        bucket: String,
        at: String,
        source: keystorm_types::OpError,
    },
    #[error("bucket {bucket:?} does not exist at {at} (set `buckets.create: true` to create it)")]
    Missing { bucket: String, at: String },
    #[error("cannot create bucket {bucket}: {source}")]
    Create {
        bucket: String,
        source: keystorm_types::OpError,
    },
    #[error(
        "bucket {bucket:?} does not exist at {at}, and shard {shard} waited {waited_s} s for \
         shard 0 to create it: start shard 0 of the workload (or create the bucket)"
    )]
    NotCreated {
        bucket: String,
        at: String,
        shard: keystorm_results::Shard,
        waited_s: u64,
    },
    #[error(transparent)]
    PreshardMethod(crate::rgw::preshard::PreshardError),
    #[error("cannot pre-shard bucket {bucket}: {source}")]
    Preshard {
        bucket: String,
        source: crate::rgw::preshard::PreshardError,
    },
}

/// Creates missing buckets when the workload allows it (pre-sharded if it says so);
/// returns the ones created. `endpoint` names the target in messages.
pub(crate) async fn ensure_buckets(
    ctx: &RunContext,
    embedded: bool,
    endpoint: &str,
) -> Result<Vec<String>, BucketError> {
    let at = if embedded {
        "the embedded target"
    } else {
        endpoint
    };
    let shard = ctx.plan.keyspace.shard;
    if !shard.is_first() {
        return wait_for_buckets(ctx, at, shard).await.map(|()| Vec::new());
    }
    let admin = ctx.tracker.as_ref().map(|t| t.admin());
    let preshard = match ctx.plan.buckets.index {
        Some(IndexLayout::Shards(n)) => Some((
            crate::rgw::preshard::choose(&ctx.plan.target.rgw, embedded, admin)
                .map_err(BucketError::PreshardMethod)?,
            n,
        )),
        _ => None,
    };
    let mut created = Vec::new();
    for name in &ctx.plan.buckets.names {
        if bucket_exists(ctx, name, at).await? {
            if let (Some((_, n)), Some(admin)) = (&preshard, admin)
                && let Ok(stats) = admin.bucket_stats(name).await
                && stats.num_shards != *n
            {
                ctx.emit(keystorm_results::RunEvent::Warning {
                    message: format!(
                        "bucket {name} already exists with {} index shards; `index: {{shards: {n}}}` \
                         applies only to buckets keystorm creates",
                        stats.num_shards
                    ),
                });
            }
            continue;
        }
        if !ctx.plan.buckets.create {
            return Err(BucketError::Missing {
                bucket: name.clone(),
                at: at.to_string(),
            });
        }
        let made = ctx
            .client
            .create_bucket(name)
            .await
            .map_err(|source| BucketError::Create {
                bucket: name.clone(),
                source,
            })?;
        if made {
            created.push(name.clone());
            if let Some((method, n)) = &preshard {
                crate::rgw::preshard::apply(method, admin, name, *n)
                    .await
                    .map_err(|source| BucketError::Preshard {
                        bucket: name.clone(),
                        source,
                    })?;
            }
        }
    }
    Ok(created)
}

async fn bucket_exists(ctx: &RunContext, name: &str, at: &str) -> Result<bool, BucketError> {
    ctx.client
        .bucket_exists(name)
        .await
        .map_err(|e| match e.class {
            keystorm_types::ErrorClass::Http(403) => BucketError::AccessDenied {
                bucket: name.to_string(),
                at: at.to_string(),
            },
            _ => BucketError::Unreachable {
                bucket: name.to_string(),
                at: at.to_string(),
                source: e,
            },
        })
}

/// How long a shard other than 0 waits for shard 0 to create the buckets.
const BUCKET_WAIT: Duration = Duration::from_secs(120);

/// A shard other than 0 creates no bucket (two creating one at once may race, and
/// pre-sharding is done once): it waits until shard 0 has created them.
async fn wait_for_buckets(
    ctx: &RunContext,
    at: &str,
    shard: keystorm_results::Shard,
) -> Result<(), BucketError> {
    let started = Instant::now();
    for name in &ctx.plan.buckets.names {
        loop {
            if bucket_exists(ctx, name, at).await? {
                break;
            }
            if !ctx.plan.buckets.create {
                return Err(BucketError::Missing {
                    bucket: name.clone(),
                    at: at.to_string(),
                });
            }
            if started.elapsed() >= BUCKET_WAIT || ctx.cancel.is_cancelled() {
                return Err(BucketError::NotCreated {
                    bucket: name.clone(),
                    at: at.to_string(),
                    shard,
                    waited_s: started.elapsed().as_secs(),
                });
            }
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(250)) => {}
                _ = ctx.cancel.cancelled() => {}
            }
        }
    }
    Ok(())
}

/// The keys of `source` (the workload's `field`), made known to the run's `secrets`.
///
/// A resumed run reads the workload kept with its results, where inline keys are
/// redacted: it then signs with the default chain (environment, default profile), says
/// so in `notes`, and a missing key names what to give.
async fn resolve(
    source: &CredentialSource,
    field: &str,
    secrets: &Registration,
    notes: &mut Vec<String>,
) -> Result<keystorm_types::Credentials, RunError> {
    let redacted = is_redacted(source);
    let source = if redacted {
        CredentialSource::Default
    } else {
        source.clone()
    };
    let credentials = keystorm_s3::credentials::resolve(&source)
        .await
        .map_err(|e| credentials_error(&e, &source, field, redacted))?;
    secrets.add(&Redactor::of_keys(&credentials));
    if redacted {
        notes.push(format!(
            "`{field}` were inline in the run's workload, and keystorm keeps no keys with a \
             run: the resumed run signs with the keys of the environment (AWS_ACCESS_KEY_ID, \
             AWS_SECRET_ACCESS_KEY) or the default profile instead; for other keys, put \
             `env:` or `profile:` in place of the redacted keys in the run folder's \
             workload.yaml"
        ));
    }
    Ok(credentials)
}

/// Inline keys as a run's stored workload holds them: replaced by the marker.
fn is_redacted(source: &CredentialSource) -> bool {
    match source {
        CredentialSource::Inline {
            access_key_id,
            secret_access_key,
            ..
        } => [access_key_id, secret_access_key]
            .iter()
            .any(|k| k.contains(keystorm_results::secrets::REDACTED)),
        _ => false,
    }
}

/// Missing keys are bad input (exit code 2): the message says what to set, including
/// the workload `field` that chooses where they come from.
fn credentials_error(
    e: &keystorm_s3::credentials::CredentialsError,
    source: &CredentialSource,
    field: &str,
    redacted: bool,
) -> RunError {
    if redacted {
        return RunError::BadInput(format!(
            "`{field}` were inline in the run's workload, and keystorm keeps no keys with a \
             run's results: to resume it, give the same keys in AWS_ACCESS_KEY_ID and \
             AWS_SECRET_ACCESS_KEY (AWS_SESSION_TOKEN too for temporary keys) or the default \
             profile, or put `env:` or `profile:` in place of the redacted keys in the run \
             folder's workload.yaml ({e})"
        ));
    }
    RunError::BadInput(match source {
        CredentialSource::Default => {
            format!("{e}; or say where they are in the workload's `{field}` (env: or profile:)")
        }
        CredentialSource::Env { .. } => format!("{e} (the workload's `{field}.env` names it)"),
        CredentialSource::Profile(_) => format!("{e} (the workload's `{field}.profile`)"),
        CredentialSource::Inline { .. } => format!("{field}: {e}"),
    })
}
