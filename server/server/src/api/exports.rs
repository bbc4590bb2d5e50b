//! `GET /api/runs/{id}/export/{file}`: the run's files for other tools — summary CSV,
//! interval CSV, the HdrHistogram log — and a self-contained offline HTML report.

use std::io::Write;

use axum::body::Body;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use keystorm_results::{
    HLOG_FILE, IntervalQuery, IntervalRecord, ResultStore, SUMMARY_CSV_FILE, class_cell, csv_field,
    for_each_folded_interval, read_intervals, shards_cell,
};

use super::error::{ApiError, ApiPath, ApiResult, ErrorBody};
use super::params::RunIdParam;
use super::run_files::{read_summary, run_dir, run_info};
use super::runs::DEFAULT_MAX_POINTS;
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
        ExportFile::ReportHtml => {
            let manifest = ResultStore::read_manifest(&dir)?;
            let summary = read_summary(&dir);
            let phases = summary
                .as_ref()
                .map(|s| keystorm_results::whole_phase_rows(&dir, &s.rows))
                .unwrap_or_default();
            let data = serde_json::json!({
                "info": run_info(&dir, &manifest),
                "verdict": keystorm_results::RunVerdict::read(&dir, &manifest, &phases),
                "thresholds": keystorm_results::threshold_judge::judge_in(&dir, &manifest.expect, &phases),
                "row_intervals": keystorm_results::uncertainty::row_intervals(&dir, &phases),
                "phases": phases,
                "phase_details": report_phases(&dir, summary.as_ref()),
                "summary": summary,
                // A chart's worth of points per phase, as the run page shows them.
                "intervals": read_intervals(&dir, &IntervalQuery {
                    max_points: Some(DEFAULT_MAX_POINTS),
                    ..IntervalQuery::default()
                }),
                "index": super::index::read_index(&dir),
                "listings": keystorm_results::read_listings(&dir),
                "integrity": super::integrity::report_of(&dir),
                "endpoints": keystorm_results::read_endpoint_events(&dir),
                "timeline": keystorm_results::read_timeline(&dir),
                "workload_text": super::runs::workload_text(&dir),
                "heatmaps": report_heatmaps(&dir),
                "manifest": manifest,
            });
            (
                "text/html; charset=utf-8",
                Body::from(super::ui::report(&data)?),
            )
        }
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

/// Columns of each heatmap a report carries: enough for a screen, whatever the run's
/// length.
const REPORT_HEATMAP_COLUMNS: u32 = 1_200;

/// Each operation's latency heatmap over the whole run, for the offline report.
fn report_heatmaps(dir: &std::path::Path) -> serde_json::Map<String, serde_json::Value> {
    let path = dir.join(HLOG_FILE);
    keystorm_types::OpKind::ALL
        .into_iter()
        .filter_map(|op| {
            let heat = super::heatmap::read_heatmap(
                &path,
                op,
                &super::heatmap::HeatmapFilter::default(),
                REPORT_HEATMAP_COLUMNS,
            )
            .ok()
            .flatten()?;
            Some((op.as_str().to_string(), serde_json::to_value(heat).ok()?))
        })
        .collect()
}

/// Columns of each phase's heatmap in a report.
const REPORT_PHASE_HEATMAP_COLUMNS: u32 = 600;

/// What the run page's "one phase in detail" loads, for every phase × round × operation
/// of the summary, keyed `section|round|phase|op` (round empty outside rounds): its
/// latency distribution and its heatmap, so the offline report shows what the page
/// does. Distributions come from one pass over the histogram log; each heatmap reads
/// the log again (a report is made once, and a run has tens of rows, not millions).
fn report_phases(
    dir: &std::path::Path,
    summary: Option<&keystorm_results::Summary>,
) -> serde_json::Map<String, serde_json::Value> {
    use keystorm_results::{hlog_tag, read_merged_tags};
    let Some(summary) = summary else {
        return serde_json::Map::new();
    };
    let path = dir.join(HLOG_FILE);
    let tags = summary.rows.iter().map(|r| r.log_tag()).collect();
    let merged = read_merged_tags(&path, &tags).unwrap_or_default();
    let mut out = serde_json::Map::new();
    for r in &summary.rows {
        let key = format!(
            "{}|{}|{}|{}",
            r.section.as_str(),
            r.round.map(|n| n.to_string()).unwrap_or_default(),
            r.phase,
            r.op.as_str()
        );
        if out.contains_key(&key) {
            continue;
        }
        let distribution = merged.get(&r.log_tag()).filter(|h| !h.is_empty()).map(|h| {
            super::distribution::Distribution {
                count: h.len(),
                points: super::distribution::points(h),
            }
        });
        let filter = super::heatmap::HeatmapFilter {
            section: Some(r.section.as_str().to_string()),
            round: Some(r.round.map_or_else(|| "-".to_string(), |n| n.to_string())),
            phase: Some(hlog_tag(&[&r.phase])),
        };
        let heatmap =
            super::heatmap::read_heatmap(&path, r.op, &filter, REPORT_PHASE_HEATMAP_COLUMNS)
                .ok()
                .flatten();
        out.insert(
            key,
            serde_json::json!({ "distribution": distribution, "heatmap": heatmap }),
        );
    }
    out
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
