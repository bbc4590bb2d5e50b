//! Offline reports: one self-contained HTML file, the web UI's report bundle with the
//! data inlined — of one run (what its page shows; `/api/runs/{id}/export/report.html`
//! and `keystorm report RUN`) or of runs compared with a base (what the compare page
//! shows, verdicts and the study's paragraph included; `keystorm report BASE NEW…`).
//! Both read the run folders directly, so they work on runs of any results folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use keystorm_results::comparison::{self, CompareOptions};
use keystorm_results::{
    HLOG_FILE, IntervalQuery, SummaryRow, hlog_tag, read_intervals, read_merged_tags,
};
use serde_json::{Map, Value, json};

use super::distribution::{Distribution, points};
use super::error::{ApiError, ApiResult};
use super::heatmap::{HeatmapFilter, read_heatmap};
use super::runs::{DEFAULT_MAX_POINTS, detail_of};

/// Columns of each heatmap a report carries: enough for a screen, whatever the run's
/// length.
const REPORT_HEATMAP_COLUMNS: u32 = 1_200;

/// Columns of each phase's heatmap in a report.
const REPORT_PHASE_HEATMAP_COLUMNS: u32 = 600;

/// The offline report of the run in `dir`.
pub fn run_report_html(dir: &Path) -> ApiResult<String> {
    super::ui::report(&run_report_data(dir)?)
}

/// The offline report of `news` compared with `base` (run folders), judged with
/// `options` as `keystorm compare` and the compare page judge them.
pub fn comparison_report_html(
    base: &Path,
    news: &[PathBuf],
    options: &CompareOptions,
) -> ApiResult<String> {
    super::ui::report(&comparison_report_data(base, news, options)?)
}

fn run_report_data(dir: &Path) -> ApiResult<Value> {
    let detail = detail_of(dir)?;
    let summary = detail.summary.as_ref();
    Ok(json!({
        "info": detail.info,
        "verdict": detail.verdict,
        "thresholds": detail.thresholds,
        "row_intervals": detail.intervals,
        "phases": detail.phases,
        "phase_details": phase_details(dir, summary.map_or(&[][..], |s| &s.rows)),
        "summary": detail.summary,
        // A chart's worth of points per phase, as the run page shows them.
        "intervals": read_intervals(dir, &IntervalQuery {
            max_points: Some(DEFAULT_MAX_POINTS),
            ..IntervalQuery::default()
        }),
        "index": super::index::read_index(dir),
        "listings": keystorm_results::read_listings(dir),
        "integrity": super::integrity::report_of(dir),
        "endpoints": keystorm_results::read_endpoint_events(dir),
        "timeline": keystorm_results::read_timeline(dir),
        "workload_text": detail.workload_text,
        "heatmaps": heatmaps(dir),
        "manifest": detail.manifest,
    }))
}

/// What the compare page draws, for every run (the base first, then the others in the
/// order given): the judged comparison, each run's page data, bucket index and
/// integrity reports, and each phase's latency distribution.
fn comparison_report_data(
    base: &Path,
    news: &[PathBuf],
    options: &CompareOptions,
) -> ApiResult<Value> {
    let judged = comparison::compare_dirs(base, news, options)
        .map_err(|e| ApiError::bad_request(format!("cannot read a run to compare: {e}")))?;
    let runs = std::iter::once(base)
        .chain(news.iter().map(PathBuf::as_path))
        .map(|dir| {
            let detail = detail_of(dir)?;
            let rows = detail.summary.as_ref().map_or(&[][..], |s| &s.rows);
            Ok(json!({
                "distributions": distributions(dir, rows),
                "index": super::index::read_index(dir),
                "integrity": super::integrity::report_of(dir),
                "detail": detail,
            }))
        })
        .collect::<ApiResult<Vec<Value>>>()?;
    Ok(json!({
        "kind": "comparison",
        "noise_floor": options.noise_floor,
        "comparison": judged,
        "runs": runs,
    }))
}

/// A phase row's key in a report: `section|round|phase|op`, the round empty outside
/// rounds.
fn row_key(r: &SummaryRow) -> String {
    format!(
        "{}|{}|{}|{}",
        r.section.as_str(),
        r.round.map(|n| n.to_string()).unwrap_or_default(),
        r.phase,
        r.op.as_str()
    )
}

/// Each phase × round × operation's latency distribution, from one pass over the
/// histogram log (merged histograms, exact).
fn distributions(dir: &Path, rows: &[SummaryRow]) -> BTreeMap<String, Distribution> {
    let tags = rows.iter().map(|r| r.log_tag()).collect();
    let merged = read_merged_tags(&dir.join(HLOG_FILE), &tags).unwrap_or_default();
    rows.iter()
        .filter_map(|r| {
            let h = merged.get(&r.log_tag()).filter(|h| !h.is_empty())?;
            Some((
                row_key(r),
                Distribution {
                    count: h.len(),
                    points: points(h),
                },
            ))
        })
        .collect()
}

/// What the run page's "one phase in detail" loads, for every phase × round × operation
/// of the summary: its latency distribution and its heatmap, so the offline report
/// shows what the page does. Each heatmap reads the log again (a report is made once,
/// and a run has tens of rows, not millions).
fn phase_details(dir: &Path, rows: &[SummaryRow]) -> Map<String, Value> {
    let path = dir.join(HLOG_FILE);
    let mut dists = distributions(dir, rows);
    let mut out = Map::new();
    for r in rows {
        let key = row_key(r);
        if out.contains_key(&key) {
            continue;
        }
        let filter = HeatmapFilter {
            section: Some(r.section.as_str().to_string()),
            round: Some(r.round.map_or_else(|| "-".to_string(), |n| n.to_string())),
            phase: Some(hlog_tag(&[&r.phase])),
        };
        let heatmap = read_heatmap(&path, r.op, &filter, REPORT_PHASE_HEATMAP_COLUMNS)
            .ok()
            .flatten();
        let distribution = dists.remove(&key);
        out.insert(
            key,
            json!({ "distribution": distribution, "heatmap": heatmap }),
        );
    }
    out
}

/// Each operation's latency heatmap over the whole run.
fn heatmaps(dir: &Path) -> Map<String, Value> {
    let path = dir.join(HLOG_FILE);
    keystorm_types::OpKind::ALL
        .into_iter()
        .filter_map(|op| {
            let heat = read_heatmap(&path, op, &HeatmapFilter::default(), REPORT_HEATMAP_COLUMNS)
                .ok()
                .flatten()?;
            Some((op.as_str().to_string(), serde_json::to_value(heat).ok()?))
        })
        .collect()
}
