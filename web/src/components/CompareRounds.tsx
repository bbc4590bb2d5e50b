// The compare page's charts across rounds: one panel per round phase with every run's
// rows overlaid (colour = operation, marker = run, dash = percentile), optionally
// normalised to the first run, with each run's bucket index shards and the rounds in
// which its bucket was resharded or its writes stalled.
import type { IndexReport, RunDetail } from "../api/types";
import { type RoundMarkSpec, mergeByX, overlayShards, roundMarkSpecs, roundMarks } from "../lib/bucket-index";
import { comparePanels, normaliseOverlay } from "../lib/compare";
import { LABEL_COLOUR, SHARD_COLOUR, dashOf, markerOf, opColour } from "../lib/palette";
import { METRICS, metricDash, wholePhaseRows } from "../lib/rounds";
import type { LegendGroup } from "./SeriesLegend";
import { MetricSelect, type RightAxis, RoundsChart } from "./charts";

/** Each run's shard line (grey, in the run's marker) and reshard / stall rounds, for
 * the overlaid rounds charts. */
function runsIndexOverlay(runs: Array<{ label: string; detail: RunDetail; index?: IndexReport }>): {
  data: Array<Record<string, number>>;
  right?: RightAxis;
  /** The marks of one round phase's panel: what happened while that phase ran. */
  marksOf: (phase: string) => RoundMarkSpec[];
} {
  const tagged = runs.map((r, i) => ({ ...r, tag: `#${i + 1}`, rows: r.detail.summary?.rows ?? [] }));
  const shards = overlayShards(tagged);
  const marksOf = (phase: string) =>
    tagged.flatMap((run, i) =>
      roundMarkSpecs(roundMarks(run.index, run.rows, run.detail.manifest.started_at, phase), { row: i, tag: run.tag, label: run.label }),
    );
  const series = shards.series.map((s) => ({
    key: s.key,
    name: s.name,
    colour: SHARD_COLOUR,
    dash: dashOf(s.run),
    marker: markerOf(s.run),
    width: 5,
    opacity: 0.35,
  }));
  return { data: shards.data, right: series.length ? { unit: "index shards", series } : undefined, marksOf };
}

/** A compare chart's legend: each operation once (its colour, the metric's dash), then
 * each run once (its marker). */
export function compareLegend(
  series: Array<{ name: string; run: number; phase: string; op: string }>,
  runs: Array<{ label: string }>,
  metricDash = "",
): LegendGroup[] {
  const ops = [...new Set(series.map((s) => s.op))];
  const byOp = ops.map((op) => ({
    key: `op ${op}`,
    name: op,
    colour: opColour(op),
    dash: metricDash,
    members: series.filter((s) => s.op === op).map((s) => s.name),
  }));
  const byRun = runs.map((r, i) => ({
    key: `run ${i}`,
    name: r.label,
    colour: LABEL_COLOUR,
    marker: markerOf(i),
    markerOnly: true,
    members: series.filter((s) => s.run === i).map((s) => s.name),
  }));
  return [...byOp, ...byRun];
}

/** How the rounds charts are drawn: which metric, normalised or not, latency on a log scale or not. */
export interface RoundsView {
  metric: string;
  setMetric: (metric: string) => void;
  normalised: boolean;
  setNormalised: (normalised: boolean) => void;
  latencyLog: boolean;
  setLatencyLog: (log: boolean) => void;
}

export function CompareRounds(props: {
  runs: Array<{ label: string; detail: RunDetail }>;
  indexById: Map<string, IndexReport | undefined>;
  view: RoundsView;
}) {
  const { runs, indexById } = props;
  const { metric, setMetric, normalised, setNormalised, latencyLog, setLatencyLog } = props.view;
  const m = METRICS[metric];
  const panels = comparePanels(
    runs.map((r) => ({ id: r.detail.info.run_id, label: r.label, rows: wholePhaseRows(r.detail) })),
    m.get,
  ).map((p) => ({ ...p, overlay: normalised ? normaliseOverlay(p.overlay) : p.overlay }));
  const index = runsIndexOverlay(runs.map((r) => ({ ...r, index: indexById.get(r.detail.info.run_id) })));
  const marks = new Map(panels.map((p) => [p.phase, index.marksOf(p.phase)]));
  // Runs without rounds have nothing to draw across them: no heading over nothing.
  if (!panels.length) return null;
  return (
    <>
      <div className="title-row">
        <h2>
          {m.label} across rounds{normalised ? ` (× ${runs[0].label})` : ""}
        </h2>
        <MetricSelect value={metric} onChange={setMetric} label="compare metric" />
        <label className="muted">
          <input
            type="checkbox"
            checked={normalised}
            onChange={(e) => setNormalised(e.target.checked)}
            data-testid="normalise"
          />{" "}
          normalise to {runs[0].label}
        </label>
        {m.unit === "ms" && !normalised && (
          <label className="muted">
            <input type="checkbox" checked={latencyLog} onChange={(e) => setLatencyLog(e.target.checked)} data-testid="compare-latency-log" /> log scale
          </label>
        )}
      </div>
      <p className="muted">
        One chart per round phase: colour is the operation, the marker is the run (see the table above)
        {m.percentile ? `, and the dash is ${m.percentile}'s on every chart` : ""}.
        {index.right && " The wide pale step lines are each run's bucket index shards at each round's end (right axis)."}
        {[...marks.values()].some((m) => m.length > 0) &&
          " Labels above a chart mark the rounds in which a run's bucket was resharded or its writes stalled while that chart's phase ran; hover for details."}
      </p>
      <div className="chart-grid" data-testid="compare-panels">
        {panels.map((p) => (
          <div key={p.phase} data-testid="compare-panel" data-phase={p.phase}>
            <h3>{p.phase}</h3>
            <RoundsChart
              data={mergeByX("round", p.overlay.data, index.data)}
              unit={normalised ? `× ${runs[0].label}` : m.unit}
              height={260}
              fullMarkLabels={10}
              right={index.right}
              marks={marks.get(p.phase)}
              log={!normalised && m.unit === "ms" && latencyLog}
              series={p.overlay.series.map((s) => ({
                key: s.name,
                colour: opColour(s.op),
                dash: metricDash(m),
                marker: markerOf(s.run),
              }))}
              legend={compareLegend(p.overlay.series, runs, metricDash(m))}
            />
          </div>
        ))}
      </div>
    </>
  );
}
