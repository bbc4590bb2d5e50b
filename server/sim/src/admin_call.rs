//! An admin call as the request handler passes it on (with the port it came through),
//! and the answers admin calls give: compact JSON as RGW sends it, or RGW's admin error
//! document, with a message where the call is the target's own.

use http::{Method, Response, StatusCode, header};
use serde_json::{Value, json};

use crate::body::SimBody;
use crate::rgw_json;

pub(crate) type Resp = Response<SimBody>;

/// An admin call, and the port it came through.
pub(crate) struct Call<'a> {
    pub method: &'a Method,
    pub path: &'a str,
    pub query: Option<&'a str>,
    /// The number of the port the call arrived on.
    pub through: u16,
}

/// A successful answer: compact JSON without a Content-Type, as RGW sends it.
pub(crate) fn json_response(status: StatusCode, body: &Value) -> Resp {
    Response::builder()
        .status(status)
        .body(SimBody::bytes(body.to_string()))
        .unwrap_or_else(|_| Response::new(SimBody::empty()))
}

/// RGW's admin error document (`{"Code": ..., "Message": "", ...}`), as JSON.
pub(crate) fn error(status: StatusCode, code: &str) -> Resp {
    explained(status, code, "")
}

/// An admin error document whose `Message` says what is wrong (the target's own calls).
pub(crate) fn explained(status: StatusCode, code: &str, message: &str) -> Resp {
    let mut doc = rgw_json::error(code);
    doc["Message"] = json!(message);
    let mut r = json_response(status, &doc);
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/json"),
    );
    r
}
