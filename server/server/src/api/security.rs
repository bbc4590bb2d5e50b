//! Who may call what. A server with a token (always one bound beyond loopback) wants
//! it on every API call and on `/metrics`, reads included; a read-only token opens the
//! reads (and the event stream and `/metrics`) and nothing else: not the calls that
//! change state, nor the agent link, whose calls only agents make. On loopback without
//! a token everything is open. The UI's files need no token: they hold no data, and the
//! page must load to ask for it.
//!
//! In front of everything, whatever the token: the request must name this server
//! ([`AllowedHosts`], so a page cannot reach it under a name of its own by DNS
//! rebinding), and a call that changes state must not come from another site's page
//! (Fetch Metadata, and an `Origin` that is this server's own), so a web page elsewhere
//! cannot drive the server through the user's browser.

use axum::extract::{OriginalUri, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use super::allowed_hosts::AllowedHosts;
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

/// In front of everything: the `Host` check on every request, and the cross-site
/// checks on calls that change state.
pub async fn browser_guard(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let hosts = &state.config.hosts;
    if let Err(e) = host_check(hosts, &request) {
        return e.into_response();
    }
    if changes_state(request.method())
        && let Err(e) = cross_site_check(hosts, request.headers())
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

/// The request's `Host` (and the authority of an absolute request URI) must be a name
/// this server answers to. A request without either (HTTP/1.0) is not from a browser.
fn host_check(hosts: &AllowedHosts, request: &Request) -> Result<(), ApiError> {
    let authority = request.uri().authority().map(|a| a.as_str().as_bytes());
    let named = authority.into_iter().chain(
        request
            .headers()
            .get_all(header::HOST)
            .iter()
            .map(|h| h.as_bytes()),
    );
    for host in named {
        let host = String::from_utf8_lossy(host);
        if !hosts.allows(&host) {
            return Err(host_refusal(hosts, &host));
        }
    }
    Ok(())
}

fn host_refusal(hosts: &AllowedHosts, host: &str) -> ApiError {
    let shown = keystorm_link::bounds::shown(host);
    let answered = if hosts.loopback_bound {
        "loopback names and addresses (localhost, 127.0.0.1, [::1])"
    } else {
        "its addresses, localhost"
    };
    ApiError::new(
        StatusCode::MISDIRECTED_REQUEST,
        "host_not_allowed",
        format!(
            "Host {shown} is not a name this keystorm server answers to (it answers to \
             {answered}{}): a web page under another name could otherwise reach it. If this \
             is how you reach it, start `keystorm serve` with --allowed-host NAME (repeatable) \
             or --public-url URL",
            if hosts.names.is_empty() {
                String::new()
            } else {
                format!(" and {}", hosts.names.join(", "))
            }
        ),
    )
}

/// A call that changes state: refused when Fetch Metadata says another site's page sent
/// it, or its `Origin` is not this server's own (`null` included). Requests with
/// neither (curl, scripts, agents) pass: a browser sends `Origin` with every call that
/// changes state.
fn cross_site_check(hosts: &AllowedHosts, headers: &HeaderMap) -> Result<(), ApiError> {
    let forbidden = |why: String| {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "cross_site_request",
            format!("refused a cross-site request ({why})"),
        ))
    };
    if let Some(site) = headers.get("sec-fetch-site") {
        match site.to_str().unwrap_or("") {
            "same-origin" | "none" => {}
            other => {
                return forbidden(format!(
                    "Sec-Fetch-Site: {}",
                    keystorm_link::bounds::shown(other)
                ));
            }
        }
    }
    let Some(origin) = headers.get(header::ORIGIN) else {
        return Ok(());
    };
    let origin = String::from_utf8_lossy(origin.as_bytes());
    let host = headers
        .get(header::HOST)
        .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned())
        .unwrap_or_default();
    if hosts.same_origin(&origin, &host) {
        Ok(())
    } else {
        forbidden(format!(
            "Origin {} is not this server's page ({})",
            keystorm_link::bounds::shown(&origin),
            keystorm_link::bounds::shown(&host)
        ))
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

/// Whether the token `given` is `secret`: their SHA-256 digests compared in constant
/// time, so neither the time nor an early return on a length mismatch tells anything of
/// the secret's length or content.
fn same_secret(given: &str, secret: &str) -> bool {
    use sha2::{Digest, Sha256};
    let (a, b) = (
        Sha256::digest(given.as_bytes()),
        Sha256::digest(secret.as_bytes()),
    );
    a.iter()
        .zip(b.iter())
        .fold(0u8, |acc, (x, y)| acc | (x ^ y))
        == 0
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
            token: token.map(str::to_string),
            read_token: read_token.map(str::to_string),
            ..ServeConfig::new("w".into(), "r".into())
        }
    }

    fn loopback() -> AllowedHosts {
        AllowedHosts {
            loopback_bound: true,
            ..AllowedHosts::default()
        }
    }

    #[test]
    fn fetch_metadata_from_another_site_is_refused() {
        let h = loopback();
        assert!(cross_site_check(&h, &headers(&[("sec-fetch-site", "same-origin")])).is_ok());
        assert!(cross_site_check(&h, &headers(&[("sec-fetch-site", "none")])).is_ok());
        assert!(cross_site_check(&h, &headers(&[("sec-fetch-site", "cross-site")])).is_err());
        assert!(cross_site_check(&h, &headers(&[("sec-fetch-site", "same-site")])).is_err());
    }

    #[test]
    fn an_origin_must_be_the_servers_own_even_when_fetch_metadata_says_same_origin() {
        let h = loopback();
        let check = |pairs: &[(&str, &str)]| cross_site_check(&h, &headers(pairs)).is_ok();
        assert!(check(&[
            ("origin", "http://127.0.0.1:7878"),
            ("host", "127.0.0.1:7878")
        ]));
        assert!(!check(&[
            ("origin", "http://evil.example"),
            ("host", "127.0.0.1:7878")
        ]));
        // DNS rebinding: to the browser the page and the server are one origin.
        assert!(!check(&[
            ("origin", "http://rebind.evil.example:7878"),
            ("host", "rebind.evil.example:7878"),
            ("sec-fetch-site", "same-origin"),
        ]));
        assert!(!check(&[("origin", "null"), ("host", "127.0.0.1:7878")]));
        assert!(check(&[]), "scripts and curl pass");
    }

    #[test]
    fn tokens_compare_exactly() {
        assert!(same_secret("s3cret", "s3cret"));
        assert!(!same_secret("s3cre", "s3cret"));
        assert!(!same_secret("s3creT", "s3cret"));
        assert!(!same_secret("", "s3cret"));
        assert!(!same_secret("s3cret-and-more", "s3cret"));
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
