//! The `target` section: endpoint, region, credentials, client and its timeouts.

use keystorm_types::CredentialSource;
use std::time::Duration;

use serde_saphyr::Spanned;

use super::access::{credentials, endpoint_url};
use super::values::{R, at, duration, in_range, loc_of};
use crate::plan::*;
use crate::spec::SpecWarning;
use crate::spec::raw::*;
use keystorm_types::ClientKind;

/// Default per-request timeout: long enough for big objects, short enough to notice a hang.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

pub(super) fn target(
    raw: Option<Spanned<RawTarget>>,
    index_set: bool,
    warnings: &mut Vec<SpecWarning>,
) -> R<TargetPlan> {
    let Some(raw) = raw else {
        return Ok(TargetPlan {
            endpoint: Endpoint::Embedded {
                storage: EmbeddedStorage::Memory,
            },
            region: "us-east-1".to_string(),
            path_style: true,
            client: ClientKind::Fast,
            credentials: CredentialSource::Default,
            tls: TlsPlan::default(),
            timeout: Some(DEFAULT_TIMEOUT),
            retries: 0,
            checksums: false,
            payload_signing: false,
            embedded: crate::spec::rgw::embedded(None, index_set)?,
            rgw: RgwPlan::default(),
            gateways: GatewaysPlan::default(),
        });
    };
    let urls = super::gateways::endpoint_list(&raw)?;
    let gateways = super::gateways::gateways(&raw)?;
    let t = raw.value;
    let storage = match &t.embedded {
        Some(e) => match &e.value.storage {
            Some(s) => match s.value.as_str() {
                "memory" => EmbeddedStorage::Memory,
                "size-only" => EmbeddedStorage::SizeOnly,
                other => {
                    return at(
                        loc_of(s),
                        format!("unknown embedded storage {other:?}; use `memory` or `size-only`"),
                    );
                }
            },
            None => EmbeddedStorage::Memory,
        },
        None => EmbeddedStorage::Memory,
    };
    let endpoint = match (&t.endpoint, urls) {
        (_, Some(urls)) => {
            if let Some(emb) = &t.embedded {
                return at(
                    loc_of(emb),
                    "`embedded` options only apply with `endpoint: embedded`",
                );
            }
            Endpoint::Urls(urls)
        }
        (None, None) => Endpoint::Embedded { storage },
        (Some(e), None) if e.value.trim() == "embedded" => Endpoint::Embedded { storage },
        (Some(e), None) => {
            if let Some(emb) = &t.embedded {
                return at(
                    loc_of(emb),
                    "`embedded` options only apply with `endpoint: embedded`",
                );
            }
            Endpoint::Urls(vec![endpoint_url(e)?])
        }
    };
    if let Some(tls) = &t.tls
        && let Endpoint::Urls(urls) = &endpoint
        && urls.iter().any(|u| u.starts_with("http://"))
        && (tls.value.ca_file.is_some() || tls.value.insecure_skip_verify == Some(true))
    {
        return at(loc_of(tls), "`tls` options need an https:// endpoint");
    }
    if let (Some(tls), Endpoint::Embedded { .. }) = (&t.tls, &endpoint) {
        return at(
            loc_of(tls),
            "`tls` options need an https:// endpoint, not `embedded`",
        );
    }
    let client = match &t.client {
        None => ClientKind::Fast,
        Some(c) => match c.value.as_str() {
            "fast" => ClientKind::Fast,
            "sdk" => ClientKind::Sdk,
            other => {
                return at(
                    loc_of(c),
                    format!("unknown client {other:?}; use `fast` or `sdk`"),
                );
            }
        },
    };
    let credentials = match &t.credentials {
        None => CredentialSource::Default,
        Some(c) => credentials(c, warnings)?,
    };
    let timeout = match &t.timeout {
        None => Some(DEFAULT_TIMEOUT),
        Some(v) if matches!(&v.value, RawDuration::Text(s) if s.trim() == "none") => None,
        Some(v) => {
            let d = duration(v, "timeout")?;
            if d.is_zero() {
                return at(loc_of(v), "`timeout` must be longer than zero (or `none`)");
            }
            Some(d)
        }
    };
    let retries = match &t.retries {
        Some(r) => in_range(r, "retries", 0, 100)? as u32,
        None => 0,
    };
    let embedded = crate::spec::rgw::embedded(t.embedded.as_ref(), index_set)?;
    let rgw = crate::spec::rgw::rgw(t.rgw.as_ref(), warnings)?;
    let region = t.region.unwrap_or_else(|| "us-east-1".to_string());
    let tls = t
        .tls
        .map(|tls| TlsPlan {
            ca_file: tls.value.ca_file.map(Into::into),
            insecure_skip_verify: tls.value.insecure_skip_verify.unwrap_or(false),
        })
        .unwrap_or_default();
    Ok(TargetPlan {
        endpoint,
        region,
        path_style: t.path_style.unwrap_or(true),
        client,
        credentials,
        tls,
        timeout,
        retries,
        checksums: t.checksums.unwrap_or(false),
        payload_signing: t.payload_signing.unwrap_or(false),
        embedded,
        rgw,
        gateways,
    })
}
