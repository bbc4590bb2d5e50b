//! Creating a bucket with a chosen number of index shards. RGW has no HTTP call for it:
//! beside the cluster keystorm runs `radosgw-admin bucket reshard` on the new, empty
//! bucket (instant); the embedded target and `keystorm sim` take an admin call instead.
//! Whatever the method, the shard count is read back when the admin API is reachable.

use std::time::Duration;

use super::{AdminClient, AdminError};
use crate::plan::{PreshardMethod, RgwPlan};

/// radosgw-admin on an empty bucket takes a fraction of a second; a hung cluster should
/// not hang the run.
const RADOSGW_ADMIN_TIMEOUT: Duration = Duration::from_secs(120);

/// How the bucket will be pre-sharded, decided before anything is created.
pub(crate) enum Method {
    AdminApi,
    RadosgwAdmin(Vec<String>),
}

/// Why a bucket could not be created with the shard count asked for.
#[derive(Debug, thiserror::Error)]
pub enum PreshardError {
    #[error("`rgw.preshard: admin-api` needs `rgw.admin` credentials for the target's admin API")]
    NoAdminCredentials,
    #[error(
        "`buckets.index: {{shards: N}}` cannot be applied to this target: `{0}` is not \
         installed here (run keystorm beside the Ceph cluster with ceph-common installed and \
         CEPH_CONF set), and RGW has no HTTP call to reshard a bucket; alternatively set \
         `rgw_override_bucket_index_max_shards` on the cluster and use `index: dynamic`, or \
         `rgw.preshard: admin-api` for a `keystorm sim` target"
    )]
    NoRadosgwAdmin(String),
    #[error("pre-sharding needs the admin API")]
    NoAdminApi,
    #[error(
        "{0}: this target cannot pre-shard over HTTP; real RGW needs `rgw.preshard: radosgw-admin`"
    )]
    NotOverHttp(AdminError),
    #[error(transparent)]
    Admin(AdminError),
    #[error("checking the shard count of {bucket}: {source}")]
    Check { bucket: String, source: AdminError },
    #[error("bucket {bucket} was to be created with {wanted} index shards but has {has}")]
    Mismatch {
        bucket: String,
        wanted: u32,
        has: u32,
    },
    #[error("`{command}` did not finish within {RADOSGW_ADMIN_TIMEOUT:?}")]
    Timeout { command: String },
    #[error("cannot run `{command}`: {source}")]
    Spawn {
        command: String,
        source: std::io::Error,
    },
    #[error("`{command}` failed ({status}): {last_line}")]
    Failed {
        command: String,
        status: std::process::ExitStatus,
        last_line: String,
    },
}

/// Picks the method, or says clearly why this target cannot be pre-sharded.
pub(crate) fn choose(
    rgw: &RgwPlan,
    embedded: bool,
    admin: Option<&AdminClient>,
) -> Result<Method, PreshardError> {
    match rgw.preshard {
        PreshardMethod::AdminApi if admin.is_none() => Err(PreshardError::NoAdminCredentials),
        PreshardMethod::AdminApi => Ok(Method::AdminApi),
        PreshardMethod::RadosgwAdmin => Ok(Method::RadosgwAdmin(rgw.radosgw_admin.clone())),
        PreshardMethod::Auto if embedded => Ok(Method::AdminApi),
        PreshardMethod::Auto => {
            if on_path(&rgw.radosgw_admin[0]) {
                Ok(Method::RadosgwAdmin(rgw.radosgw_admin.clone()))
            } else {
                Err(PreshardError::NoRadosgwAdmin(rgw.radosgw_admin[0].clone()))
            }
        }
    }
}

fn on_path(program: &str) -> bool {
    if program.contains('/') {
        return std::path::Path::new(program).is_file();
    }
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

/// Reshards the freshly created `bucket` to `shards` and checks the result.
pub(crate) async fn apply(
    method: &Method,
    admin: Option<&AdminClient>,
    bucket: &str,
    shards: u32,
) -> Result<(), PreshardError> {
    match method {
        Method::AdminApi => {
            let Some(admin) = admin else {
                return Err(PreshardError::NoAdminApi);
            };
            admin.reshard(bucket, shards).await.map_err(|e| {
                if e.status() == Some(405) || e.status() == Some(404) {
                    PreshardError::NotOverHttp(e)
                } else {
                    PreshardError::Admin(e)
                }
            })?;
        }
        Method::RadosgwAdmin(command) => radosgw_admin(command, bucket, shards).await?,
    }
    if let Some(admin) = admin {
        let stats = admin
            .bucket_stats(bucket)
            .await
            .map_err(|source| PreshardError::Check {
                bucket: bucket.to_string(),
                source,
            })?;
        if stats.num_shards != shards {
            return Err(PreshardError::Mismatch {
                bucket: bucket.to_string(),
                wanted: shards,
                has: stats.num_shards,
            });
        }
    }
    Ok(())
}

async fn radosgw_admin(command: &[String], bucket: &str, shards: u32) -> Result<(), PreshardError> {
    let mut cmd = tokio::process::Command::new(&command[0]);
    cmd.args(&command[1..])
        .args(["bucket", "reshard", "--bucket", bucket, "--num-shards"])
        .arg(shards.to_string())
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true);
    let shown = format!(
        "{} bucket reshard --bucket {bucket} --num-shards {shards}",
        command.join(" ")
    );
    let output = tokio::time::timeout(RADOSGW_ADMIN_TIMEOUT, cmd.output())
        .await
        .map_err(|_| PreshardError::Timeout {
            command: shown.clone(),
        })?
        .map_err(|source| PreshardError::Spawn {
            command: shown.clone(),
            source,
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(PreshardError::Failed {
            command: shown,
            status: output.status,
            last_line: last.to_string(),
        });
    }
    Ok(())
}
