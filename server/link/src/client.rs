//! The HTTP(S) link to a controller: JSON calls with the token (and, for a registered
//! agent, its own key), pieces of files sent, files fetched to disk, and errors that
//! say whether to try again (the controller is away) or give up (it refused, or its
//! certificate is not trusted). Plain http:// is for loopback: beyond it the link is
//! refused before any connection unless `--insecure-http` allows it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::protocol::AGENT_KEY_HEADER;
use crate::tls::{TlsConfigError, client_config, client_refusal, client_warning, is_loopback_host};

type Body = BoxBody<Bytes, std::io::Error>;

/// How a client trusts the controller it dials (`--ca-file`, `--insecure-http`).
#[derive(Debug, Default, Clone)]
pub struct ClientTls {
    /// Trust only the CA certificate(s) in this PEM file, not the system's roots.
    pub ca_file: Option<PathBuf>,
    /// Dial plain http:// beyond loopback.
    pub insecure_http: bool,
}

/// Longest a call may take (a barrier answers within 20 s).
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a call to the controller failed.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("the controller at {url} does not answer ({reason})")]
    Unreachable { url: String, reason: String },
    /// The TLS handshake failed: said with what to do (give --ca-file, ...).
    #[error("controller {url}: {reason}")]
    Tls { url: String, reason: String },
    #[error("{detail}")]
    Refused {
        status: u16,
        code: String,
        detail: String,
    },
    #[error("{0}")]
    Local(String),
}

impl LinkError {
    /// Worth trying again later: the controller is away or restarting.
    pub fn is_transient(&self) -> bool {
        match self {
            LinkError::Unreachable { .. } => true,
            LinkError::Refused { status, .. } => *status >= 500,
            LinkError::Tls { .. } | LinkError::Local(_) => false,
        }
    }

    /// The controller's certificate was not accepted (or it does not speak TLS).
    pub fn is_tls(&self) -> bool {
        matches!(self, LinkError::Tls { .. })
    }

    pub fn code(&self) -> Option<&str> {
        match self {
            LinkError::Refused { code, .. } => Some(code),
            _ => None,
        }
    }
}

/// Why a link to a controller cannot be made from what was given (nothing was sent).
#[derive(Debug, thiserror::Error)]
pub enum LinkSetupError {
    #[error("controller {url}: give its URL as https://HOST:PORT, without a path")]
    NotBaseUrl { url: String },
    #[error("controller {url}: not a URL ({source})")]
    NotUrl {
        url: String,
        source: hyper::http::uri::InvalidUri,
    },
    #[error("controller {url}: --ca-file is for a controller reached over https://")]
    CaFileOverHttp { url: String },
    #[error(
        "controller {shown}: a URL carries no credentials (`user:password@`); give the \
         controller's token in KEYSTORM_TOKEN or --token-file"
    )]
    UserInfo { shown: String },
    /// Plain HTTP beyond loopback without `--insecure-http`.
    #[error("{}", client_refusal(.base))]
    ClearBeyondLoopback { base: String },
    #[error(transparent)]
    Tls(#[from] TlsConfigError),
}

/// A controller's API.
#[derive(Clone)]
pub struct Link {
    base: String,
    token: Option<String>,
    client: Client<HttpsConnector<HttpConnector>, Body>,
    /// The CA trusted instead of the system's.
    ca_file: Option<PathBuf>,
    /// Plain HTTP beyond loopback (`--insecure-http`).
    unencrypted: bool,
    /// The key of the agent whose calls this link makes, sent in
    /// [`AGENT_KEY_HEADER`] (see [`Link::with_agent_key`]).
    agent_key: Option<String>,
}

impl Link {
    /// A link to the controller at `url` (`https://host:port`, or `http://` on
    /// loopback or with `--insecure-http`). Nothing is sent yet.
    pub fn new(url: &str, token: Option<String>, tls: &ClientTls) -> Result<Link, LinkSetupError> {
        let base = url.trim_end_matches('/');
        // The scheme is case-insensitive: `HTTPS://` is `https://`.
        let base = match base.split_once("://") {
            Some((scheme, rest)) => format!("{}://{rest}", scheme.to_ascii_lowercase()),
            None => base.to_string(),
        };
        if let Err(keystorm_types::EndpointUrlError::UserInfo(shown)) =
            keystorm_types::refuse_user_info(&base)
        {
            return Err(LinkSetupError::UserInfo { shown });
        }
        let form = || LinkSetupError::NotBaseUrl {
            url: url.to_string(),
        };
        let (https, rest) = match (base.strip_prefix("https://"), base.strip_prefix("http://")) {
            (Some(rest), _) => (true, rest),
            (None, Some(rest)) => (false, rest),
            (None, None) => return Err(form()),
        };
        if rest.is_empty() || rest.contains(['/', '?', '#']) {
            return Err(form());
        }
        let uri = base
            .parse::<hyper::Uri>()
            .map_err(|source| LinkSetupError::NotUrl {
                url: url.to_string(),
                source,
            })?;
        let beyond_loopback = !is_loopback_host(uri.host().unwrap_or_default());
        if !https {
            if tls.ca_file.is_some() {
                return Err(LinkSetupError::CaFileOverHttp {
                    url: url.to_string(),
                });
            }
            if beyond_loopback && !tls.insecure_http {
                return Err(LinkSetupError::ClearBeyondLoopback { base });
            }
        }
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_nodelay(true);
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(client_config(tls.ca_file.as_deref())?)
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        Ok(Link {
            base,
            token: token.filter(|t| !t.is_empty()),
            client: Client::builder(TokioExecutor::new()).build(connector),
            ca_file: tls.ca_file.clone(),
            unencrypted: !https && beyond_loopback,
            agent_key: None,
        })
    }

    /// This link for the calls of a registered agent: each carries `key`, the secret
    /// the controller gave it with its id, in the [`AGENT_KEY_HEADER`] header.
    pub fn with_agent_key(&self, key: &str) -> Link {
        Link {
            agent_key: Some(key.to_string()),
            ..self.clone()
        }
    }

    pub fn url(&self) -> &str {
        &self.base
    }

    /// What to say (on stderr, and in the runs made through it) of a link that crosses
    /// the network in clear.
    pub fn unencrypted_warning(&self) -> Option<String> {
        self.unencrypted.then(|| client_warning(&self.base))
    }

    pub async fn get<R: DeserializeOwned>(&self, path: &str) -> Result<R, LinkError> {
        let bytes = self.call(hyper::Method::GET, path, empty(), None).await?;
        self.decode(path, &bytes)
    }

    pub async fn post<T: Serialize, R: DeserializeOwned>(
        &self,
        path: &str,
        body: &T,
    ) -> Result<R, LinkError> {
        let bytes = self.post_raw(path, body).await?;
        self.decode(path, &bytes)
    }

    /// A POST whose answer has no body (204).
    pub async fn post_empty<T: Serialize>(&self, path: &str, body: &T) -> Result<(), LinkError> {
        self.post_raw(path, body).await.map(|_| ())
    }

    async fn post_raw<T: Serialize>(&self, path: &str, body: &T) -> Result<Bytes, LinkError> {
        let json = serde_json::to_vec(body).map_err(|e| LinkError::Local(e.to_string()))?;
        let body = Full::new(Bytes::from(json))
            .map_err(|never| match never {})
            .boxed();
        self.call(hyper::Method::POST, path, body, Some("application/json"))
            .await
    }

    /// Sends `bytes` as the body of a PUT.
    pub async fn put_bytes(&self, path: &str, bytes: Vec<u8>) -> Result<(), LinkError> {
        let body = Full::new(Bytes::from(bytes))
            .map_err(|never| match never {})
            .boxed();
        self.call(
            hyper::Method::PUT,
            path,
            body,
            Some("application/octet-stream"),
        )
        .await
        .map(|_| ())
    }

    /// GETs `path` into the file `to`, streamed to disk.
    pub async fn download(&self, path: &str, to: &Path) -> Result<(), LinkError> {
        let response = self.send(hyper::Method::GET, path, empty(), None).await?;
        let status = response.status();
        if !status.is_success() {
            let bytes = self.read_body(response).await?;
            return Err(self.refusal(path, status, &bytes));
        }
        let local =
            |e: std::io::Error| LinkError::Local(format!("cannot write {}: {e}", to.display()));
        let mut out = tokio::fs::File::create(to).await.map_err(local)?;
        let mut body = response.into_body();
        loop {
            let frame = tokio::time::timeout(CALL_TIMEOUT, body.frame())
                .await
                .map_err(|_| self.unreachable("the answer stopped".to_string()))?;
            let Some(frame) = frame else {
                break;
            };
            let frame =
                frame.map_err(|e| self.unreachable(format!("the answer broke off: {e}")))?;
            if let Ok(data) = frame.into_data() {
                tokio::io::AsyncWriteExt::write_all(&mut out, &data)
                    .await
                    .map_err(local)?;
            }
        }
        tokio::io::AsyncWriteExt::flush(&mut out)
            .await
            .map_err(local)
    }

    async fn call(
        &self,
        method: hyper::Method,
        path: &str,
        body: Body,
        content_type: Option<&str>,
    ) -> Result<Bytes, LinkError> {
        let response = self.send(method, path, body, content_type).await?;
        let status = response.status();
        let bytes = self.read_body(response).await?;
        if status.is_success() {
            return Ok(bytes);
        }
        Err(self.refusal(path, status, &bytes))
    }

    async fn send(
        &self,
        method: hyper::Method,
        path: &str,
        body: Body,
        content_type: Option<&str>,
    ) -> Result<hyper::Response<hyper::body::Incoming>, LinkError> {
        let mut request = hyper::Request::builder()
            .method(method)
            .uri(format!("{}{path}", self.base));
        if let Some(t) = content_type {
            request = request.header(hyper::header::CONTENT_TYPE, t);
        }
        if let Some(token) = &self.token {
            request = request.header(hyper::header::AUTHORIZATION, format!("Bearer {token}"));
        }
        if let Some(key) = &self.agent_key {
            request = request.header(AGENT_KEY_HEADER, key);
        }
        let request = request
            .body(body)
            .map_err(|e| LinkError::Local(format!("bad request to {path}: {e}")))?;
        tokio::time::timeout(CALL_TIMEOUT, self.client.request(request))
            .await
            .map_err(|_| {
                self.unreachable(format!("no answer within {} s", CALL_TIMEOUT.as_secs()))
            })?
            .map_err(|e| self.failed_connection(&e))
    }

    /// A failed TLS handshake said with what to do; otherwise the controller is away.
    fn failed_connection(&self, e: &hyper_util::client::legacy::Error) -> LinkError {
        match crate::tls::describe(e, self.ca_file.as_deref()) {
            Some(reason) => LinkError::Tls {
                url: self.base.clone(),
                reason,
            },
            None => self.unreachable(connect_reason(e)),
        }
    }

    async fn read_body(
        &self,
        response: hyper::Response<hyper::body::Incoming>,
    ) -> Result<Bytes, LinkError> {
        Ok(
            tokio::time::timeout(CALL_TIMEOUT, response.into_body().collect())
                .await
                .map_err(|_| self.unreachable("the answer stopped".to_string()))?
                .map_err(|e| self.unreachable(format!("the answer broke off: {e}")))?
                .to_bytes(),
        )
    }

    fn unreachable(&self, reason: String) -> LinkError {
        LinkError::Unreachable {
            url: self.base.clone(),
            reason,
        }
    }

    /// The controller's refusal, as its JSON error says it.
    fn refusal(&self, path: &str, status: hyper::StatusCode, bytes: &[u8]) -> LinkError {
        #[derive(serde::Deserialize)]
        struct ErrorBody {
            error: String,
            detail: String,
        }
        let (code, detail) = match serde_json::from_slice::<ErrorBody>(bytes) {
            Ok(e) => (e.error, e.detail),
            Err(_) => (
                status.as_str().to_string(),
                format!(
                    "{path}: HTTP {status} (is {} a keystorm controller?)",
                    self.base
                ),
            ),
        };
        LinkError::Refused {
            status: status.as_u16(),
            code,
            detail,
        }
    }

    fn decode<R: DeserializeOwned>(&self, path: &str, bytes: &[u8]) -> Result<R, LinkError> {
        serde_json::from_slice(bytes).map_err(|e| {
            LinkError::Local(format!(
                "{}{path} answered something this keystorm cannot read ({e}): is it a \
                 keystorm controller of the same version?",
                self.base
            ))
        })
    }
}

fn empty() -> Body {
    Full::new(Bytes::new())
        .map_err(|never| match never {})
        .boxed()
}

/// The innermost cause of a failed connection ("Connection refused"), without the
/// HTTP library's wrapping.
fn connect_reason(e: &hyper_util::client::legacy::Error) -> String {
    let mut source: &dyn std::error::Error = e;
    while let Some(inner) = source.source() {
        source = inner;
    }
    source.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scheme_of_a_controller_url_is_read_in_any_case() {
        for given in ["HTTP://127.0.0.1:7878", "Http://127.0.0.1:7878/"] {
            let link = Link::new(given, None, &ClientTls::default()).unwrap();
            assert_eq!(link.url(), "http://127.0.0.1:7878");
        }
        assert!(matches!(
            Link::new("FTP://127.0.0.1:7878", None, &ClientTls::default()),
            Err(LinkSetupError::NotBaseUrl { .. })
        ));
    }
}
