// Entry of the offline report: one HTML file with its data inlined by the server; no
// network at all. A run's report (`/api/runs/{id}/export/report.html`, `keystorm report
// RUN`) is drawn by the component tree the run page uses; a comparison's (`keystorm
// report BASE NEW…`) by the compare page's.
import { StrictMode, useCallback } from "react";
import { createRoot } from "react-dom/client";
import type { Distribution, EndpointsReport, Heatmap, IndexReport, IntegrityReport, IntervalRecord, ListingsReport, RunDetail, Timeline } from "../api/types";
import type { PhaseChoice } from "../components/RunDetailView";
import { RunReport } from "../components/RunReport";
import { Empty } from "../components/states";
import { CompareReport, type ComparisonReportData, isComparison } from "./CompareReport";
import "../styles.css";

interface ReportData {
  info: RunDetail["info"];
  /** The run's verdict (absent from older reports: their list verdict stands in). */
  verdict?: RunDetail["verdict"];
  manifest: RunDetail["manifest"];
  summary: RunDetail["summary"];
  intervals: IntervalRecord[];
  /** Reshards, write stalls and polling cost (absent from reports of older servers). */
  index?: IndexReport;
  /** Complete listings, metadata scans, transfers and the keys phases read from a
   * listing or a key file (absent from older reports). */
  listings?: ListingsReport;
  /** What verified reads found (absent from older reports). */
  integrity?: IntegrityReport;
  /** When the endpoints of a run that drives several went down and came back (absent
   * from older reports). */
  endpoints?: EndpointsReport;
  /** Pauses, endpoints lost and back, reshards and stalls in time order (absent from
   * older reports). */
  timeline?: Timeline;
  workload_text?: string;
  /** Each operation's latency heatmap over the whole run (absent from older reports). */
  heatmaps?: Record<string, Heatmap>;
  /** Each phase × round × operation's latency distribution and heatmap, keyed
   * `section|round|phase|op` (absent from older reports). */
  phase_details?: Record<string, { distribution: Distribution | null; heatmap: Heatmap | null }>;
  /** Whole phases over their parts (absent from older reports). */
  phases?: RunDetail["phases"];
  /** The workload's thresholds judged per phase (absent from older reports). */
  thresholds?: RunDetail["thresholds"];
  /** Each phase row's figures with their 95 % intervals (absent from older reports). */
  row_intervals?: RunDetail["intervals"];
}

/** The key of a phase choice in the report's `phases`. */
function phaseKey(c: PhaseChoice): string {
  return `${c.section}|${c.round ?? ""}|${c.phase}|${c.op}`;
}

function readData(): ReportData | ComparisonReportData | null {
  const text = document.getElementById("report-data")?.textContent ?? "";
  try {
    return JSON.parse(text) as ReportData | ComparisonReportData;
  } catch {
    return null;
  }
}

function Report({ data }: { data: ReportData }) {
  const detail: RunDetail = {
    info: data.info,
    verdict: data.verdict ?? data.info.verdict,
    manifest: data.manifest,
    summary: data.summary,
    workload_text: data.workload_text ?? "",
    phases: data.phases ?? data.summary?.rows ?? [],
    thresholds: data.thresholds ?? [],
    intervals: data.row_intervals ?? [],
  };
  const loadIntervals = useCallback(
    (c: PhaseChoice) =>
      Promise.resolve(data.intervals.filter((r) => r.section === c.section && (r.round ?? null) === c.round && r.phase === c.phase)),
    [data],
  );
  const loadHeatmap = useCallback(
    (op: string) => {
      const h = data.heatmaps?.[op];
      return h ? Promise.resolve(h) : Promise.reject(new Error(`this report holds no heatmap of ${op}`));
    },
    [data],
  );
  const loadDistribution = useCallback(
    (c: PhaseChoice) => {
      const d = data.phase_details?.[phaseKey(c)]?.distribution;
      return d ? Promise.resolve(d) : Promise.reject(new Error(`this report holds no distribution of ${c.phase} ${c.op}`));
    },
    [data],
  );
  const loadPhaseHeatmap = useCallback(
    (c: PhaseChoice) => {
      const h = data.phase_details?.[phaseKey(c)]?.heatmap;
      return h ? Promise.resolve(h) : Promise.reject(new Error(`this report holds no heatmap of ${c.phase} ${c.op}`));
    },
    [data],
  );
  return (
    <>
      <RunReport
        data={{ detail, index: data.index, listings: data.listings, integrity: data.integrity, endpoints: data.endpoints, timeline: data.timeline }}
        loadIntervals={loadIntervals}
        loadDistribution={data.phase_details ? loadDistribution : undefined}
        loadPhaseHeatmap={data.phase_details ? loadPhaseHeatmap : undefined}
        loadHeatmap={data.heatmaps ? loadHeatmap : undefined}
        empty={<Empty title="This run recorded no finished phase." />}
      />
    </>
  );
}

const data = readData();
createRoot(document.getElementById("root")!).render(
  <StrictMode>
    {data ? (
      <main>
        <p className="muted">keystorm report, generated {new Date().toISOString().slice(0, 10)}</p>
        {isComparison(data) ? <CompareReport data={data} /> : <Report data={data} />}
      </main>
    ) : (
      <Empty title="This report holds no data." />
    )}
  </StrictMode>,
);
