// The API's types, all generated from docs/openapi.json (`npm run gen:api`); this file
// only gives them short names so the rest of the UI never spells out the schema path.
import type { components } from "./schema.gen";

type S = components["schemas"];
export type Status = S["Status"];
export type ErrorBody = S["ErrorBody"];
export type WorkloadInfo = S["WorkloadInfo"];
export type WorkloadText = S["WorkloadText"];
export type ValidateResponse = S["ValidateResponse"];
export type Problem = S["Problem"];
export type RunInfo = S["RunInfo"];
export type RunDetail = S["RunDetail"];
export type RunStatus = S["RunStatus"];
export type RunVerdict = S["RunVerdict"];
export type Timeline = S["Timeline"];
export type Manifest = S["Manifest"];
export type Summary = S["Summary"];
export type SummaryRow = S["SummaryRow"];
export type TotalRow = S["TotalRow"];
export type OpSummary = S["OpSummary"];
export type Percentiles = S["Percentiles"];
export type IntervalRecord = S["IntervalRecord"];
export type PhaseRef = S["PhaseRef"];
export type PhaseProgress = S["PhaseProgress"];
export type Distribution = S["Distribution"];
export type DistributionPoint = S["DistributionPoint"];
export type Heatmap = S["Heatmap"];
export type RunEvent = S["RunEvent"];
export type OpKind = S["OpKind"];
export type Section = S["Section"];
export type BucketIndex = S["BucketIndex"];
export type IndexReport = S["IndexReport"];
export type ReshardRecord = S["ReshardRecord"];
export type StallRecord = S["StallRecord"];
export type ReshardEvent = S["ReshardEvent"];
export type StallEvent = S["StallEvent"];
export type EventPosition = S["EventPosition"];
export type IndexPollingEvent = S["IndexPollingEvent"];
export type CleanupEvent = S["CleanupEvent"];
export type ListingsReport = S["ListingsReport"];
export type IntegrityReport = S["IntegrityReport"];
export type AuditEvent = S["AuditEvent"];
export type AuditCounts = S["AuditCounts"];
export type ListingRecord = S["ListingRecord"];
export type MetadataScanRecord = S["MetadataScanRecord"];
export type TransferRecord = S["TransferRecord"];
export type ScalingLine = S["ScalingLine"];
export type LinearFit = S["LinearFit"];
export type ListOutcome = S["ListOutcome"];
export type KeysEvent = S["KeysEvent"];
export type EndpointRow = S["EndpointRow"];
export type EndpointOps = S["EndpointOps"];
export type EndpointEvent = S["EndpointEvent"];
export type EndpointsReport = S["EndpointsReport"];

/** Every kind of run event the API sends (a `RunEvent`'s `event`). */
export type EventKind = RunEvent["event"];
/** The `data` of one live event, by event name. */
export type EventData<N extends EventKind> = Extract<RunEvent, { event: N }>["data"];
export type AgentsView = S["AgentsView"];
export type AgentView = S["AgentView"];
export type FleetRunView = S["FleetRunView"];
export type ShardView = S["ShardView"];
export type MergedPart = S["MergedPart"];
export type Estimate = S["Estimate"];
export type RowIntervals = S["RowIntervals"];
