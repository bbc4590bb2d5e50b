// The compare page's changes as the server judged them (`GET /api/compare`), put in
// words: which rows a view shows (each round, or a round phase's rounds together), the
// real changes largest first, and each figure, change and verdict as `keystorm compare`
// prints them. Nothing here works out a difference: the server judges every change
// against its interval and the noise floor (docs/intervals.md).
import type { Change, Estimate, SummaryRow, Verdict } from "../api/types";
import { fmtWithHalfWidth, halfWidthShare } from "./estimates";
import { fmtCount, fmtLatency, fmtMiBs, fmtRate } from "./format";
import { markName } from "./tails";

/** The noise floor the server judges with unless asked otherwise (±2 %). */
export const DEFAULT_NOISE_FLOOR = 0.02;
/** The floors offered: a store whose runs differ by a few percent from day to day
 * wants a wider one. */
export const NOISE_FLOORS = [0.01, 0.02, 0.05, 0.1];

/** A noise floor (a share) as it reads: `±2 %`, `±0.5 %`. */
export function fmtFloor(floor: number): string {
  return `±${Math.round(floor * 10_000) / 100} %`;
}

/** Which rows of a round phase the tables show: each round's, or its rounds together. */
export type RoundsView = "each" | "together";

/** Whether any change is of a round phase's rounds together (so the view switch matters). */
export function hasRoundsTogether(changes: Change[]): boolean {
  return changes.some((c) => c.all_rounds);
}

/** The changes a view shows: the phases outside the rounds always, and a round phase's
 * rows either per round or over its rounds together. */
export function changesInView(changes: Change[], view: RoundsView): Change[] {
  return changes.filter((c) => c.section !== "round" || (view === "together") === !!c.all_rounds);
}

/** A verdict that says the runs differ: the only ones coloured. */
export function isReal(v: Verdict): boolean {
  return v === "improved" || v === "regressed";
}

/** How large a change is, either way (a doubling as large as a halving); a change from 0,
 * which has no ratio, is larger than any. */
export function changeSize(c: Change): number {
  return c.ratio ? Math.abs(Math.log(c.ratio.value)) : Infinity;
}

/** The improved and regressed changes, largest first (changes from 0 first of all). */
export function realChanges(changes: Change[]): Change[] {
  return changes
    .filter((c) => isReal(c.verdict))
    .map((c, at) => ({ c, at, size: changeSize(c) }))
    .sort((a, b) => (a.size === b.size ? a.at - b.at : b.size > a.size ? 1 : -1))
    .map((x) => x.c);
}

/** The class a verdict is drawn in: green improved, red regressed, grey everything else. */
export function verdictClass(v: Verdict): "better" | "worse" | "muted" {
  return v === "improved" ? "better" : v === "regressed" ? "worse" : "muted";
}

/** A verdict as the table says it. */
export function verdictWords(v: Verdict): string {
  switch (v) {
    case "improved":
      return "improved";
    case "regressed":
      return "regressed";
    case "no_change":
      return "no change";
    case "inconclusive":
      return "inconclusive";
    case "lag":
      return "not judged: mostly schedule lag";
  }
}

/** Where a change is: `round 2 write`, `before fill`, `write (all rounds)`. */
export function placeOf(c: Pick<Change, "section" | "round" | "all_rounds" | "phase">): string {
  if (c.all_rounds) return `${c.phase} (all rounds)`;
  return c.section === "round" ? `round ${c.round} ${c.phase}` : `${c.section} ${c.phase}`;
}

/** A tail metric: the share of timed operations at or over a mark (`over_1s`). */
export function isTail(metric: string): boolean {
  return metric.startsWith("over_");
}

/** A share as a percentage: `0.080 %`, `12.5 %`, `0 %`. */
export function fmtShare(share: number): string {
  if (share === 0) return "0 %";
  const p = share * 100;
  return `${p.toFixed(p >= 1 ? 1 : 3)} %`;
}

/** A figure of a metric in its unit. */
export function fmtFigure(metric: string, value: number): string {
  switch (metric) {
    case "ops_per_sec":
    case "sustainable_rate":
      return fmtRate(value);
    case "mib_per_sec":
      return fmtMiBs(value);
    case "p50":
    case "p99":
    case "p99.9":
      return fmtLatency(value);
    default:
      // error_rate and the tails: shares.
      return fmtShare(value);
  }
}

/** A ratio as a signed change: `+12.3 %`, `−4.0 %`, `+535 %` (as `keystorm compare`). */
export function fmtRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return "+∞ %";
  const p = (ratio - 1) * 100;
  const text = Math.abs(p).toFixed(Math.abs(p) >= 100 ? 0 : 1);
  if (p < 0 && Number(text) !== 0) return `−${text} %`;
  return `+${text} %`;
}

/** The change with its 95 % interval, `−45.1 % (−45.9 % to −44.4 %)`; `from 0` or `0 in
 * both` where there is no ratio. */
export function fmtChange(c: Pick<Change, "ratio" | "why">): string {
  if (c.ratio) return `${fmtRatio(c.ratio.value)} (${fmtRatio(c.ratio.low)} to ${fmtRatio(c.ratio.high)})`;
  if (c.why.startsWith("from 0")) return "from 0";
  if (c.why === "0 in both") return "0 in both";
  return "–";
}

/** A side's figure with the half-width of its interval: `1,367 ops/s ±2.2 %`. */
export function fmtEstimate(metric: string, e: Estimate | null | undefined): string {
  if (!e) return "–";
  // An interval wider than the figure reads better as its ends than as ±; a
  // sustainable rate's is the bracket its search ended in, the rate at its low end.
  if ((e.value > 0 && halfWidthShare(e) > 0.5) || metric === "sustainable_rate") {
    return `${fmtFigure(metric, e.value)} (${fmtFigure(metric, e.low)}–${fmtFigure(metric, e.high)})`;
  }
  return fmtWithHalfWidth(e, fmtFigure(metric, e.value));
}

/** The run's rows where a change is: its round's, or every round's for a round phase's
 * rounds together. */
function rowsAt(c: Change, rows: SummaryRow[]): SummaryRow[] {
  return rows.filter(
    (r) => r.section === c.section && r.phase === c.phase && r.op === c.op && (c.all_rounds || (r.round ?? null) === (c.round ?? null)),
  );
}

/** The operations a run counted at or over a tail mark where a change is (its rows
 * added up for a round phase's rounds together); undefined for a mark the rows do not
 * count or a place they do not have. */
export function tailCount(c: Change, rows: SummaryRow[]): number | undefined {
  if (!c.metric.startsWith("over_")) return undefined;
  const counts = rowsAt(c, rows).map((r) => r.latency_us.slower_than?.find((t) => `over_${markName(t.mark_us)}` === c.metric)?.count);
  if (!counts.length || counts.some((n) => n == null)) return undefined;
  return counts.reduce((sum: number, n) => sum + (n ?? 0), 0);
}

/** The figure a run's row has for a change's metric, where the side has no interval
 * (too few seconds): one row's own figure, none for rounds together or a tail. */
export function rowFigure(c: Change, rows: SummaryRow[]): number | undefined {
  const at = c.all_rounds ? [] : rowsAt(c, rows);
  if (at.length !== 1) return undefined;
  const r = at[0];
  const figures: Record<string, number> = {
    ops_per_sec: r.ops_per_sec,
    mib_per_sec: r.mib_per_sec,
    p50: r.latency_us.p50,
    p99: r.latency_us.p99,
    "p99.9": r.latency_us.p999,
    error_rate: r.error_rate,
  };
  return figures[c.metric];
}

/** A side's figure as the tables show it: with its interval's half-width; a tail's
 * share with the operations it counts (`0.080 % ±40.0 % (16 PUTs)`); the row's own
 * figure, without one, where the side has no interval. */
export function fmtSide(c: Change, e: Estimate | null | undefined, rows: SummaryRow[]): string {
  const figure = e ? fmtEstimate(c.metric, e) : fmtBare(c, rows);
  if (!isTail(c.metric)) return figure;
  const count = tailCount(c, rows);
  if (count == null) return figure;
  const ops = `${fmtCount(count)} ${c.op.toUpperCase()}${count === 1 ? "" : "s"}`;
  return e ? `${figure} (${ops})` : ops;
}

function fmtBare(c: Change, rows: SummaryRow[]): string {
  const value = rowFigure(c, rows);
  return value == null ? "–" : fmtFigure(c.metric, value);
}

/** How many changes came out each way. */
export function countVerdicts(changes: Change[]): Record<Verdict, number> {
  const counts: Record<Verdict, number> = { improved: 0, regressed: 0, no_change: 0, inconclusive: 0, lag: 0 };
  for (const c of changes) counts[c.verdict] += 1;
  return counts;
}

/** The counts in words: `1 improved, 2 regressed, 30 no change, 4 inconclusive, 0 not judged`. */
export function countsWords(counts: Record<Verdict, number>): string {
  return `${counts.improved} improved, ${counts.regressed} regressed, ${counts.no_change} no change, ${counts.inconclusive} inconclusive, ${counts.lag} not judged`;
}
