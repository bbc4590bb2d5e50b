//! The headers every answer carries so a browser keeps the UI to itself: a Content
//! Security Policy that loads script, style and data only from this server and lets no
//! page frame it (clickjacking), `nosniff` so a results file is never run as script,
//! and no `Referer` leaving the page. An answer that sets its own policy keeps it (the
//! offline report, whose script and style are inline, is sandboxed instead).

use axum::http::{HeaderName, HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

/// The UI's policy: everything from this server, nothing inline, no framing.
pub const UI_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// In dev mode the Vite dev server's page runs inline script and talks over its
/// websocket; still never framed.
pub const DEV_POLICY: &str = "default-src 'self'; script-src 'self' 'unsafe-inline'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' ws: wss:; \
     object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// The offline report served from here: its inline script and style run, in a sandbox
/// of its own origin, so it cannot call this server's API even if a value in it were
/// crafted to.
pub const REPORT_POLICY: &str = "default-src 'none'; script-src 'unsafe-inline'; \
     style-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'; \
     sandbox allow-scripts allow-downloads";

/// The layers that put the headers on every answer (`dev`: the Vite dev server's page).
pub fn layers(
    dev: bool,
) -> (
    SetResponseHeaderLayer<HeaderValue>,
    SetResponseHeaderLayer<HeaderValue>,
    SetResponseHeaderLayer<HeaderValue>,
    SetResponseHeaderLayer<HeaderValue>,
) {
    let policy = if dev { DEV_POLICY } else { UI_POLICY };
    (
        SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(policy),
        ),
        SetResponseHeaderLayer::overriding(
            header::X_FRAME_OPTIONS,
            HeaderValue::from_static("DENY"),
        ),
        SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        SetResponseHeaderLayer::overriding(
            HeaderName::from_static("referrer-policy"),
            HeaderValue::from_static("no-referrer"),
        ),
    )
}
