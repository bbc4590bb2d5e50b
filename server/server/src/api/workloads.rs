//! `/api/workloads`: the YAML files of the workloads folder — list, read, validate,
//! save. Names are checked before they touch the file system, so no request can reach
//! outside the folder; saving never replaces a file unless asked to.

use std::path::{Path, PathBuf};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use keystorm_workload::spec::{SpecError, parse_workload, redact_secrets};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::{ApiError, ApiJson, ApiPath, ApiResult};
use super::params::WorkloadNameParam;
use super::state::AppState;

#[derive(Debug, Serialize, ToSchema)]
pub struct WorkloadInfo {
    /// File name without `.yaml`.
    pub name: String,
    /// The comment block the file opens with, or null.
    pub description: Option<String>,
    pub size_bytes: u64,
    /// Last modification, RFC 3339 UTC.
    pub modified: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WorkloadText {
    pub name: String,
    /// The file's text; every secret it holds (inline keys, wherever their values
    /// appear) is replaced by `<redacted>`.
    pub text: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ValidateRequest {
    pub text: String,
}

#[derive(Debug, Serialize, ToSchema, Clone)]
pub struct Problem {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct OutlinePhase {
    /// `before`, `round` or `after`.
    pub section: String,
    pub name: String,
    /// `put`, `get`, `head`, `list`, `delete` or `mix`.
    pub op: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Outline {
    pub name: String,
    pub rounds: u32,
    pub phases: Vec<OutlinePhase>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ValidateResponse {
    pub valid: bool,
    pub errors: Vec<Problem>,
    pub warnings: Vec<Problem>,
    pub outline: Option<Outline>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SaveRequest {
    pub text: String,
    /// Replace an existing file (default false: 409 if it exists).
    #[serde(default)]
    pub overwrite: bool,
}

/// Workload names: 1-64 of `[A-Za-z0-9_-]`, so a name is always a plain file name.
pub fn check_name(name: &str) -> Result<(), ApiError> {
    let name = name.strip_suffix(".yaml").unwrap_or(name);
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "bad workload name {name:?}: use 1-64 letters, digits, '-' or '_'"
        )))
    }
}

/// The file of a (checked) workload name.
pub fn workload_path(dir: &Path, name: &str) -> Result<PathBuf, ApiError> {
    check_name(name)?;
    let name = name.strip_suffix(".yaml").unwrap_or(name);
    Ok(dir.join(format!("{name}.yaml")))
}

/// Reads a workload by name; 404 when there is no such file.
pub fn read_workload(dir: &Path, name: &str) -> Result<(PathBuf, String), ApiError> {
    let path = workload_path(dir, name)?;
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok((path, text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(ApiError::not_found(format!(
            "no workload {name:?} in the workloads folder"
        ))),
        Err(e) => Err(ApiError::internal(format!(
            "cannot read workload {name}: {e}"
        ))),
    }
}

#[utoipa::path(get, path = "/api/workloads", operation_id = "list_workloads", tag = "workloads",
    responses((status = 200, body = [WorkloadInfo])))]
pub async fn list(State(state): State<AppState>) -> ApiResult<Json<Vec<WorkloadInfo>>> {
    let entries = match std::fs::read_dir(&state.config.workloads_dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Json(Vec::new())),
        Err(e) => return Err(ApiError::internal(format!("cannot list workloads: {e}"))),
    };
    let mut out: Vec<WorkloadInfo> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let path = e.path();
            let name = path
                .file_name()?
                .to_str()?
                .strip_suffix(".yaml")?
                .to_string();
            check_name(&name).ok()?;
            let meta = e.metadata().ok()?;
            if !meta.is_file() {
                return None;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            Some(WorkloadInfo {
                name,
                description: leading_comment(&redact_secrets(&text)),
                size_bytes: meta.len(),
                modified: meta.modified().ok().map(keystorm_results::timestamp),
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Json(out))
}

#[utoipa::path(get, path = "/api/workloads/{name}", operation_id = "read_workload", tag = "workloads",
    params(WorkloadNameParam),
    responses((status = 200, body = WorkloadText), (status = 404, body = super::error::ErrorBody)))]
pub async fn read(
    State(state): State<AppState>,
    ApiPath(WorkloadNameParam { name }): ApiPath<WorkloadNameParam>,
) -> ApiResult<Json<WorkloadText>> {
    let (_, text) = read_workload(&state.config.workloads_dir, &name)?;
    Ok(Json(WorkloadText {
        name: name.trim_end_matches(".yaml").to_string(),
        text: redact_secrets(&text),
    }))
}

#[utoipa::path(post, path = "/api/workloads/validate", operation_id = "validate_workload", tag = "workloads",
    request_body = ValidateRequest,
    responses((status = 200, body = ValidateResponse)))]
pub async fn validate(ApiJson(req): ApiJson<ValidateRequest>) -> Json<ValidateResponse> {
    Json(validation(&req.text))
}

pub fn validation(text: &str) -> ValidateResponse {
    match parse_workload(text, "workload") {
        Ok((plan, warnings)) => outline_redacted(
            ValidateResponse {
                valid: true,
                errors: Vec::new(),
                warnings: warnings
                    .into_iter()
                    .map(|w| Problem {
                        line: w.line,
                        column: w.column,
                        message: w.message,
                    })
                    .collect(),
                outline: Some(Outline {
                    name: plan.name.clone(),
                    rounds: plan.rounds.count,
                    phases: keystorm_engine::executor::schedule(&plan)
                        .iter()
                        .filter(|p| p.phase_ref.round.is_none_or(|r| r == 1))
                        .map(|p| OutlinePhase {
                            section: p.phase_ref.section.as_str().to_string(),
                            name: p.phase_ref.name.clone(),
                            op: work_label(&p.plan.work),
                        })
                        .collect(),
                }),
            },
            text,
        ),
        Err(e) => ValidateResponse {
            valid: false,
            errors: vec![problem_of(&e)],
            warnings: Vec::new(),
            outline: None,
        },
    }
}

/// The outline's names, which a YAML alias can make show a secret of the text.
fn outline_redacted(mut response: ValidateResponse, text: &str) -> ValidateResponse {
    if let Some(outline) = &mut response.outline {
        let redactor = keystorm_workload::spec::workload_redactor(text);
        redactor.redact_in_place(&mut outline.name);
        for phase in &mut outline.phases {
            redactor.redact_in_place(&mut phase.name);
        }
    }
    response
}

pub fn problem_of(e: &SpecError) -> Problem {
    match e {
        SpecError::Invalid {
            line,
            column,
            message,
            ..
        } => Problem {
            line: *line,
            column: *column,
            message: message.clone(),
        },
        SpecError::Io { source, .. } => Problem {
            line: 1,
            column: 1,
            message: source.to_string(),
        },
    }
}

#[utoipa::path(put, path = "/api/workloads/{name}", operation_id = "save_workload", tag = "workloads",
    params(WorkloadNameParam),
    request_body = SaveRequest,
    responses((status = 201, body = WorkloadInfo), (status = 200, body = WorkloadInfo),
        (status = 409, body = super::error::ErrorBody), (status = 422, body = super::error::ErrorBody)))]
pub async fn save(
    State(state): State<AppState>,
    ApiPath(WorkloadNameParam { name }): ApiPath<WorkloadNameParam>,
    ApiJson(req): ApiJson<SaveRequest>,
) -> ApiResult<(StatusCode, Json<WorkloadInfo>)> {
    let path = workload_path(&state.config.workloads_dir, &name)?;
    if let Err(e) = parse_workload(&req.text, "workload") {
        let p = problem_of(&e);
        return Err(ApiError::invalid_workload(p.line, p.column, p.message));
    }
    if req.text.contains(keystorm_results::secrets::REDACTED) {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "redacted_secret",
            "the text holds a redacted secret key; keystorm does not store secrets it has \
             hidden: use `credentials: { env: ... }` or a profile instead",
        ));
    }
    let existed = path.is_file();
    if existed && !req.overwrite {
        return Err(ApiError::conflict(
            "exists",
            format!("workload {name:?} exists; save with overwrite to replace it"),
        ));
    }
    std::fs::create_dir_all(&state.config.workloads_dir)
        .and_then(|_| write_atomic(&path, req.text.as_bytes()))
        .map_err(|e| ApiError::internal(format!("cannot save workload {name}: {e}")))?;
    let name = name.trim_end_matches(".yaml").to_string();
    Ok((
        if existed {
            StatusCode::OK
        } else {
            StatusCode::CREATED
        },
        Json(WorkloadInfo {
            description: leading_comment(&redact_secrets(&req.text)),
            size_bytes: req.text.len() as u64,
            modified: Some(keystorm_results::timestamp(std::time::SystemTime::now())),
            name,
        }),
    ))
}

fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("yaml.tmp");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// The comment block a workload opens with, `#` stripped; `None` if there is none.
pub fn leading_comment(text: &str) -> Option<String> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .take_while(|l| l.starts_with('#'))
        .map(|l| l.trim_start_matches('#').trim())
        .collect();
    let joined = lines.join(" ").trim().to_string();
    (!joined.is_empty()).then_some(joined)
}

fn work_label(work: &keystorm_workload::plan::PhaseWork) -> String {
    match work {
        keystorm_workload::plan::PhaseWork::Single(op) => op.as_str().to_string(),
        keystorm_workload::plan::PhaseWork::Mix(_) => "mix".to_string(),
    }
}
