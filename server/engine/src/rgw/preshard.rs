//! Creating a bucket with a chosen number of index shards. RGW has no HTTP call for it:
//! beside the cluster keystorm runs `radosgw-admin bucket reshard` on the new, empty
//! bucket (instant); the embedded target and `keystorm sim` take an admin call instead.
//! Whatever the method, the shard count is read back when the admin API is reachable.

use std::time::Duration;

use super::AdminClient;
use crate::plan::{PreshardMethod, RgwPlan};

/// radosgw-admin on an empty bucket takes a fraction of a second; a hung cluster should
/// not hang the run.
const RADOSGW_ADMIN_TIMEOUT: Duration = Duration::from_secs(120);

/// How the bucket will be pre-sharded, decided before anything is created.
pub(crate) enum Method {
    AdminApi,
    RadosgwAdmin(Vec<String>),
}

/// Picks the method, or says clearly why this target cannot be pre-sharded.
pub(crate) fn choose(
    rgw: &RgwPlan,
    embedded: bool,
    admin: Option<&AdminClient>,
) -> Result<Method, String> {
    match rgw.preshard {
        PreshardMethod::AdminApi if admin.is_none() => Err(
            "`rgw.preshard: admin-api` needs `rgw.admin` credentials for the target's admin API"
                .to_string(),
        ),
        PreshardMethod::AdminApi => Ok(Method::AdminApi),
        PreshardMethod::RadosgwAdmin => Ok(Method::RadosgwAdmin(rgw.radosgw_admin.clone())),
        PreshardMethod::Auto if embedded => Ok(Method::AdminApi),
        PreshardMethod::Auto => {
            if on_path(&rgw.radosgw_admin[0]) {
                Ok(Method::RadosgwAdmin(rgw.radosgw_admin.clone()))
            } else {
                Err(format!(
                    "`buckets.index: {{shards: N}}` cannot be applied to this target: `{}` is not \
                     installed here (run keystorm beside the Ceph cluster with ceph-common \
                     installed and CEPH_CONF set), and RGW has no HTTP call to reshard a bucket; \
                     alternatively set `rgw_override_bucket_index_max_shards` on the cluster and \
                     use `index: dynamic`, or `rgw.preshard: admin-api` for a `keystorm sim` target",
                    rgw.radosgw_admin[0]
                ))
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
) -> Result<(), String> {
    match method {
        Method::AdminApi => {
            let Some(admin) = admin else {
                return Err("pre-sharding needs the admin API".to_string());
            };
            admin.reshard(bucket, shards).await.map_err(|e| {
                if e.status() == Some(405) || e.status() == Some(404) {
                    format!(
                        "{e}: this target cannot pre-shard over HTTP; real RGW needs \
                         `rgw.preshard: radosgw-admin`"
                    )
                } else {
                    e.to_string()
                }
            })?;
        }
        Method::RadosgwAdmin(command) => radosgw_admin(command, bucket, shards).await?,
    }
    if let Some(admin) = admin {
        let stats = admin
            .bucket_stats(bucket)
            .await
            .map_err(|e| format!("checking the shard count of {bucket}: {e}"))?;
        if stats.num_shards != shards {
            return Err(format!(
                "bucket {bucket} was to be created with {shards} index shards but has {}",
                stats.num_shards
            ));
        }
    }
    Ok(())
}

async fn radosgw_admin(command: &[String], bucket: &str, shards: u32) -> Result<(), String> {
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
        .map_err(|_| format!("`{shown}` did not finish within {RADOSGW_ADMIN_TIMEOUT:?}"))?
        .map_err(|e| format!("cannot run `{shown}`: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(format!("`{shown}` failed ({}): {last}", output.status));
    }
    Ok(())
}
