// The "nines" axis of a latency distribution: percentile p is drawn at
// -log10(1 - p/100), so 90 %, 99 %, 99.9 % ... are evenly spaced.

export const MAX_NINES = 6;

export function ninesOf(percentile: number): number {
  const rest = 1 - percentile / 100;
  if (rest <= 0) return MAX_NINES;
  if (rest >= 1) return 0;
  return Math.min(-Math.log10(rest), MAX_NINES);
}

export function percentileOfNines(n: number): number {
  return 100 * (1 - Math.pow(10, -n));
}

/** 0 %, 50 %, 90 %, 99 %, 99.9 %, 99.99 %, 99.999 % (the chart adds "max" at 6). */
export const NINES_TICKS = [0, Math.log10(2), 1, 2, 3, 4, 5];

export function ninesLabel(n: number): string {
  if (n <= 0) return "0 %";
  const p = percentileOfNines(n);
  return `${Number(p.toFixed(Math.max(0, Math.round(n) - 1)))} %`;
}
