// An open-loop phase's schedule where latency and throughput are drawn: how late its
// requests left ("sent late" p50 / p99, beside the latency that counts it) and the rate
// it asked for (beside what it did).
import { ASKED_COLOUR, LAG_DASH, opColour } from "./palette";

/** The lateness percentiles drawn, each under its chart name. */
export const LAG_PERCENTILES = [
  ["p50", "sent late p50"],
  ["p99", "sent late p99"],
] as const;

/** The point key of an operation's lateness at `q`: `put sent late p99`. */
export function lagKey(op: string, q: (typeof LAG_PERCENTILES)[number][0]): string {
  return `${op} sent late ${q}`;
}

/** The point key of the rate an open-loop phase asked for (all its operations together). */
export const ASKED_KEY = "asked ops/s";

/** The latency chart's lines of how late `ops`' requests left: the operation's colour,
 * a dash of their own (the latency percentiles are solid, dashed and dotted). */
export function lagSeries(ops: string[], named = (op: string, name: string) => `${op} ${name}`) {
  return ops.flatMap((op) =>
    LAG_PERCENTILES.map(([q, name]) => ({ key: lagKey(op, q), name: named(op, name), colour: opColour(op), dash: LAG_DASH[q] })),
  );
}

/** The throughput chart's line of the rate asked; `mixed` says it is every operation's together. */
export function askedSeries(mixed: boolean) {
  return { key: ASKED_KEY, name: mixed ? "asked (all operations)" : "asked", colour: ASKED_COLOUR, dash: "4 4" };
}

/** Whether any point carries `key`. */
export function anyHas(points: ReadonlyArray<Record<string, unknown>>, key: string): boolean {
  return points.some((p) => typeof p[key] === "number");
}
