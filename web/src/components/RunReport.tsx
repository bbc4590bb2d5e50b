// A run's results as one component tree, rendered from one data object by the run page
// (from the API) and by the offline report (from the data inlined in its file), so the
// two cannot drift apart. The page adds what only it has (labels, exports, deletion).
import type { ReactNode } from "react";
import type { Distribution, EndpointsReport, Heatmap, IndexReport, IntegrityReport, IntervalRecord, ListingsReport, RunDetail, Timeline } from "../api/types";
import { pausesOf } from "../lib/pauses";
import { ThresholdsSection } from "./ThresholdsSection";
import { SweepsSection } from "./SweepsSection";
import { TimelineSection } from "./TimelineSection";
import { BucketIndexSection } from "./BucketIndexSection";
import { EndpointsSection } from "./EndpointsSection";
import { HeatmapSection } from "./HeatmapSection";
import { IntegritySection } from "./IntegritySection";
import { IntervalsSection } from "./IntervalsSection";
import { KeysSection } from "./KeysSection";
import { ListingsSection } from "./ListingsSection";
import { ObjectsTable, type PhaseChoice, PhaseExplorer, RoundsCharts, RoundsPhasesTable, RunHeader, WorkloadBlock } from "./RunDetailView";
import { wholePhaseRows } from "../lib/rounds";
import { ScansAndTransfers } from "./ScansAndTransfers";
import { ShardsSection } from "./ShardsSection";
import { Empty } from "./states";

/** What a run's results are drawn from. */
export interface RunReportData {
  detail: RunDetail;
  /** Reshards, write stalls and polling cost, when the bucket index was tracked. */
  index?: IndexReport | null;
  /** Complete listings, metadata scans, transfers, and the keys phases read from a
   * listing or a key file. */
  listings?: ListingsReport | null;
  /** What verified reads found: corrupt and missing objects. */
  integrity?: IntegrityReport | null;
  /** When the endpoints of a run that drives several went down and came back. */
  endpoints?: EndpointsReport | null;
  /** Pauses, endpoints lost and back, reshards and stalls, in time order. */
  timeline?: Timeline | null;
}

/** The operations the run did, in the order of its totals. */
function opsOf(detail: RunDetail): string[] {
  const ops = (detail.summary?.totals ?? []).map((t) => t.op as string);
  return ops.length ? ops : [...new Set((detail.summary?.rows ?? []).map((r) => r.op as string))];
}

export function RunReport(props: {
  data: RunReportData;
  loadIntervals: (c: PhaseChoice) => Promise<IntervalRecord[]>;
  loadDistribution?: (c: PhaseChoice) => Promise<Distribution>;
  /** One operation's latency heatmap over the whole run. */
  loadHeatmap?: (op: string) => Promise<Heatmap>;
  /** One phase's latency heatmap. */
  loadPhaseHeatmap?: (c: PhaseChoice) => Promise<Heatmap>;
  /** Beside the run's id (the page's "Watch live"). */
  headerExtra?: ReactNode;
  /** Under the header (the page's labels, notes, exports). */
  children?: ReactNode;
  /** Said when no phase has finished. */
  empty: ReactNode;
}) {
  const { detail, index, listings, integrity, endpoints, timeline } = props.data;
  const rows = detail.summary?.rows ?? [];
  const pauses = pausesOf(timeline);
  return (
    <>
      <RunHeader detail={detail} extra={props.headerExtra} />
      {props.children}
      {rows.length === 0 ? (
        props.empty
      ) : (
        <>
          <h2>Across rounds</h2>
          {/* A round stopped and resumed is one point: its parts' rows added up. */}
          <RoundsCharts rows={wholePhaseRows(detail)} index={index} runStartedAt={detail.manifest.started_at} />
          <h2>Rounds × phases</h2>
          <RoundsPhasesTable rows={rows} />
          <IntervalsSection rows={detail.intervals} />
          <EndpointsSection rows={rows} phases={wholePhaseRows(detail)} endpoints={detail.manifest.endpoints} report={endpoints} />
          <IntegritySection report={integrity} />
          <ThresholdsSection checks={detail.thresholds} />
          <SweepsSection rows={rows} searches={detail.summary?.searches ?? []} />
          <TimelineSection timeline={timeline} />
          <PhaseExplorer
            pauses={pauses}
            rows={rows}
            index={index}
            endpointEvents={endpoints?.events}
            loadIntervals={props.loadIntervals}
            loadDistribution={props.loadDistribution}
            loadHeatmap={props.loadPhaseHeatmap}
          />
          {props.loadHeatmap && (
            // The run's whole length, whichever operation is shown: a second keeps its x.
            <HeatmapSection ops={opsOf(detail)} load={props.loadHeatmap} index={index} pauses={pauses} span={[0, detail.info.duration_s]} />
          )}
          <h2>Objects in the bucket</h2>
          <ObjectsTable rows={rows} />
          <BucketIndexSection report={index} rows={rows} />
          <KeysSection report={listings} />
          <ListingsSection report={listings} />
          <ScansAndTransfers report={listings} />
          <ShardsSection parts={detail.manifest.merged_from} />
        </>
      )}
      {detail.workload_text ? (
        <>
          <h2>Workload</h2>
          <WorkloadBlock detail={detail} />
        </>
      ) : (
        <Empty title="The workload this run ran is not in its results." />
      )}
    </>
  );
}
