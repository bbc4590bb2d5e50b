// Rate sweeps and searches as curves: each step's latency against the rate it achieved,
// one curve per sweep (or search) and operation, its steps in the order of the rate
// asked; where it stopped keeping up (a sweep's knee) or the rate a search found, and
// the latency bound of the search's SLO for the curve's operation, to draw as a line.
import type { SummaryRow, Summary } from "../api/types";
import { openLoopBehind } from "./format";

export type SearchResult = NonNullable<Summary["searches"]>[number];

export interface SweepPoint {
  phase: string;
  asked: number;
  /** Requests the step sent per second (every operation of the step). */
  sent: number;
  /** This operation's answers per second over the step's measured time. */
  achieved: number;
  p50: number;
  p99: number;
  p999: number;
  keptUp: boolean;
  /** A search's step a shard restarted in (its search's `voided`): run again, not judged,
   * its rows only part of the shards' work. Listed with the steps, never a point of the curve. */
  voided: boolean;
}

export interface SweepCurve {
  sweep: string;
  section: string;
  round: number | null;
  op: string;
  points: SweepPoint[];
  /** The search this curve's steps belong to, if they are a search's. */
  search?: SearchResult;
}

/** The curves of every sweep and search among `rows`; a step stopped before its end is left out. */
export function sweepCurves(rows: SummaryRow[], searches: SearchResult[] = []): SweepCurve[] {
  const curves: SweepCurve[] = [];
  for (const r of rows) {
    if (!r.sweep || !r.open_loop || r.interrupted) continue;
    const round = r.round ?? null;
    let curve = curves.find((c) => c.sweep === r.sweep && c.section === r.section && c.round === round && c.op === r.op);
    if (!curve) {
      const search = searches.find((s) => s.phase === r.sweep && s.section === r.section && (s.round ?? null) === round);
      curve = { sweep: r.sweep, section: r.section, round, op: r.op, points: [], search };
      curves.push(curve);
    }
    if (curve.points.some((p) => p.phase === r.phase)) continue;
    const voided = curve.search?.voided?.includes(r.phase) ?? false;
    curve.points.push({
      phase: r.phase,
      asked: r.open_loop.asked_per_sec,
      sent: r.open_loop.sent_per_sec,
      achieved: r.duration_s > 0 ? (r.ops + r.errors) / r.duration_s : 0,
      p50: r.latency_us.p50,
      p99: r.latency_us.p99,
      p999: r.latency_us.p999,
      keptUp: !openLoopBehind(r.open_loop),
      voided,
    });
  }
  for (const c of curves) c.points.sort((a, b) => a.asked - b.asked || a.phase.localeCompare(b.phase));
  return curves;
}

/** The steps drawn on the curve: all but the voided. */
export function curvePoints(curve: SweepCurve): SweepPoint[] {
  return curve.points.filter((p) => !p.voided);
}

/** A sweep's knee: the last step that kept up before the first that did not. */
export function knee(curve: SweepCurve): SweepPoint | undefined {
  let last: SweepPoint | undefined;
  for (const p of curvePoints(curve)) {
    if (!p.keptUp) break;
    last = p;
  }
  return last;
}

/** A latency bound of an SLO: `put.p99 < 50ms` is p99 of put below 50,000 µs. */
export interface LatencyBound {
  op: string;
  figure: "p50" | "p90" | "p99" | "p99.9" | "max" | "mean";
  us: number;
  text: string;
}

const UNIT_US: Record<string, number> = { us: 1, µs: 1, ms: 1000, s: 1_000_000 };

/** The latency bounds among a search's SLOs (others, such as error rates, are not drawn). */
export function latencyBounds(slo: string[]): LatencyBound[] {
  const out: LatencyBound[] = [];
  for (const text of slo) {
    const m = /^\s*(\w+)\.(p50|p90|p99|p99\.9|max|mean)\s*(<=?)\s*([\d.]+)\s*(us|µs|ms|s)\s*$/.exec(text);
    if (!m) continue;
    out.push({ op: m[1], figure: m[2] as LatencyBound["figure"], us: Number(m[4]) * UNIT_US[m[5]], text: text.trim() });
  }
  return out;
}

/** `round 2`, or the section (`before`, `after`). */
export function curvePlace(c: { section: string; round: number | null }): string {
  return c.round != null ? `round ${c.round}` : c.section;
}
