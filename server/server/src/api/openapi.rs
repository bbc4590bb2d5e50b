//! The OpenAPI document of the API, served at `/api/openapi.json` and checked in as
//! `docs/openapi.json`, from which the web UI's TypeScript types are generated.

use axum::Json;
use utoipa::OpenApi;

use keystorm_results::WindowState;
use keystorm_results::metrics::{OpSummary, Percentiles};
use keystorm_results::scaling::{LinearFit, ScalingPoint};
use keystorm_results::space_report::{SpaceReport, Tally};
use keystorm_results::{
    BucketIndex, EventPosition, IndexPollingEvent, IntegrityEvent, IntegrityReport, IntervalRecord,
    ListingRecord, ListingsReport, Manifest, MetadataScanRecord, PhaseRef, ReshardEvent, RunStatus,
    ScalingLine, Section, StallEvent, Summary, SummaryRow, TotalRow, TransferRecord,
};
use keystorm_results::{Finding, FindingKind, Overall, RunVerdict};
use keystorm_results::{ListMode, ListOutcome};
use keystorm_results::{PauseEvent, PauseReason, Timeline, TimelineEntry, TimelineKind};
use keystorm_results::{PhaseProgress, RunEvent};
use keystorm_types::OpKind;

use super::distribution::{Distribution, DistributionPoint};
use super::error::ErrorBody;
use super::heatmap::{Heatmap, HeatmapPhase};
use super::openapi_errors::SharedErrors;
use super::openapi_security::TokenSecurity;
use super::run_files::{Headline, RunInfo};
use super::runs::{EditRunRequest, RunDetail, RunStarted, StartRunRequest};
use super::workloads::{
    Outline, OutlinePhase, Problem, SaveRequest, ValidateRequest, ValidateResponse, WorkloadInfo,
    WorkloadText,
};

#[derive(OpenApi)]
#[openapi(
    modifiers(&SharedErrors, &TokenSecurity),
    info(
        title = "keystorm",
        description = "Start S3 benchmark runs, watch them live, read and compare their results. See docs/api.md."
    ),
    paths(
        super::status::status,
        super::workloads::list,
        super::workloads::read,
        super::workloads::validate,
        super::workloads::save,
        super::runs::list,
        super::runs::read,
        super::runs::start,
        super::runs::stop,
        super::runs::edit,
        super::runs::delete,
        super::runs::intervals,
        super::compare::compare,
        super::index::index,
        super::listings::listings,
        super::integrity::integrity,
        super::timeline::timeline,
        super::endpoints::endpoints,
        super::distribution::distribution,
        super::heatmap::heatmap_of_run,
        super::events::stream,
        super::exports::export,
        super::agents::list,
        super::agents::register,
        super::agents::heartbeat,
        super::agents::barrier,
        super::agents::search_step,
        super::agents::part_file,
        super::agents::part_listing,
        super::agents::part_file_read,
        super::agents::done,
        super::agents::leave,
    ),
    components(schemas(
        super::status::Status,
        super::security::Access,
        ErrorBody,
        WorkloadInfo,
        WorkloadText,
        ValidateRequest,
        ValidateResponse,
        Problem,
        Outline,
        OutlinePhase,
        SaveRequest,
        RunInfo,
        Headline,
        RunDetail,
        keystorm_results::comparison::Comparison,
        keystorm_results::comparison::RunChanges,
        keystorm_results::comparison::Change,
        keystorm_results::comparison::RunLabel,
        keystorm_results::comparison::VerdictCounts,
        keystorm_results::comparison::Verdict,
        keystorm_results::comparison::Better,
        keystorm_results::comparison::IndexStory,
        keystorm_results::uncertainty::Estimate,
        keystorm_results::uncertainty::RowIntervals,
        StartRunRequest,
        crate::fleet::AgentsView,
        crate::fleet::AgentView,
        crate::fleet::FleetRunView,
        crate::fleet::ShardView,
        keystorm_link::protocol::RegisterRequest,
        keystorm_link::protocol::Registered,
        keystorm_link::protocol::Heartbeat,
        keystorm_link::protocol::ShardReport,
        keystorm_link::protocol::HeartbeatReply,
        keystorm_link::protocol::Order,
        keystorm_link::protocol::Assignment,
        keystorm_link::protocol::BarrierRequest,
        keystorm_link::protocol::SearchStepRequest,
        keystorm_link::protocol::SentStep,
        keystorm_link::protocol::SearchStepReply,
        keystorm_link::protocol::SearchStepOrder,
        keystorm_link::protocol::BarrierReply,
        keystorm_link::protocol::ShardDone,
        keystorm_link::protocol::PartListing,
        keystorm_link::protocol::PartFileLength,
        RunStarted,
        EditRunRequest,
        Distribution,
        DistributionPoint,
        Heatmap,
        HeatmapPhase,
        Manifest,
        RunStatus,
        RunVerdict,
        Overall,
        Finding,
        FindingKind,
        Summary,
        SummaryRow,
        TotalRow,
        Section,
        OpKind,
        OpSummary,
        Percentiles,
        IntervalRecord,
        WindowState,
        PhaseRef,
        PhaseProgress,
        RunEvent,
        BucketIndex,
        EventPosition,
        ReshardEvent,
        StallEvent,
        IndexPollingEvent,
        super::index::IndexReport,
        super::index::ReshardRecord,
        super::index::StallRecord,
        ListingsReport,
        IntegrityReport,
        Timeline,
        TimelineEntry,
        TimelineKind,
        PauseEvent,
        PauseReason,
        IntegrityEvent,
        ListingRecord,
        MetadataScanRecord,
        TransferRecord,
        ScalingLine,
        ScalingPoint,
        LinearFit,
        ListOutcome,
        ListMode,
        SpaceReport,
        Tally,
    ))
)]
struct ApiDoc;

/// The document as pretty JSON (what `docs/openapi.json` holds).
pub fn openapi_json() -> String {
    ApiDoc::openapi()
        .to_pretty_json()
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

pub async fn serve() -> Json<serde_json::Value> {
    Json(serde_json::to_value(ApiDoc::openapi()).unwrap_or_default())
}
