//! A run split over agents sends the workload text to every agent and keeps it in the
//! controller's records: it must hold no key. Each agent signs with keys of its own
//! (environment, profile, a mounted secret), and the agent running shard 0 — the one
//! that polls the RGW admin API — reads the admin keys the same way. Checked by the
//! controller before it splits a run, and by `keystorm run --controller` before the
//! text leaves the machine.

use keystorm_types::CredentialSource;
use keystorm_workload::plan::Plan;

/// Why `plan` cannot run on agents because it holds keys; `None` when it holds none.
pub fn inline_keys_refusal(plan: &Plan) -> Option<String> {
    let inline = |c: &CredentialSource| matches!(c, CredentialSource::Inline { .. });
    if inline(&plan.target.credentials) {
        return Some(
            "a run on agents sends no keys, and this workload has its keys inline: give each \
             agent its own (environment, profile or a mounted secret) and name them in \
             target.credentials (env: or profile:), or leave credentials out"
                .to_string(),
        );
    }
    if plan
        .target
        .rgw
        .admin
        .as_ref()
        .is_some_and(|a| inline(&a.credentials))
    {
        return Some(
            "a run on agents sends no keys, and this workload has its RGW admin keys inline: \
             the agent running shard 0 polls the RGW admin API with keys of its own; put them \
             in that agent's environment or profile and name them in \
             target.rgw.admin.credentials (`env: { access_key: VAR, secret_key: VAR }` or \
             `profile: NAME`)"
                .to_string(),
        );
    }
    None
}
