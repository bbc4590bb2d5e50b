//! Who may call what. A server with a token (always one bound beyond loopback) wants
//! it on every API call and on `/metrics`, reads included; a read-only token opens the
//! reads (and the event stream and `/metrics`) and nothing else: not the calls that
//! change state, nor the agent link, whose calls only agents make. On loopback without
//! a token everything is open. The UI's files need no token: they hold no data, and the
//! page must load to ask for it. Calls that change state are also checked against
//! cross-site requests (Fetch Metadata, then Origin against Host) so a web page
//! elsewhere cannot drive the server through the user's browser.

use axum::extract::{OriginalUri, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use super::error::ApiError;
use super::state::{AppState, ServeConfig};

/// What the caller may do, as its token (or the lack of one) says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// The server has no token (loopback only): everything is open.
    Open,
    /// The read-only token: reads, the event stream and `/metrics`.
    Read,
    /// The server's full token: everything.
    Write,
}

/// Whether the call changes state or starts load (anything but a read).
pub fn changes_state(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Whether `path` (a route of the OpenAPI document) is one of the agent link's: those
/// under `/api/agents/`, not the list of agents at `/api/agents` itself.
pub fn is_agent_link(path: &str) -> bool {
    path.starts_with("/api/agents/")
}

/// Whether `path` (a route of the OpenAPI document) is one a registered agent calls
/// with its own key: those under `/api/agents/{id}/`.
pub fn is_agents_own_call(path: &str) -> bool {
    path.starts_with("/api/agents/{id}/")
}

/// In front of everything: the cross-site checks on calls that change state.
pub async fn cross_site_guard(request: Request, next: Next) -> Response {
    if changes_state(request.method())
        && let Err(e) = cross_site_check(request.headers())
    {
        return e.into_response();
    }
    next.run(request).await
}

/// In front of the API and `/metrics`: the token, and the read-only token kept to
/// reads. The caller's [`Access`] is left in the request's extensions.
pub async fn token_guard(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let access = match access_of(&state.config, request.headers()) {
        Ok(access) => access,
        Err(refusal) => return refusal.into_response(),
    };
    if access == Access::Read && changes_state(request.method()) {
        return read_only_refusal(
            &request,
            "change state or start load; that needs the server's full token (--token)",
        );
    }
    request.extensions_mut().insert(access);
    next.run(request).await
}

/// In front of the agent link's routes: agents hold the full token, so the read-only
/// token opens none of them, reads included.
pub async fn agents_only(request: Request, next: Next) -> Response {
    if request.extensions().get::<Access>() == Some(&Access::Read) {
        return read_only_refusal(
            &request,
            "use the agent link; agents use the server's full token (--token)",
        );
    }
    next.run(request).await
}

/// Why a call is refused with 401.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unauthorized {
    NoToken,
    WrongToken,
}

impl IntoResponse for Unauthorized {
    fn into_response(self) -> Response {
        let (detail, challenge) = match self {
            Unauthorized::NoToken => (
                "this keystorm server needs its token on every API call: send \
                 `Authorization: Bearer <token>` (the token given to `keystorm serve --token`, \
                 or its read-only --read-token for reading)",
                "Bearer realm=\"keystorm\"",
            ),
            Unauthorized::WrongToken => (
                "the bearer token is not this server's token (nor its read-only token)",
                "Bearer realm=\"keystorm\", error=\"invalid_token\"",
            ),
        };
        let mut response =
            ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", detail).into_response();
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(challenge),
        );
        response
    }
}

/// The caller's access, or why it has none.
fn access_of(config: &ServeConfig, headers: &HeaderMap) -> Result<Access, Unauthorized> {
    let Some(token) = &config.token else {
        return Ok(Access::Open);
    };
    let given = bearer(headers).ok_or(Unauthorized::NoToken)?;
    // Both compared, each in constant time, whichever matches.
    let full = same_secret(given, token);
    let read = config
        .read_token
        .as_deref()
        .is_some_and(|r| same_secret(given, r));
    match (full, read) {
        (true, _) => Ok(Access::Write),
        (false, true) => Ok(Access::Read),
        (false, false) => Err(Unauthorized::WrongToken),
    }
}

fn read_only_refusal(request: &Request, what: &str) -> Response {
    // Under `/api` the request's own URI has lost the prefix the caller sent.
    let path = request
        .extensions()
        .get::<OriginalUri>()
        .map_or(request.uri().path(), |original| original.0.path());
    ApiError::new(
        StatusCode::FORBIDDEN,
        "read_only_token",
        format!(
            "{} {path}: the read-only token cannot {what}",
            request.method()
        ),
    )
    .into_response()
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

/// The credentials of `Authorization: Bearer <token>` (the scheme in any case).
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, credentials) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| credentials.trim())
}

/// Constant-time comparison (in the length of the secret) of a token given with one.
fn same_secret(given: &str, secret: &str) -> bool {
    let (a, b) = (given.as_bytes(), secret.as_bytes());
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

    fn config(token: Option<&str>, read_token: Option<&str>) -> ServeConfig {
        ServeConfig {
            workloads_dir: "w".into(),
            results_dir: "r".into(),
            token: token.map(str::to_string),
            read_token: read_token.map(str::to_string),
            ui_dev_url: None,
            default_endpoint: None,
            part_caps: Default::default(),
        }
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
        assert!(same_secret("s3cret", "s3cret"));
        assert!(!same_secret("s3cre", "s3cret"));
        assert!(!same_secret("s3creT", "s3cret"));
        let h = headers(&[("authorization", "Bearer s3cret")]);
        assert_eq!(bearer(&h), Some("s3cret"));
        assert_eq!(
            bearer(&headers(&[("authorization", "bearer  s3cret ")])),
            Some("s3cret")
        );
        assert_eq!(bearer(&headers(&[])), None);
        assert_eq!(bearer(&headers(&[("authorization", "Basic s3cret")])), None);
    }

    #[test]
    fn each_token_gives_its_access() {
        let full = "0123456789abcdef-full";
        let read = "0123456789abcdef-read";
        let with_both = config(Some(full), Some(read));
        let auth = |t: &str| headers(&[("authorization", &format!("Bearer {t}"))]);
        assert_eq!(access_of(&with_both, &auth(full)).ok(), Some(Access::Write));
        assert_eq!(access_of(&with_both, &auth(read)).ok(), Some(Access::Read));
        assert!(access_of(&with_both, &auth("0123456789abcdef-nope")).is_err());
        assert!(access_of(&with_both, &headers(&[])).is_err());
        let full_only = config(Some(full), None);
        assert!(access_of(&full_only, &auth(read)).is_err());
        let open = config(None, None);
        assert_eq!(access_of(&open, &headers(&[])).ok(), Some(Access::Open));
        assert_eq!(access_of(&open, &auth("anything")).ok(), Some(Access::Open));
    }

    #[test]
    fn a_refusal_says_how_to_authenticate() {
        let with_token = config(Some("0123456789abcdef-full"), None);
        let missing = access_of(&with_token, &headers(&[])).unwrap_err();
        assert_eq!(missing, Unauthorized::NoToken);
        let missing = missing.into_response();
        assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            missing.headers()[header::WWW_AUTHENTICATE],
            "Bearer realm=\"keystorm\""
        );
        let wrong = access_of(
            &with_token,
            &headers(&[("authorization", "Bearer 0123456789abcdef-nope")]),
        )
        .unwrap_err();
        assert_eq!(wrong, Unauthorized::WrongToken);
        assert!(
            wrong.into_response().headers()[header::WWW_AUTHENTICATE]
                .to_str()
                .unwrap()
                .contains("invalid_token")
        );
    }
}
