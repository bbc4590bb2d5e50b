// A figure with its 95 % interval in words, as the run page, the report and the compare
// page show it: `1,367 ops/s ±2.2 %` (half the interval's width, as a share of the
// figure) or `8.80 ms (8.00–9.80)` (the interval's ends).
import type { Estimate } from "../api/types";
import { fmtLatency } from "./format";

/** The half-width of an interval as a share of its value (0 without a value). */
export function halfWidthShare(e: Estimate): number {
  return e.value > 0 ? (e.high - e.low) / 2 / e.value : 0;
}

/** `shown` (the figure in its unit) with the interval's half-width: `1,367 ops/s ±2.2 %`;
 * just `shown` for a figure of 0 or an interval of no width. */
export function fmtWithHalfWidth(e: Estimate, shown: string): string {
  return e.value > 0 && e.high > e.low ? `${shown} ±${(100 * halfWidthShare(e)).toFixed(1)} %` : shown;
}

/** A latency with its interval's ends, the unit said once where all three share it:
 * `8.80 ms (8.00–9.80)`, `980 µs (850 µs–1.20 ms)`. */
export function fmtLatencyEstimate(e: Estimate): string {
  const [value, low, high] = [e.value, e.low, e.high].map(fmtLatency);
  const unit = (s: string) => s.slice(s.lastIndexOf(" "));
  const bare = (s: string) => s.slice(0, s.lastIndexOf(" "));
  const oneUnit = unit(low) === unit(value) && unit(high) === unit(value);
  return oneUnit ? `${value} (${bare(low)}–${bare(high)})` : `${value} (${low}–${high})`;
}
