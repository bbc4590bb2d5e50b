//! Opt-in cleanup after a completed run: objects of the live window (keys keystorm
//! wrote) and buckets this run created — never anything else.

use super::RunContext;
use crate::results::Manifest;

/// Deletes what the workload's `cleanup` section asks for.
pub(crate) async fn run(ctx: &RunContext, manifest: &Manifest) -> Result<(), String> {
    let cleanup = ctx.plan.cleanup;
    if cleanup.objects {
        let workers = 32.min(ctx.window.state().len().max(1) as usize);
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..workers {
            let window = ctx.window.clone();
            let client = ctx.client.clone();
            let keyspace = ctx.keyspace.clone();
            let buckets = ctx.plan.buckets.names.clone();
            set.spawn(async move {
                let mut key = String::new();
                let mut failed = 0u64;
                while let Some(i) = window.begin_delete(None).await {
                    keyspace.key_into(i, &mut key);
                    let bucket = &buckets[keyspace.bucket_index(i)];
                    if client.delete_object(bucket, &key).await.is_err() {
                        failed += 1;
                    }
                }
                failed
            });
        }
        let mut failed = 0;
        while let Some(r) = set.join_next().await {
            failed += r.unwrap_or(0);
        }
        if failed > 0 {
            return Err(format!("{failed} objects could not be deleted"));
        }
    }
    if cleanup.buckets {
        for name in &manifest.created_buckets {
            ctx.client
                .delete_bucket(name)
                .await
                .map_err(|e| format!("bucket {name}: {e}"))?;
        }
    }
    Ok(())
}
