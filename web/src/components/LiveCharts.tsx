// The live page's charts: throughput (with the bucket's index shards), bandwidth,
// latency and errors per second, then the latency heatmap, all on one time axis (a
// second sits at one x on each) with the phases, epochs, endpoints, reshards and stalls
// marked alike.
import { useCallback, useMemo, useState } from "react";
import { api } from "../api/client";
import { eventWindows } from "../lib/bucket-index";
import { breakAtPauses, pauseWindows } from "../lib/pauses";
import { endpointMarks } from "../lib/endpoints";
import { type LiveState, liveDomain, liveEpochMarks, liveSeries, phaseMarks } from "../lib/live";
import { HeatmapSection } from "./HeatmapSection";
import { TimeChart, shardAxis } from "./charts";

/** How often the live page's heatmap is read again while the run goes. */
const HEATMAP_REFRESH_MS = 5000;

/** What the live charts share: the time axis with its marks, the reshard and stall
 * windows, and the index shards' right axis (when the index is tracked). */
function useLiveAxis(state: LiveState) {
  const first = state.points[0]?.t;
  const last = state.points[state.points.length - 1]?.t;
  const domain = useMemo(() => liveDomain(state.points), [state.points]);
  const phases = useMemo(() => phaseMarks(state.points), [state.points]);
  const epochs = useMemo(() => liveEpochMarks(state.points), [state.points]);
  const endpoints = useMemo(() => endpointMarks(state.endpointEvents), [state.endpointEvents]);
  const windows = useMemo(
    () =>
      first == null || last == null
        ? []
        : [...eventWindows(state.reshards, state.stalls, first, last), ...pauseWindows(state.pauses, [first, last])],
    [state.reshards, state.stalls, state.pauses, first, last],
  );
  const shards = useMemo(() => shardAxis(state.buckets, "as polled"), [state.buckets]);
  return { axis: { xDomain: domain, phases, epochs, endpoints }, windows, shards };
}

export function LiveCharts({ runId, state, running }: { runId: string; state: LiveState; running: boolean }) {
  const series = useMemo(
    () => liveSeries(state.ops, state.errorClasses, { lagOps: state.lagOps, asked: state.anyAsked }),
    [state.ops, state.errorClasses, state.lagOps, state.anyAsked],
  );
  const { axis, windows, shards } = useLiveAxis(state);
  // A resumed run's lines stop where it stopped and start again where it went on.
  const points = useMemo(() => breakAtPauses(state.points, state.pauses), [state.points, state.pauses]);
  const [latencyLog, setLatencyLog] = useState(true);
  return (
    <>
      <div className="chart-grid">
        <div>
          <h3>
            Throughput (ops/s){state.anyAsked ? ", the rate asked" : ""}
            {shards ? " and index shards" : ""}
          </h3>
          <TimeChart
            testId="live-chart-ops"
            data={points}
            series={series.ops}
            unit="ops/s"
            right={shards}
            windows={windows}
            {...axis}
          />
        </div>
        <div>
          <h3>Bandwidth</h3>
          <TimeChart testId="live-chart-mib" data={points} series={series.mib} unit="MiB/s" {...axis} />
        </div>
        <div>
          <div className="title-row">
            <h3>Latency p50 / p99 / p99.9{state.lagOps.length ? ", and how late requests were sent" : ""}</h3>
            <label className="muted small">
              <input type="checkbox" checked={latencyLog} onChange={(e) => setLatencyLog(e.target.checked)} data-testid="live-latency-log" /> log
              scale
            </label>
          </div>
          <TimeChart
            testId="live-chart-latency"
            data={points}
            series={series.lat}
            unit="ms"
            windows={windows}
            windowKey={false}
            {...axis}
            log={latencyLog}
          />
        </div>
        <div>
          <h3>Errors by class (per second)</h3>
          {series.errors.length ? (
            <TimeChart testId="live-chart-errors" data={points} series={series.errors} unit="errors/s" {...axis} />
          ) : (
            <div className="state empty">No errors so far.</div>
          )}
        </div>
      </div>
      {state.ops.length > 0 && <LiveHeatmap runId={runId} state={state} running={running} span={axis.xDomain} />}
    </>
  );
}

/** The heatmap of an operation picked, read again every few seconds while the run goes. */
function LiveHeatmap({ runId, state, running, span }: { runId: string; state: LiveState; running: boolean; span: [number, number] }) {
  const load = useCallback((op: string) => api.heatmap(runId, op), [runId]);
  const index = useMemo(() => ({ reshards: state.reshards, stalls: state.stalls }), [state.reshards, state.stalls]);
  return <HeatmapSection ops={state.ops} load={load} index={index} refreshMs={running ? HEATMAP_REFRESH_MS : undefined} span={span} />;
}
