// Log axes tick at 1, 2 and 5 of each decade (… 1, 2, 5, 10, 20, 50 …), the values a
// reader finds at a glance, and run from such a value to such a value around the data:
// one rule for every log axis (the charts' latency axes, the distribution chart, the
// heatmap's latency rows), so none ticks at 0.2, 0.7, 7 and 70.

/** The mantissas a log axis ticks at, in each decade. */
const MANTISSAS = [1, 2, 5];

/** `m × 10^k`, written so that 0.2 is 0.2 and not 0.20000000000000004. */
function value(m: number, k: number): number {
  return k >= 0 ? m * 10 ** k : m / 10 ** -k;
}

/** Every 1-2-5 value in [lo, hi], lowest first. */
function values125(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let k = Math.floor(Math.log10(lo)) - 1; value(1, k) <= hi * (1 + 1e-9); k++) {
    for (const m of MANTISSAS) {
      const v = value(m, k);
      if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) out.push(v);
    }
  }
  return out;
}

/** The largest 1-2-5 value at or under `x` (> 0). */
export function floor125(x: number): number {
  const k = Math.floor(Math.log10(x));
  const candidates = [value(1, k - 1), ...MANTISSAS.map((m) => value(m, k)), value(1, k + 1)];
  return Math.max(...candidates.filter((v) => v <= x * (1 + 1e-9)));
}

/** The smallest 1-2-5 value at or over `x` (> 0). */
export function ceil125(x: number): number {
  const k = Math.floor(Math.log10(x));
  const candidates = [...MANTISSAS.map((m) => value(m, k)), value(1, k + 1)];
  return Math.min(...candidates.filter((v) => v >= x * (1 - 1e-9)));
}

/**
 * The ticks of a log axis from `lo` to `hi`: the 1-2-5 values between them; when more
 * than `maxTicks`, only the decades (1, 10, 100…), then every second decade, and so on.
 */
export function logTicks(lo: number, hi: number, maxTicks = 8): number[] {
  if (!(lo > 0) || !(hi >= lo) || !Number.isFinite(hi)) return [];
  const all = values125(lo, hi);
  if (all.length <= maxTicks) return all;
  const decades = all.filter((v) => Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9);
  for (let every = 1; ; every++) {
    const kept = decades.filter((v) => Math.round(Math.log10(v)) % every === 0);
    if (kept.length <= maxTicks || every > 100) return kept;
  }
}

/** A log axis's range and ticks. */
export interface LogAxis {
  domain: [number, number];
  ticks: number[];
}

/**
 * The log axis for `values` (those not above zero are left out, as a log axis cannot
 * show them): from the 1-2-5 value under the smallest to the one over the largest, with
 * a little room so no line sits on the edge; 1 to 10 when there is nothing to show.
 */
export function logAxis(values: Iterable<number>, maxTicks = 8): LogAxis {
  let min = Infinity;
  let max = 0;
  for (const v of values) {
    if (v > 0 && Number.isFinite(v)) {
      min = Math.min(min, v);
      max = Math.max(max, v);
    }
  }
  if (!(max > 0)) return { domain: [1, 10], ticks: [1, 2, 5, 10] };
  const lo = floor125(min / 1.05);
  let hi = ceil125(max * 1.05);
  if (hi <= lo) hi = ceil125(lo * 1.5);
  return { domain: [lo, hi], ticks: logTicks(lo, hi, maxTicks) };
}

/** The numbers under `keys` in `rows`, for an axis to fit. */
export function* valuesOf(rows: ReadonlyArray<Record<string, unknown>>, keys: readonly string[]): Generator<number> {
  for (const row of rows) {
    for (const k of keys) {
      const v = row[k];
      if (typeof v === "number") yield v;
    }
  }
}
