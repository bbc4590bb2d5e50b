// Units written out: latencies arrive in microseconds and are shown in ms or µs with
// the unit; throughput as ops/s and MiB/s (1 MiB = 1,048,576 bytes).

export function fmtLatency(us: number | null | undefined): string {
  if (us == null || !Number.isFinite(us)) return "–";
  if (us < 1000) return `${Math.round(us)} µs`;
  if (us < 10_000) return `${(us / 1000).toFixed(2)} ms`;
  if (us < 1_000_000) return `${(us / 1000).toFixed(1)} ms`;
  return `${(us / 1_000_000).toFixed(2)} s`;
}

export function usToMs(us: number): number {
  return us / 1000;
}

export function fmtRate(opsPerSec: number | null | undefined): string {
  if (opsPerSec == null || !Number.isFinite(opsPerSec)) return "–";
  // Thousands separated as every count on the page is ("5,806", not "5806").
  if (opsPerSec >= 100) return `${Math.round(opsPerSec).toLocaleString("en-US")} ops/s`;
  return `${opsPerSec.toFixed(1)} ops/s`;
}

export function fmtMiBs(mibPerSec: number | null | undefined): string {
  if (mibPerSec == null || !Number.isFinite(mibPerSec)) return "–";
  // A trickle in KiB/s and a flood in GiB/s: never "0.00 MiB/s" for 3 KiB/s.
  const [v, unit] =
    mibPerSec > 0 && mibPerSec < 1 ? [mibPerSec * 1024, "KiB/s"] : mibPerSec >= 10_240 ? [mibPerSec / 1024, "GiB/s"] : [mibPerSec, "MiB/s"];
  return `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ${unit}`;
}

/** Operations that move no object payload: a bandwidth of theirs means nothing. */
const NO_PAYLOAD = new Set(["list", "delete", "head"]);

/** Whether an operation moves object payload (so has a bandwidth): PUT and GET do. */
export function movesPayload(op: string): boolean {
  return !NO_PAYLOAD.has(op);
}

/** An operation's bandwidth; "–" for one that moves no payload (LIST, DELETE, HEAD). */
export function fmtOpMiBs(op: string, mibPerSec: number | null | undefined): string {
  return movesPayload(op) ? fmtMiBs(mibPerSec) : "–";
}

/** Bytes in binary units: `512 B`, `1.50 KiB`, `3.25 GiB`. */
export function fmtBytes(bytes: number | null | undefined): string {
  if (bytes == null || !Number.isFinite(bytes)) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u += 1;
  }
  return u === 0 ? `${bytes} B` : `${v.toFixed(2)} ${units[u]}`;
}

export function bytesToMiB(bytes: number): number {
  return bytes / 1048576;
}

export function fmtDuration(seconds: number | null | undefined): string {
  if (seconds == null || !Number.isFinite(seconds)) return "–";
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  if (m < 60) return `${m} min ${s} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function fmtCount(n: number | null | undefined): string {
  if (n == null) return "–";
  return n.toLocaleString("en-US");
}

export function fmtPercent(p: number | null | undefined, digits = 1): string {
  if (p == null || !Number.isFinite(p)) return "–";
  const shown = p.toFixed(digits);
  // What rounds to nothing has no sign: "0.0 %", never "-0.0 %".
  if (Number(shown) === 0) return `${(0).toFixed(digits)} %`;
  const sign = p > 0 ? "+" : "";
  return `${sign}${shown} %`;
}

export function fmtTime(iso: string | null | undefined): string {
  if (!iso) return "–";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

/** `text` cut to at most `max` characters at a word's end, with "…" if it was cut. */
export function clipWords(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,.;:–-]+$/, "")}…`;
}

/**
 * A number on a chart's axis or in its tooltip: whole numbers as they are ("24", not
 * "24.00"), large ones with thousands separators, small ones to three figures, no
 * trailing zeros.
 */
export function fmtAxis(v: unknown): string {
  const n = typeof v === "number" ? v : Number(v);
  if (!Number.isFinite(n)) return String(v);
  if (n === 0) return "0";
  if (Math.abs(n) >= 100 || Number.isInteger(n)) return Math.round(n).toLocaleString("en-US");
  const text = Math.abs(n) >= 1 ? n.toFixed(2) : n.toPrecision(3);
  return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
}

/** How an open-loop phase kept its schedule. */
export interface OpenLoopOutcome {
  asked_per_sec: number;
  sent_per_sec: number;
  backlog?: number;
}

/** Whether an open-loop phase fell behind: operations never sent, or under 97 % of the rate asked sent. */
export function openLoopBehind(o: OpenLoopOutcome): boolean {
  return (o.backlog ?? 0) > 0 || o.sent_per_sec < 0.97 * o.asked_per_sec;
}

/** `2,316 of 6,000 ops/s, 36,840 never sent`. */
export function openLoopText(o: OpenLoopOutcome): string {
  const never = o.backlog ? `, ${fmtCount(o.backlog)} never sent` : "";
  return `${fmtRate(o.sent_per_sec).replace(" ops/s", "")} of ${fmtRate(o.asked_per_sec)}${never}`;
}

/** Where a run's latencies end (its manifest's `latency_clock`), in words. */
export interface LatencyClockFact {
  source: "socket" | "user";
  user_timed?: number;
}

export function latencyClockText(c: LatencyClockFact): string {
  if (c.source === "user") return "latencies end when the client saw each response";
  const fallbacks = c.user_timed
    ? ` (${fmtCount(c.user_timed)} not stamped, timed by the client's clock)`
    : "";
  return `latencies end as responses reached the socket (kernel stamps)${fallbacks}`;
}
