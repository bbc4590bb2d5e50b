// From summary rows to the charts of the run-detail page: one series per
// phase × operation across rounds (x = round number), and the rounds × phases table.
import type { RunDetail, SummaryRow } from "../api/types";
import { type MarkerShape, PERCENTILE_DASH, type Percentile, markerOf, opColour, opOrdinals } from "./palette";

export interface SeriesKey {
  phase: string;
  op: string;
}

export function seriesName(k: SeriesKey): string {
  return `${k.phase} · ${k.op}`;
}

/** A line's key, legend name, colour, dash and marker. */
export interface SeriesLook {
  key: string;
  name?: string;
  colour: string;
  dash: string;
  marker: MarkerShape;
}

/**
 * How each phase × operation series is drawn across rounds: the operation's colour (PUT
 * blue on every page), the percentile's dash (solid for throughput), and a marker shape
 * that tells two phases' PUT apart (circle for the first, square for the second...).
 */
export function roundSeriesLooks(keys: SeriesKey[], metric: RoundMetric = METRICS.ops_per_sec): { series: SeriesLook[]; latencySeries: SeriesLook[] } {
  const ordinals = opOrdinals(keys.map((k) => k.op));
  return {
    series: keys.map((k, i) => ({ key: seriesName(k), colour: opColour(k.op), dash: metricDash(metric), marker: markerOf(ordinals[i]) })),
    latencySeries: keys.flatMap((k, i) =>
      (["p50", "p99"] as const).map((p) => ({
        key: `${seriesName(k)} ${p}`,
        name: `${seriesName(k)} ${p}`,
        colour: opColour(k.op),
        dash: PERCENTILE_DASH[p],
        marker: markerOf(ordinals[i]),
      })),
    ),
  };
}

/** Phase × operation pairs of the round rows, in the order they first appear. */
export function roundSeriesKeys(rows: SummaryRow[]): SeriesKey[] {
  const seen = new Set<string>();
  const out: SeriesKey[] = [];
  for (const r of rows) {
    if (r.section !== "round") continue;
    const name = seriesName({ phase: r.phase, op: r.op });
    if (!seen.has(name)) {
      seen.add(name);
      out.push({ phase: r.phase, op: r.op });
    }
  }
  return out;
}

export type Metric = (r: SummaryRow) => number;

/** A metric of a round row; a latency percentile's lines take that percentile's dash. */
export interface RoundMetric {
  label: string;
  unit: string;
  get: Metric;
  percentile?: Percentile;
}

export const METRICS: Record<string, RoundMetric> = {
  ops_per_sec: { label: "Throughput", unit: "ops/s", get: (r) => r.ops_per_sec },
  mib_per_sec: { label: "Bandwidth", unit: "MiB/s", get: (r) => r.mib_per_sec },
  p50_ms: { label: "p50 latency", unit: "ms", get: (r) => r.latency_us.p50 / 1000, percentile: "p50" },
  p99_ms: { label: "p99 latency", unit: "ms", get: (r) => r.latency_us.p99 / 1000, percentile: "p99" },
  p999_ms: { label: "p99.9 latency", unit: "ms", get: (r) => r.latency_us.p999 / 1000, percentile: "p99.9" },
};

/** The dash of a metric's lines: its percentile's, solid for throughput and bandwidth. */
export function metricDash(m: RoundMetric): string {
  return m.percentile ? PERCENTILE_DASH[m.percentile] : "";
}

/** Rows of a chart with x = round: `{round, "<phase> · <op>": value, ...}`. */
export function roundsTable(rows: SummaryRow[], metric: Metric): Array<Record<string, number>> {
  const byRound = new Map<number, Record<string, number>>();
  for (const r of rows) {
    if (r.section !== "round" || r.round == null) continue;
    const row = byRound.get(r.round) ?? { round: r.round };
    row[seriesName({ phase: r.phase, op: r.op })] = metric(r);
    byRound.set(r.round, row);
  }
  return [...byRound.values()].sort((a, b) => a.round - b.round);
}

export function roundCount(rows: SummaryRow[]): number {
  return rows.reduce((m, r) => (r.section === "round" && r.round != null ? Math.max(m, r.round) : m), 0);
}

/**
 * What part of its phase a row covers: `interrupted` (stopped before its end: what was
 * measured until then), `resumed` (only what a resumed run measured) — `taken over` when
 * the resumed part ran on another agent from the lost one's folder —, both, or "" for a
 * whole phase; then how many writes the resume did again.
 */
export function partLabel(r: { interrupted?: boolean; resumed?: boolean; taken_over?: boolean; redone?: number }): string {
  const resumed = r.taken_over ? "taken over" : r.resumed ? "resumed" : "";
  const label = [resumed, r.interrupted ? "interrupted" : ""].filter(Boolean).join(" + ");
  const redone = r.redone ? `${r.redone.toLocaleString("en-US")} redone` : "";
  return [label, redone].filter(Boolean).join(", ");
}

/** Where a row sits in the run: `before`, `round N` or `after`. */
export function placeLabel(r: { section: string; round?: number | null }): string {
  return r.section === "round" ? `round ${r.round}` : r.section;
}

/** Objects in the keyspace at each phase's start, in run order (one per phase). */
export function objectsAtPhaseStart(rows: SummaryRow[]): Array<{ place: string; phase: string; objects: number }> {
  const out: Array<{ place: string; phase: string; objects: number }> = [];
  const seen = new Set<string>();
  for (const r of rows) {
    const key = `${r.section}/${r.round ?? ""}/${r.phase}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ place: placeLabel(r), phase: r.phase, objects: r.objects_at_start });
  }
  return out;
}

/**
 * A run's rows with each phase whole: a phase stopped and resumed is one row, its parts
 * added up by the server (latency from their merged histograms). Older servers send
 * no whole phases: their part rows, then.
 */
export function wholePhaseRows(detail: Pick<RunDetail, "phases" | "summary">): SummaryRow[] {
  return detail.phases?.length ? detail.phases : (detail.summary?.rows ?? []);
}
