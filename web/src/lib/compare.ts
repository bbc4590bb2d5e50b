// Runs side by side, aligned by where they are in the workload (section, round, phase,
// operation), never by wall clock; and the % change of each run against the first.
import type { SummaryRow } from "../api/types";
import { fmtPercent } from "./format";
import { mostlyLag } from "./schedule";

export function alignKey(r: { section: string; round?: number | null; phase: string; op: string }): string {
  return `${r.section}|${r.round ?? ""}|${r.phase}|${r.op}`;
}

/** Totals of one phase × operation over all its rounds (or its single occurrence). */
export interface Aggregate {
  phase: string;
  op: string;
  section: string;
  ops: number;
  duration_s: number;
  bytes: number;
  errors: number;
  ops_per_sec: number;
  mib_per_sec: number;
  /** The worst (highest) per-round value: percentiles cannot be averaged. */
  worst_p50_us: number;
  worst_p99_us: number;
  worst_p999_us: number;
  /** The slowest single operation: where writes blocked by a reshard show. */
  max_us: number;
  /** The worst-round percentiles that were mostly how late an open loop's requests
   * left: the client's lateness, not the store's latency. */
  mostlyLag: Partial<Record<LagMetric, boolean>>;
}

/** The percentiles an open loop's lateness can make up. */
export type LagMetric = "worst_p50_us" | "worst_p99_us" | "worst_p999_us";
const LAG_METRICS: Array<[LagMetric, "p50" | "p99" | "p999"]> = [
  ["worst_p50_us", "p50"],
  ["worst_p99_us", "p99"],
  ["worst_p999_us", "p999"],
];

/**
 * Which rows a comparison covers: every phase with its rounds summed (`"all"`), or the
 * rows of one round only, whose values are then that round's exact figures.
 */
export type DeltaScope = "all" | number;

/** The key of a phase × operation in `aggregate`'s map (its rounds together). */
export function aggregateKey(r: { section: string; phase: string; op: string }): string {
  return `${r.section === "round" ? "round" : r.section}|${r.phase}|${r.op}`;
}

export function aggregate(rows: SummaryRow[], scope: DeltaScope = "all"): Map<string, Aggregate> {
  const out = new Map<string, Aggregate>();
  for (const r of rows) {
    if (scope !== "all" && (r.section !== "round" || r.round !== scope)) continue;
    const key = aggregateKey(r);
    const a = out.get(key) ?? {
      phase: r.phase,
      op: r.op,
      section: r.section,
      ops: 0,
      duration_s: 0,
      bytes: 0,
      errors: 0,
      ops_per_sec: 0,
      mib_per_sec: 0,
      worst_p50_us: 0,
      worst_p99_us: 0,
      worst_p999_us: 0,
      max_us: 0,
      mostlyLag: {},
    };
    a.ops += r.ops;
    // The worst round's percentile is this row's when it is the highest so far.
    for (const [key, q] of LAG_METRICS) if (r.latency_us[q] > a[key]) a.mostlyLag[key] = mostlyLag(r, q);
    a.duration_s += r.duration_s;
    a.bytes += r.bytes;
    a.errors += r.errors;
    a.worst_p50_us = Math.max(a.worst_p50_us, r.latency_us.p50);
    a.worst_p99_us = Math.max(a.worst_p99_us, r.latency_us.p99);
    a.worst_p999_us = Math.max(a.worst_p999_us, r.latency_us.p999);
    a.max_us = Math.max(a.max_us, r.latency_us.max);
    out.set(key, a);
  }
  for (const a of out.values()) {
    a.ops_per_sec = a.duration_s > 0 ? a.ops / a.duration_s : 0;
    a.mib_per_sec = a.duration_s > 0 ? a.bytes / 1048576 / a.duration_s : 0;
  }
  return out;
}

/**
 * What a delta cell says instead of a change when the percentile compared was mostly
 * the client's lateness (an open loop that could not send on time) on either side:
 * that change is not the store's. Null when neither side was.
 */
export function lagNote(base: Aggregate, other: Aggregate, key: keyof Aggregate): string | null {
  const b = base.mostlyLag[key as LagMetric] ?? false;
  const o = other.mostlyLag[key as LagMetric] ?? false;
  if (!b && !o) return null;
  if (b && o) return "mostly the client's lag in both runs";
  return o ? "mostly the client's lag" : "the baseline's was mostly the client's lag";
}

/** % change from `base` to `value`; null when there is no baseline to compare with. */
export function deltaPercent(base: number, value: number): number | null {
  if (!Number.isFinite(base) || !Number.isFinite(value)) return null;
  if (base === 0) return value === 0 ? 0 : null;
  return ((value - base) / base) * 100;
}

export type Direction = "higher" | "lower";

export interface DeltaMetric {
  key: keyof Aggregate;
  label: string;
  better: Direction;
  unit: string;
  /** How the value of several rounds is formed (shown in the all-rounds scope). */
  overRounds: string;
}

export const DELTA_METRICS: DeltaMetric[] = [
  { key: "ops_per_sec", label: "ops/s", better: "higher", unit: "ops/s", overRounds: "total ops / total time" },
  { key: "mib_per_sec", label: "MiB/s", better: "higher", unit: "MiB/s", overRounds: "total bytes / total time" },
  { key: "worst_p50_us", label: "p50", better: "lower", unit: "µs", overRounds: "worst round" },
  { key: "worst_p99_us", label: "p99", better: "lower", unit: "µs", overRounds: "worst round" },
  { key: "worst_p999_us", label: "p99.9", better: "lower", unit: "µs", overRounds: "worst round" },
  { key: "max_us", label: "max", better: "lower", unit: "µs", overRounds: "slowest operation" },
  { key: "errors", label: "errors", better: "lower", unit: "", overRounds: "sum" },
];

/**
 * A metric's name in the delta table, saying how rounds were combined when they were
 * (a phase outside the rounds ran once: its values are exact).
 */
export function metricLabel(m: DeltaMetric, scope: DeltaScope, section = "round"): string {
  if (section !== "round") return m.label;
  return scope === "all" ? `${m.label} (${m.overRounds})` : `${m.label} (round ${scope})`;
}

/**
 * `better`, `worse` or `same` from a baseline to a value. Unlike a % change this is
 * defined for a zero baseline too: errors going from 0 to 5 are worse.
 */
export function verdictOf(base: number, value: number, better: Direction, tolerance = 1): "better" | "worse" | "same" {
  if (!Number.isFinite(base) || !Number.isFinite(value) || base === value) return "same";
  if (base === 0) return value > 0 === (better === "higher") ? "better" : "worse";
  return verdict(deltaPercent(base, value), better, tolerance);
}

/** The change as shown in the delta table: a signed %, or "from 0" without a baseline. */
export function fmtChange(base: number, value: number): string {
  const d = deltaPercent(base, value);
  if (d != null) return fmtPercent(d);
  return Number.isFinite(base) && base === 0 ? "from 0" : "–";
}

/** Round numbers that occur in any of the runs' summaries, ascending. */
export function roundsOf(rowsPerRun: SummaryRow[][]): number[] {
  const rounds = new Set<number>();
  for (const rows of rowsPerRun) for (const r of rows) if (r.section === "round" && r.round != null) rounds.add(r.round);
  return [...rounds].sort((a, b) => a - b);
}

/** `better`, `worse` or `same` for a change, given which direction is good. */
export function verdict(delta: number | null, better: Direction, tolerance = 1): "better" | "worse" | "same" {
  if (delta == null || Math.abs(delta) < tolerance) return "same";
  const up = delta > 0;
  return up === (better === "higher") ? "better" : "worse";
}

/** Rounds chart rows for several runs: `{round, "<run> · <phase> · <op>": value}`. */
export function overlayRounds(
  runs: Array<{ id: string; label: string; rows: SummaryRow[] }>,
  metric: (r: SummaryRow) => number,
): { data: Array<Record<string, number>>; series: Array<{ name: string; run: number; phase: string; op: string }> } {
  const byRound = new Map<number, Record<string, number>>();
  const series: Array<{ name: string; run: number; phase: string; op: string }> = [];
  const seen = new Set<string>();
  runs.forEach((run, i) => {
    for (const r of run.rows) {
      if (r.section !== "round" || r.round == null) continue;
      const name = `${run.label} · ${r.phase} · ${r.op}`;
      if (!seen.has(name)) {
        seen.add(name);
        series.push({ name, run: i, phase: r.phase, op: r.op });
      }
      const row = byRound.get(r.round) ?? { round: r.round };
      row[name] = metric(r);
      byRound.set(r.round, row);
    }
  });
  return { data: [...byRound.values()].sort((a, b) => a.round - b.round), series };
}

/** One panel of the compare page's rounds charts: one round phase, every run's lines. */
export interface ComparePanel {
  phase: string;
  overlay: ReturnType<typeof overlayRounds>;
}

/**
 * The runs' rounds, one panel per round phase (in the order the phases first appear).
 * Within a panel each operation occurs once per run, so a line is told by its
 * operation's colour and its run's marker, and the dash stays the percentile's.
 */
export function comparePanels(
  runs: Array<{ id: string; label: string; rows: SummaryRow[] }>,
  metric: (r: SummaryRow) => number,
): ComparePanel[] {
  const phases: string[] = [];
  for (const run of runs) for (const r of run.rows) if (r.section === "round" && !phases.includes(r.phase)) phases.push(r.phase);
  return phases.map((phase) => ({
    phase,
    overlay: overlayRounds(
      runs.map((run) => ({ ...run, rows: run.rows.filter((r) => r.phase === phase) })),
      metric,
    ),
  }));
}

/**
 * The overlay with every run's values divided by the first run's (same phase,
 * operation and round): 1 is "as run A", 1.25 is a quarter more. A value whose
 * baseline is missing or zero is left out rather than drawn as infinity.
 */
export function normaliseOverlay(overlay: ReturnType<typeof overlayRounds>): ReturnType<typeof overlayRounds> {
  const baseOf = new Map(overlay.series.filter((s) => s.run === 0).map((s) => [`${s.phase} · ${s.op}`, s.name]));
  const data = overlay.data.map((row) => {
    const out: Record<string, number> = { round: row.round };
    for (const s of overlay.series) {
      const base = row[baseOf.get(`${s.phase} · ${s.op}`) ?? ""];
      const value = row[s.name];
      if (value != null && base != null && base !== 0) out[s.name] = value / base;
    }
    return out;
  });
  return { data, series: overlay.series };
}
