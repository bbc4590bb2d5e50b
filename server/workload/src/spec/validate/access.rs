//! Where a store is and how to sign for it: endpoint URLs and credentials, checked the
//! same way for the target and for RGW's admin API.

use serde_saphyr::Spanned;

use super::values::{R, at, loc_of};
use crate::spec::SpecWarning;
use crate::spec::raw::RawCredentials;
use keystorm_types::CredentialSource;

pub(in crate::spec) fn endpoint_url(e: &Spanned<String>) -> R<String> {
    use keystorm_types::EndpointUrlError;
    keystorm_types::check_endpoint_url(&e.value).or_else(|refusal| match refusal {
        EndpointUrlError::Scheme(url) => at(
            loc_of(e),
            format!("endpoint {url:?} must be `embedded` or start with http:// or https://"),
        ),
        other => at(loc_of(e), other.to_string()),
    })
}

pub(in crate::spec) fn credentials(
    c: &Spanned<RawCredentials>,
    warnings: &mut Vec<SpecWarning>,
) -> R<CredentialSource> {
    let v = &c.value;
    let forms = [
        v.env.is_some(),
        v.profile.is_some(),
        v.access_key.is_some() || v.secret_key.is_some() || v.session_token.is_some(),
    ]
    .iter()
    .filter(|b| **b)
    .count();
    if forms != 1 {
        return at(
            loc_of(c),
            "`credentials` takes exactly one of `env`, `profile`, or `access_key` with `secret_key` \
             (and optionally `session_token`)",
        );
    }
    if let Some(env) = &v.env {
        return Ok(CredentialSource::Env {
            access_key_var: env
                .access_key
                .clone()
                .unwrap_or_else(|| "AWS_ACCESS_KEY_ID".into()),
            secret_key_var: env
                .secret_key
                .clone()
                .unwrap_or_else(|| "AWS_SECRET_ACCESS_KEY".into()),
            session_token_var: env
                .session_token
                .clone()
                .unwrap_or_else(|| "AWS_SESSION_TOKEN".into()),
        });
    }
    if let Some(p) = &v.profile {
        return Ok(CredentialSource::Profile(p.clone()));
    }
    match (&v.access_key, &v.secret_key) {
        (Some(a), Some(s)) => {
            // A run's stored workload, its keys redacted, holds no secret to warn about.
            if !s.value.contains(crate::spec::REDACTED) {
                warnings.push(SpecWarning {
                    line: s.referenced.line() as usize,
                    column: s.referenced.column() as usize,
                    message: "inline secret key in the workload file; prefer `credentials: { env: ... }` or a profile"
                        .to_string(),
                });
            }
            Ok(CredentialSource::Inline {
                access_key_id: a.value.clone(),
                secret_access_key: s.value.clone(),
                session_token: v.session_token.as_ref().map(|t| t.value.clone()),
            })
        }
        _ => at(
            loc_of(c),
            "inline credentials need both `access_key` and `secret_key` (and `session_token` \
             only with them)",
        ),
    }
}
