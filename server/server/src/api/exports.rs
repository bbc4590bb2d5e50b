//! `GET /api/runs/{id}/export/{file}`: the run's files for other tools — summary CSV,
//! interval CSV, the HdrHistogram log — and a self-contained offline HTML report.

use std::io::Write;

use axum::body::Body;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use keystorm_results::{
    HLOG_FILE, IntervalQuery, IntervalRecord, SUMMARY_CSV_FILE, class_cell, csv_field,
    for_each_folded_interval, shards_cell,
};

use super::error::{ApiError, ApiPath, ApiResult, ErrorBody};
use super::params::RunIdParam;
use super::run_files::run_dir;
use super::state::AppState;
use super::streamed;
use utoipa::ToSchema;

/// The files a run can be exported as.
#[derive(Debug, Clone, Copy, ToSchema)]
pub enum ExportFile {
    #[schema(rename = "summary.csv")]
    SummaryCsv,
    #[schema(rename = "intervals.csv")]
    IntervalsCsv,
    #[schema(rename = "histograms.hlog")]
    HistogramsHlog,
    #[schema(rename = "report.html")]
    ReportHtml,
}

impl ExportFile {
    fn named(file: &str) -> Option<ExportFile> {
        match file {
            "summary.csv" => Some(ExportFile::SummaryCsv),
            "intervals.csv" => Some(ExportFile::IntervalsCsv),
            "histograms.hlog" => Some(ExportFile::HistogramsHlog),
            "report.html" => Some(ExportFile::ReportHtml),
            _ => None,
        }
    }
}

#[utoipa::path(get, path = "/api/runs/{id}/export/{file}", operation_id = "export_run_file", tag = "exports",
    params(RunIdParam,
        ("file" = inline(ExportFile), Path, description = "which file")),
    responses((status = 200, description = "the file, as an attachment",
            content((String = "text/csv"), (String = "text/plain"), (String = "text/html"))),
        (status = 404, body = ErrorBody)))]
pub async fn export(
    State(state): State<AppState>,
    ApiPath((id, file)): ApiPath<(String, String)>,
) -> ApiResult<Response> {
    let dir = run_dir(&state.config.results_dir, &id)?;
    let Some(export) = ExportFile::named(&file) else {
        return Err(ApiError::not_found(format!(
            "no export {file:?}: use summary.csv, intervals.csv, histograms.hlog or report.html"
        )));
    };
    let (content_type, body): (&str, Body) = match export {
        ExportFile::SummaryCsv => (
            "text/csv; charset=utf-8",
            file_body(&dir, SUMMARY_CSV_FILE)?,
        ),
        ExportFile::HistogramsHlog => ("text/plain; charset=utf-8", file_body(&dir, HLOG_FILE)?),
        ExportFile::IntervalsCsv => (
            "text/csv; charset=utf-8",
            // Every interval, converted as it is read; a phase's sliver of a last
            // interval folded into the one before, as the charts draw it.
            streamed::body(move |out| {
                writeln!(out, "{INTERVALS_CSV_HEADER}")?;
                for_each_folded_interval(&dir, &IntervalQuery::default(), |r| {
                    write_interval_rows(out, &r)
                })
            }),
        ),
        ExportFile::ReportHtml => (
            "text/html; charset=utf-8",
            Body::from(super::reports::run_report_html(&dir)?),
        ),
    };
    let disposition = format!("attachment; filename=\"{id}-{file}\"");
    let mut response = (
        [
            (header::CONTENT_TYPE, content_type.to_string()),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response();
    if matches!(export, ExportFile::ReportHtml) {
        // Opened in the browser rather than saved, the report's inline script runs in
        // a sandbox of its own.
        response.headers_mut().insert(
            header::CONTENT_SECURITY_POLICY,
            axum::http::HeaderValue::from_static(super::security_headers::REPORT_POLICY),
        );
    }
    Ok(response)
}

/// A file of the run, streamed from disk.
fn file_body(dir: &std::path::Path, name: &str) -> ApiResult<Body> {
    let mut file = std::fs::File::open(dir.join(name)).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            ApiError::not_found(format!("the run has no {name} yet"))
        } else {
            ApiError::internal(format!("cannot read {name}: {e}"))
        }
    })?;
    Ok(streamed::body(move |out| {
        std::io::copy(&mut file, out).map(|_| ())
    }))
}

const INTERVALS_CSV_HEADER: &str = "section,round,phase,interval,t_s,duration_s,warmup,tail,head,op,ops,errors,ops_per_sec,bytes,mib_per_sec,keys,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,lat_max_us,error_classes,shards,bucket_objects,resharding,retries,attempt_error_classes";

/// The lines of one interval, one per operation, `.` decimals.
pub fn write_interval_rows(out: &mut impl Write, r: &IntervalRecord) -> std::io::Result<()> {
    for (op, s) in &r.ops {
        let l = &s.latency_us;
        writeln!(
            out,
            "{},{},{},{},{:.3},{:.3},{},{},{},{},{},{},{:.3},{},{:.3},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.section.as_str(),
            r.round.map(|n| n.to_string()).unwrap_or_default(),
            csv_field(&r.phase),
            r.interval,
            r.t_s,
            r.duration_s,
            r.warmup,
            r.window.tail,
            r.window.head,
            op.as_str(),
            s.ops,
            s.errors,
            s.ops_per_sec,
            s.bytes,
            s.mib_per_sec,
            s.keys,
            l.p50,
            l.p90,
            l.p99,
            l.p999,
            l.max,
            class_cell(&s.error_classes),
            shards_cell(&r.index),
            r.index
                .iter()
                .map(|b| b.objects.to_string())
                .collect::<Vec<_>>()
                .join(";"),
            r.index
                .iter()
                .map(|b| if b.resharding { "1" } else { "0" })
                .collect::<Vec<_>>()
                .join(";"),
            s.retries,
            csv_field(&class_cell(&s.attempt_error_classes)),
        )?;
    }
    Ok(())
}
