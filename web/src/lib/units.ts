// A chart's unit fitted to the range it shows: sub-millisecond latencies in µs, seconds
// for the slow ones, KiB/s for a trickle and GiB/s for a flood, so the axis reads "250"
// with its unit rather than "0.25" or "0.0030". The values are scaled before the chart
// picks its ticks, so the ticks come out round in the unit shown.

export interface FittedUnit {
  /** The unit to print on the axis and in the tooltip. */
  unit: string;
  /** What to multiply the data by to get it in that unit. */
  factor: number;
}

/** Each unit's smaller and larger neighbours, and the range it reads well in. */
const LADDERS: Record<string, Array<{ unit: string; perBase: number; below: number }>> = {
  // Latencies arrive in ms: µs below 1 ms, s from 10 s (10,000 ms).
  ms: [
    { unit: "µs", perBase: 1000, below: 1 },
    { unit: "ms", perBase: 1, below: 10_000 },
    { unit: "s", perBase: 1 / 1000, below: Infinity },
  ],
  // Bandwidth arrives in MiB/s: KiB/s below 1 MiB/s, GiB/s from 10 GiB/s.
  "MiB/s": [
    { unit: "KiB/s", perBase: 1024, below: 1 },
    { unit: "MiB/s", perBase: 1, below: 10_240 },
    { unit: "GiB/s", perBase: 1 / 1024, below: Infinity },
  ],
};

/**
 * The unit that fits values up to `max` (in `unit`): the ladder's first step whose
 * range holds `max`. A unit with no ladder (ops/s, counts, ratios) stays as it is;
 * an empty or zero range keeps the base unit.
 */
export function fitUnit(unit: string, max: number): FittedUnit {
  const ladder = LADDERS[unit];
  if (!ladder || !Number.isFinite(max) || max <= 0) return { unit, factor: 1 };
  const step = ladder.find((s) => max < s.below) ?? ladder[ladder.length - 1];
  return { unit: step.unit, factor: step.perBase };
}

/** The largest absolute value under `keys` in `rows` (0 when there is none). */
export function maxOf(rows: ReadonlyArray<Record<string, unknown>>, keys: readonly string[]): number {
  let max = 0;
  for (const row of rows) {
    for (const k of keys) {
      const v = row[k];
      if (typeof v === "number" && Number.isFinite(v)) max = Math.max(max, Math.abs(v));
    }
  }
  return max;
}

/** `rows` with the values under `keys` multiplied by `factor` (the rows themselves when 1). */
export function scaleRows<T extends Record<string, unknown>>(rows: T[], keys: readonly string[], factor: number): T[] {
  if (factor === 1) return rows;
  return rows.map((row) => {
    const out: Record<string, unknown> = { ...row };
    for (const k of keys) {
      const v = row[k];
      if (typeof v === "number") out[k] = v * factor;
    }
    return out as T;
  });
}
