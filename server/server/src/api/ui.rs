//! The web UI: the built React app embedded in the binary (SPA fallback to
//! `index.html`), or, in dev mode, every non-API request proxied to the Vite dev
//! server. A binary built without `web/dist` still works and says how to build the UI.
//! Also the offline report: one HTML file with the run's data inlined.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{Html, IntoResponse, Response};
use rust_embed::RustEmbed;

use super::error::ApiError;
use super::state::AppState;

#[derive(RustEmbed)]
#[folder = "../../web/dist"]
#[allow_missing = true]
struct Assets;

#[derive(RustEmbed)]
#[folder = "../../web/dist-report"]
#[allow_missing = true]
struct ReportTemplate;

/// Where the report template expects its data.
const REPORT_PLACEHOLDER: &str = "__KEYSTORM_REPORT_DATA__";

const NOT_BUILT: &str = "<!doctype html><meta charset=utf-8><title>keystorm</title>\
<body style=\"font-family:sans-serif;max-width:40em;margin:3em auto\">\
<h1>keystorm</h1><p>The web UI is not part of this build. Build it with \
<code>npm ci &amp;&amp; npm run build</code> at the repository root, then rebuild keystorm \
(<code>cargo build --release -p keystorm</code>). The API answers under \
<a href=\"/api/status\">/api/</a>.</p></body>";

pub async fn serve(State(state): State<AppState>, request: Request) -> Response {
    if let Some(dev) = &state.config.ui_dev_url {
        return proxy(dev, request).await;
    }
    asset(request.uri())
}

fn asset(uri: &Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    if !path.is_empty()
        && let Some(file) = Assets::get(path)
    {
        let cache = if path.starts_with("assets/") {
            "public, max-age=31536000, immutable"
        } else {
            "no-cache"
        };
        return (
            [
                (header::CONTENT_TYPE, file.metadata.mimetype().to_string()),
                (header::CACHE_CONTROL, cache.to_string()),
            ],
            file.data,
        )
            .into_response();
    }
    // Missing files under assets/ are real 404s; every other path is a client route.
    if path.starts_with("assets/") {
        return ApiError::not_found(format!("no asset /{path}")).into_response();
    }
    match Assets::get("index.html") {
        Some(index) => (
            [(header::CACHE_CONTROL, "no-cache")],
            Html(index.data.into_owned()),
        )
            .into_response(),
        None => Html(NOT_BUILT).into_response(),
    }
}

/// Dev mode: forward the request to the Vite dev server.
async fn proxy(base: &str, request: Request) -> Response {
    use http_body_util::BodyExt;
    use hyper_util::client::legacy::Client;
    use hyper_util::rt::TokioExecutor;

    let path = request
        .uri()
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let Ok(uri) = format!("{}{path}", base.trim_end_matches('/')).parse::<Uri>() else {
        return ApiError::internal("bad dev server URL").into_response();
    };
    let (mut parts, body) = request.into_parts();
    parts.uri = uri;
    parts.headers.remove(header::HOST);
    let client = Client::builder(TokioExecutor::new()).build_http::<Body>();
    match client.request(Request::from_parts(parts, body)).await {
        Ok(resp) => {
            let (parts, body) = resp.into_parts();
            Response::from_parts(parts, Body::new(body.map_err(axum::Error::new)))
        }
        Err(e) => ApiError::new(
            StatusCode::BAD_GATEWAY,
            "dev_server_unreachable",
            format!(
                "the Vite dev server at {base} did not answer ({e}); start it with `npm run dev`"
            ),
        )
        .into_response(),
    }
}

/// The offline report for one run: the report page with `data` inlined.
pub fn report(data: &serde_json::Value) -> Result<String, ApiError> {
    let Some(template) = ReportTemplate::get("report.html") else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "report_not_built",
            "this build has no report template; build the web UI (`npm ci && npm run build`) and rebuild keystorm",
        ));
    };
    let template = String::from_utf8_lossy(&template.data).into_owned();
    // Inside <script>: no `</` may appear, and U+2028/2029 are escaped for old parsers.
    let json = data
        .to_string()
        .replace("</", "<\\/")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029");
    if !template.contains(REPORT_PLACEHOLDER) {
        return Err(ApiError::internal(
            "the report template has no data placeholder",
        ));
    }
    Ok(template.replacen(REPORT_PLACEHOLDER, &json, 1))
}
