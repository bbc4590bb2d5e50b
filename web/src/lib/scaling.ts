// List time against bucket size: the fitted lines the server computed (least squares
// over the run's listings of each list phase), drawn as two-point lines, and what they
// predict for a bucket far larger than the test one.
import type { LinearFit, ScalingLine } from "../api/types";

/** Seconds the line predicts for `keys`. */
export function predictSeconds(fit: LinearFit, keys: number): number {
  return fit.intercept_s + fit.slope_s_per_key * keys;
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
