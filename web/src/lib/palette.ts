// Every colour, dash and marker the charts use, in one place: each operation has one
// colour on every page, percentiles differ by dash, and what is left to tell apart
// (several phases of one operation, runs side by side) differs by marker shape;
// reshards and stalls are marked alike everywhere. The only colours written out in the
// UI's code are here (the page's own are CSS variables in styles.css; a unit test holds
// both to it).

/** One colour per operation, the same on every page. */
export const OP_COLOURS: Record<string, string> = {
  put: "#2563eb",
  get: "#16a34a",
  head: "#7c3aed",
  list: "#d97706",
  delete: "#dc2626",
  mix: "#0891b2",
};

/** Runs (and series with no operation of their own) in order. */
export const RUN_PALETTE = ["#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563"];

/** Dashes for the second, third... series of one colour. */
export const DASHES = ["", "8 4", "2 3", "14 4 2 4", "24 6", "14 4 2 4 2 4"];

/** Percentiles of one operation: one colour, a dash each, on every chart. */
export const PERCENTILES = ["p50", "p99", "p99.9"] as const;
export type Percentile = (typeof PERCENTILES)[number];
export const PERCENTILE_DASH: Record<Percentile, string> = { p50: "", p99: "6 3", "p99.9": "2 3" };

/**
 * Marker shapes, in order: the first, second... phase of one operation on a run's rounds
 * chart, the first, second... run on the compare page.
 */
export const MARKERS = ["circle", "square", "triangle", "diamond", "cross", "star"] as const;
export type MarkerShape = (typeof MARKERS)[number];

export function markerOf(i: number): MarkerShape {
  return MARKERS[i % MARKERS.length];
}

/** How late an open loop's requests left ("sent late"), drawn in its operation's colour:
 * long dashes, unlike any latency percentile's. */
export const LAG_DASH: Record<"p50" | "p99", string> = { p50: "12 3 3 3", p99: "12 3 3 3 3 3" };

/** The rate an open-loop phase asked for, on throughput charts: no operation's colour. */
export const ASKED_COLOUR = "#111827";

/** An SLO's latency bound across a sweep's or search's chart (styles.css `--bad`). */
export const SLO_COLOUR = "#b91c1c";

/** The rate a search found sustainable, marked on its chart (styles.css `--good`). */
export const SUSTAINABLE_COLOUR = "#15803d";

/** Index shard lines (right-hand axis). */
export const SHARD_COLOUR = "#6b7280";

/** A chart's background grid: the page's lines (styles.css `--line`). */
export const GRID_COLOUR = "#e5e7eb";

/** Where a phase begins on a time chart, as on the heatmap (styles.css `--phase-mark`). */
export const PHASE_MARK_COLOUR = "#6b7280";

/** Labels and marks that belong to no series: phase names, a run's marker in a legend or
 * a table (styles.css `--fg-secondary`). */
export const LABEL_COLOUR = "#374151";

/** The inside of hollow markers and of round marks' boxes, and the ring round a step dot:
 * the chart's own background (styles.css `--card`). */
export const PAPER_COLOUR = "#fff";

/** The latency heatmap's colour scale, as [red, green, blue]: a cell with few operations
 * (#fde68a, pale yellow), some (#f97316, orange) and the most (#4c1d95, dark purple). */
export const HEATMAP_STOPS: ReadonlyArray<readonly [number, number, number]> = [
  [253, 230, 138],
  [249, 115, 22],
  [76, 29, 149],
];

/** The list-scaling chart's lines, one per list phase (serial, parallel…): colours no
 * operation has, so a listing mode is not read as PUT or DELETE. */
export const SCALING_COLOURS = ["#db2777", "#475569", "#854d0e", "#0f172a"];

export function scalingColour(i: number): string {
  return SCALING_COLOURS[i % SCALING_COLOURS.length];
}

/** Where an epochs phase entered its next epoch (a colour no operation has). */
export const EPOCH_COLOUR = RUN_PALETTE[6];

/** Reshards and write stalls: shaded windows, round marks. */
export const EVENT_COLOURS = { reshard: "#d97706", stall: "#dc2626", pause: "#64748b" };

/** An endpoint marked down (a stall's red) and found up again (GET's green). */
export const ENDPOINT_COLOURS = { down: EVENT_COLOURS.stall, up: OP_COLOURS.get };

export function opColour(op: string): string {
  return OP_COLOURS[op] ?? RUN_PALETTE[RUN_PALETTE.length - 1];
}

export function runColour(i: number): string {
  return RUN_PALETTE[i % RUN_PALETTE.length];
}

export function dashOf(i: number): string {
  return DASHES[i % DASHES.length];
}

/**
 * For series named by operation (PUT in "write", PUT in "mixed", GET in "read"...): the
 * how-many-th series of its operation each is, so it can keep the operation's colour and
 * take a marker of its own.
 */
export function opOrdinals(ops: readonly string[]): number[] {
  const seen = new Map<string, number>();
  return ops.map((op) => {
    const n = seen.get(op) ?? 0;
    seen.set(op, n + 1);
    return n;
  });
}
