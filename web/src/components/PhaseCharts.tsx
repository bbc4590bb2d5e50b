// The charts of one phase × round × operation of a run, as the run page's phase
// explorer shows them: its latency distribution (the merged histogram), and its
// throughput and latency point by point, with the index shards, the reshard and stall
// windows, each new epoch and the endpoints that went down and came back marked.
import { useMemo, useState } from "react";
import type { Distribution, EndpointEvent, IntervalRecord } from "../api/types";
import { type TimeWindow, indexBuckets } from "../lib/bucket-index";
import { endpointMarks } from "../lib/endpoints";
import { fmtCount } from "../lib/format";
import { epochMarks, recordEpochPoints } from "../lib/keys";
import { intervalPoint, pointSpan } from "../lib/live";
import { type PauseSpan, breakAtPauses } from "../lib/pauses";
import { ninesOf } from "../lib/nines";
import { PERCENTILES, PERCENTILE_DASH, opColour } from "../lib/palette";
import { ASKED_KEY, askedSeries, anyHas, lagKey, lagSeries } from "../lib/schedule";
import { DistributionChart, TimeChart, shardAxis } from "./charts";

/** The phase's latency distribution, once read (`name` says which phase, round and operation). */
export function PhaseDistribution({ name, op, dist }: { name: string; op: string; dist: Distribution | null }) {
  return (
    <div>
      <h4>Latency distribution (merged histogram, {dist ? fmtCount(dist.count) : "…"} operations)</h4>
      {dist && (
        <DistributionChart
          lines={[
            {
              name,
              colour: opColour(op),
              points: dist.points.map((p) => ({ nines: ninesOf(p.percentile), ms: Math.max(p.latency_us, 1) / 1000 })),
            },
          ]}
        />
      )}
    </div>
  );
}

/** The phase's throughput (with its index shards) and latency percentiles over its
 * measured intervals, on the phase's time axis (`span`). */
export function PhaseTimeCharts(props: {
  op: string;
  measured: IntervalRecord[];
  span?: [number, number];
  windows: TimeWindow[];
  endpointEvents?: EndpointEvent[];
  /** When the run did not run: the lines break there. */
  pauses?: PauseSpan[];
  /** An open-loop phase: the rate it asked for, and whether that is of several operations. */
  asked?: { rate: number; mixed: boolean };
}) {
  const { op, measured, span, windows, asked } = props;
  const [latencyLog, setLatencyLog] = useState(true);
  const points = useMemo(() => {
    const drawn = measured.map((r) => {
      const p = intervalPoint(r);
      // The rate asked in this interval where it says (a merged run: of the shards that
      // ran in it, so a shard paused or done asks nothing), else the phase's.
      if (asked) p[ASKED_KEY] = r.asked_per_sec ?? asked.rate;
      return p;
    });
    return breakAtPauses(drawn, props.pauses ?? []);
  }, [measured, props.pauses, asked]);
  const late = useMemo(() => anyHas(points, lagKey(op, "p50")), [points, op]);
  const buckets = useMemo(() => indexBuckets(measured.map((r) => r.index)), [measured]);
  const epochs = useMemo(() => epochMarks(recordEpochPoints(measured)), [measured]);
  const endpoints = useMemo(() => endpointMarks(props.endpointEvents ?? [], span), [props.endpointEvents, span]);
  return (
    <div>
      <h4>
        <span data-testid="point-span">{pointSpan(measured)}</span>: {op} ops/s{asked ? " against the rate asked" : ""}
        {buckets.length ? ", index shards" : ""} and latency{late ? " with how late requests were sent" : ""}
        {epochs.length ? ", each new epoch marked" : ""}
        {endpoints.length ? ", endpoints down and up marked" : ""}
      </h4>
      <TimeChart
        testId="interval-chart"
        data={points}
        series={[{ key: `${op} ops/s`, name: `${op} ops/s`, colour: opColour(op) }, ...(asked ? [askedSeries(asked.mixed)] : [])]}
        unit="ops/s"
        right={shardAxis(buckets, "as polled")}
        windows={windows}
        xDomain={span}
        epochs={epochs}
        endpoints={endpoints}
      />
      <label className="muted small">
        <input type="checkbox" checked={latencyLog} onChange={(e) => setLatencyLog(e.target.checked)} data-testid="interval-latency-log" /> latency on a
        log scale
      </label>
      <TimeChart
        testId="interval-latency-chart"
        log={latencyLog}
        data={points}
        series={[
          ...PERCENTILES.map((q) => ({
            key: `${op} ${q}`,
            name: q,
            colour: opColour(op),
            dash: PERCENTILE_DASH[q],
          })),
          ...lagSeries(late ? [op] : [], (_, name) => name),
        ]}
        unit="ms"
        height={180}
        windows={windows}
        windowKey={false}
        xDomain={span}
        epochs={epochs}
        endpoints={endpoints}
      />
    </div>
  );
}
