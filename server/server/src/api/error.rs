//! The one error shape of the API: a 4xx (or 5xx when keystorm itself failed) with
//! `{"error": code, "detail": message}`, plus `line`/`column` for workload errors.
//! Extractor rejections (body, query and path) are mapped here too, so even malformed
//! requests get JSON.

use axum::Json;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde::de::DeserializeOwned;
use utoipa::ToSchema;

/// Body of every error response.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorBody {
    /// A short machine-readable code, e.g. `not_found`, `run_in_progress`.
    pub error: String,
    /// What went wrong and what to do about it.
    pub detail: String,
    /// For workload errors: 1-based line of the problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// For workload errors: 1-based column of the problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub body: ErrorBody,
}

impl ApiError {
    pub fn new(status: StatusCode, error: &str, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            body: ErrorBody {
                error: error.to_string(),
                detail: detail.into(),
                line: None,
                column: None,
            },
        }
    }

    pub fn bad_request(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", detail)
    }

    pub fn not_found(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", detail)
    }

    pub fn conflict(error: &str, detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, error, detail)
    }

    pub fn internal(detail: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", detail)
    }

    /// A workload that does not validate: 422 with where the problem is.
    pub fn invalid_workload(line: usize, column: usize, message: impl Into<String>) -> ApiError {
        let mut e = ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_workload",
            message,
        );
        e.body.line = Some(line);
        e.body.column = Some(column);
        e
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        let status = r.status();
        let code = match status {
            StatusCode::PAYLOAD_TOO_LARGE => "body_too_large",
            StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
            _ => "bad_json",
        };
        // Axum's 422 for well-formed JSON of the wrong shape is a client error too.
        let status = if status.is_client_error() {
            status
        } else {
            StatusCode::BAD_REQUEST
        };
        ApiError::new(status, code, r.body_text())
    }
}

impl From<QueryRejection> for ApiError {
    fn from(r: QueryRejection) -> Self {
        ApiError::bad_request(r.body_text())
    }
}

impl From<PathRejection> for ApiError {
    fn from(r: PathRejection) -> Self {
        ApiError::bad_request(r.body_text())
    }
}

impl From<keystorm_results::ResultsError> for ApiError {
    fn from(e: keystorm_results::ResultsError) -> Self {
        use keystorm_results::ResultsError;
        match e {
            ResultsError::NoSuchRun(id) => ApiError::not_found(format!("no run {id:?}")),
            other => ApiError::internal(other.to_string()),
        }
    }
}

/// `Json<T>` whose rejections are [`ApiError`]s, and whose body must be a JSON object:
/// serde alone would also read a struct from an array of its fields in order.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    S: Send + Sync,
    T: DeserializeOwned,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let Json(value) = Json::<serde_json::Value>::from_request(request, state).await?;
        let wrong_shape =
            |detail: String| ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_json", detail);
        if !value.is_object() {
            return Err(wrong_shape(
                "the body must be a JSON object ({...}), not an array or a single value"
                    .to_string(),
            ));
        }
        serde_json::from_value(value).map(ApiJson).map_err(|e| {
            wrong_shape(format!(
                "Failed to deserialize the JSON body into the target type: {e}"
            ))
        })
    }
}

/// `Query<T>` whose rejections are [`ApiError`]s.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(ApiError))]
pub struct ApiQuery<T>(pub T);

/// `Path<T>` whose rejections (a segment that is not UTF-8, say) are [`ApiError`]s.
#[derive(Debug, FromRequestParts)]
#[from_request(via(axum::extract::Path), rejection(ApiError))]
pub struct ApiPath<T>(pub T);

pub type ApiResult<T> = Result<T, ApiError>;
