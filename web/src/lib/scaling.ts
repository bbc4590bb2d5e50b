// List time against bucket size: the fitted lines the server computed (least squares
// over the run's listings of each list phase), drawn as two-point lines, and what they
// predict for a bucket larger than the test one, with the 95 % prediction interval, or
// why they do not say: by the server's rule (`keystorm show` says the same), applied to
// the figures of the fit it sends, as the reader types in a size.
import type { LinearFit, ScalingLine } from "../api/types";

/** Seconds the line predicts for `keys`. */
export function predictSeconds(fit: LinearFit, keys: number): number {
  return fit.intercept_s + fit.slope_s_per_key * keys;
}

/** A line's time for a bucket, and the 95 % prediction interval around it. */
export interface Prediction {
  seconds: number;
  low: number;
  high: number;
}

/** What a fitted line says about `keys` keys: a prediction, or why it says nothing. */
export type Extrapolation = { prediction: Prediction; refusal?: undefined } | { prediction?: undefined; refusal: string };

/**
 * The line's time for `keys` keys with its 95 % prediction interval
 * (t × s × √(1 + 1/n + (keys − mean)² / Sxx) either side), unless the server found the
 * line unfit to extrapolate (too few sizes, R² under 0.9, time not growing) or `keys`
 * is beyond its reach (100× the largest listing measured).
 */
export function extrapolate(fit: LinearFit, keys: number): Extrapolation {
  if (fit.refusal) return { refusal: fit.refusal };
  if (keys > fit.reach_keys) {
    const times = (n: number) => fmtKeyCount(Math.round(n));
    return {
      refusal:
        `${fmtKeyCount(keys)} keys is ${times(keys / fit.max_keys)}× the largest listing measured ` +
        `(${fmtKeyCount(fit.max_keys)} keys); the line is extrapolated to ${times(fit.reach_keys / fit.max_keys)}× at most`,
    };
  }
  const seconds = predictSeconds(fit, keys);
  const spread = (fit.t95 ?? NaN) * (fit.residual_s ?? NaN);
  const half = spread * Math.sqrt(1 + 1 / fit.points + (keys - fit.mean_keys) ** 2 / Math.max(fit.sxx, Number.MIN_VALUE));
  return { prediction: { seconds, low: Math.max(seconds - half, 0), high: seconds + half } };
}

/** The line from no keys to `maxKeys`, as chart points `{keys, <phase> fit}`. */
export function fitEnds(line: ScalingLine, maxKeys: number): Array<Record<string, number>> {
  if (!line.fit) return [];
  return [0, maxKeys].map((keys) => ({ keys, [`${line.phase} fit`]: Math.max(predictSeconds(line.fit!, keys), 0) }));
}

/**
 * A key count as people write it: `67e9`, `67 billion`, `1.5M`, `100k`, `2,000,000`.
 * `null` when it is not one.
 */
export function parseKeyCount(text: string): number | null {
  const t = text.trim().toLowerCase().replace(/[,_\s]/g, "");
  const m = /^(\d+(?:\.\d+)?(?:e\d+)?)(k|m|g|b|t|thousand|million|billion|trillion)?$/.exec(t);
  if (!m) return null;
  const scale: Record<string, number> = {
    k: 1e3, thousand: 1e3, m: 1e6, million: 1e6, g: 1e9, b: 1e9, billion: 1e9, t: 1e12, trillion: 1e12,
  };
  const n = Number(m[1]) * (m[2] ? scale[m[2]] : 1);
  return Number.isFinite(n) && n >= 1 ? n : null;
}

/** `93 days 4 h`, `5 h 12 min`, `42 s`, `2.2 years`: as `keystorm show` writes them. */
export function humanDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return "–";
  const s = Math.round(seconds);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d === 0 && h === 0 && m === 0) return `${seconds.toFixed(1)} s`;
  if (d === 0 && h === 0) return `${m} min ${s % 60} s`;
  if (d === 0) return `${h} h ${m} min`;
  if (d < 365) return `${d} days ${h} h`;
  return `${(d / 365).toFixed(1)} years`;
}

/** `6.7e10` keys as `67 billion`. */
export function fmtKeyCount(n: number): string {
  for (const [v, name] of [[1e12, "trillion"], [1e9, "billion"], [1e6, "million"]] as const) {
    if (n >= v) return `${Number((n / v).toPrecision(3))} ${name}`;
  }
  return Math.round(n).toLocaleString("en-US");
}
