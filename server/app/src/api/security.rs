//! Guards on everything that changes state or starts load: a bearer token when the
//! server listens beyond loopback, and cross-site request checks (Fetch Metadata, then
//! Origin against Host) so a web page elsewhere cannot drive the server through the
//! user's browser.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
use super::state::AppState;

fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

pub async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if changes_state(request.method()) {
        if let Err(e) = cross_site_check(request.headers()) {
            return e.into_response();
        }
        if let Some(token) = &state.config.token
            && !bearer_matches(request.headers(), token)
        {
            let mut e = ApiError::new(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "this server needs `Authorization: Bearer <token>` on calls that change state",
            )
            .into_response();
            e.headers_mut()
                .insert(header::WWW_AUTHENTICATE, "Bearer".parse().expect("static"));
            return e;
        }
    }
    next.run(request).await
}

/// Go's CrossOriginProtection rules: `Sec-Fetch-Site` same-origin/none passes; a
/// cross-site value fails; without it, an `Origin` must match `Host`; requests with
/// neither (curl, scripts) pass.
fn cross_site_check(headers: &HeaderMap) -> Result<(), ApiError> {
    let forbidden = |why: &str| {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "cross_site_request",
            format!("refused a cross-site request ({why})"),
        ))
    };
    if let Some(site) = headers.get("sec-fetch-site") {
        return match site.to_str().unwrap_or("") {
            "same-origin" | "none" => Ok(()),
            other => forbidden(&format!("Sec-Fetch-Site: {other}")),
        };
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = origin.to_str().unwrap_or("");
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let origin_host = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .unwrap_or("");
    if !host.is_empty() && origin_host == host {
        Ok(())
    } else {
        forbidden(&format!("Origin {origin} does not match Host {host}"))
    }
}

/// Constant-time comparison of the bearer token.
fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    let Some(given) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
    else {
        return false;
    };
    let (a, b) = (given.trim().as_bytes(), token.as_bytes());
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        h
    }

    #[test]
    fn fetch_metadata_decides_first() {
        assert!(cross_site_check(&headers(&[("sec-fetch-site", "same-origin")])).is_ok());
        assert!(cross_site_check(&headers(&[("sec-fetch-site", "none")])).is_ok());
        assert!(cross_site_check(&headers(&[("sec-fetch-site", "cross-site")])).is_err());
        assert!(cross_site_check(&headers(&[("sec-fetch-site", "same-site")])).is_err());
    }

    #[test]
    fn origin_must_match_host_without_fetch_metadata() {
        assert!(
            cross_site_check(&headers(&[
                ("origin", "http://127.0.0.1:7878"),
                ("host", "127.0.0.1:7878")
            ]))
            .is_ok()
        );
        assert!(
            cross_site_check(&headers(&[
                ("origin", "http://evil.example"),
                ("host", "127.0.0.1:7878")
            ]))
            .is_err()
        );
        assert!(
            cross_site_check(&headers(&[])).is_ok(),
            "scripts and curl pass"
        );
    }

    #[test]
    fn tokens_compare_exactly() {
        let h = headers(&[("authorization", "Bearer s3cret")]);
        assert!(bearer_matches(&h, "s3cret"));
        assert!(!bearer_matches(&h, "s3cre"));
        assert!(!bearer_matches(&headers(&[]), "s3cret"));
        assert!(!bearer_matches(
            &headers(&[("authorization", "Basic s3cret")]),
            "s3cret"
        ));
    }
}
