// Live run: the current phase, round and progress, per-operation throughput and latency
// over time, errors by class, and a stop button. Fed by the run's event stream (read
// with the tab's token); a reconnect resumes where it left off (with Last-Event-ID).
import { useCallback, useEffect, useMemo, useReducer, useState } from "react";
import { Link, useParams } from "react-router-dom";
import { useAccess } from "../api/access";
import { api } from "../api/client";
import { openEventStream } from "../api/eventStream";
import type { RunStatus } from "../api/types";
import { CleanupLine } from "../components/CleanupLine";
import { HeatmapSection } from "../components/HeatmapSection";
import { LiveEndpoints } from "../components/LiveEndpoints";
import { LiveShards } from "../components/LiveShards";
import { TimeChart, shardAxis } from "../components/charts";
import { ErrorBox, StatusBadge } from "../components/states";
import { eventWindows } from "../lib/bucket-index";
import { fmtCount, fmtDuration } from "../lib/format";
import { endpointMarks } from "../lib/endpoints";
import { keysLine } from "../lib/keys";
import {
  type LiveState,
  MAX_LIVE_POINTS,
  type RawEvent,
  applyEvent,
  endedSummary,
  initialLive,
  isLiveEvent,
  liveDomain,
  liveEpochMarks,
  liveSeries,
  phaseMarks,
  runningKeys,
} from "../lib/live";
import { placeLabel } from "../lib/rounds";

/** How often the live page's heatmap is read again while the run goes. */
const HEATMAP_REFRESH_MS = 5000;

function reducer(state: LiveState, events: RawEvent[]): LiveState {
  return events.reduce(applyEvent, state);
}

/** The bucket index as last polled, and how many reshards and stalls were seen so far. */
function LiveIndex({ state }: { state: LiveState }) {
  return (
    <div className="state" data-testid="live-index">
      <strong>Bucket index: </strong>
      {state.index.map((b) => (
        <span key={b.bucket} className="headline">
          <span className="mono">{b.bucket}</span> {fmtCount(b.shards)} index shards, {fmtCount(b.objects)} objects
          {b.resharding ? <span className="warn-text"> (resharding)</span> : null}
        </span>
      ))}
      <span className="muted">
        {state.reshards.length} reshard{state.reshards.length === 1 ? "" : "s"}, {state.stalls.length} write stall
        {state.stalls.length === 1 ? "" : "s"} so far
      </span>
    </div>
  );
}

/** The keys the running phase reads: how many, of which bucket, from which key file, and
 * the epoch its latest interval ended in. */
function LiveKeys({ state }: { state: LiveState }) {
  const keys = runningKeys(state);
  if (!keys) return null;
  return (
    <div className="state" data-testid="live-keys">
      <strong>Keys: </strong>
      {keysLine(keys, state.epoch)}
    </div>
  );
}

export function LiveRunPage() {
  const { id = "" } = useParams();
  const [state, dispatch] = useReducer(reducer, undefined, initialLive);
  const [connError, setConnError] = useState<string | null>(null);
  const [stopError, setStopError] = useState<unknown>(null);
  const [stopping, setStopping] = useState(false);
  const access = useAccess();
  /** How the run stands when it ended without a `finished` event (its process died). */
  const [ended, setEnded] = useState<RunStatus | null>(null);
  /** Whether `keystorm run --resume` can continue it: not on the embedded target. */
  const [resumable, setResumable] = useState(false);

  useEffect(() => {
    // The page draws the last MAX_LIVE_POINTS seconds: older per-second events of a run
    // that has gone on for days are not worth sending.
    let finished = false;
    const close = openEventStream(`/api/runs/${encodeURIComponent(id)}/events?recent=${MAX_LIVE_POINTS}`, {
      onEvent: (ev) => {
        if (!isLiveEvent(ev.name)) return;
        const e: RawEvent = { id: Number(ev.id), name: ev.name, data: JSON.parse(ev.data) };
        dispatch([e]);
        setConnError(null);
        if (e.name === "finished") {
          finished = true;
          close();
        }
      },
      onError: (final, reason) => {
        if (finished) return;
        setConnError(final ? reason : "The event stream dropped; reconnecting…");
        // A run whose process died never sends `finished`: ask how it stands.
        api
          .run(id)
          .then((d) => {
            if (d.info.status !== "running" && !finished) {
              finished = true;
              close();
              setEnded(d.info.status);
              setResumable(d.manifest.endpoint !== "embedded");
              setConnError(null);
            }
          })
          .catch(() => {});
      },
    });
    return close;
  }, [id]);

  const series = useMemo(() => liveSeries(state.ops, state.errorClasses), [state.ops, state.errorClasses]);

  const first = state.points[0]?.t;
  const last = state.points[state.points.length - 1]?.t;
  // One time axis for every chart of the page and the heatmap: a second sits at one x.
  const domain = useMemo(() => liveDomain(state.points), [state.points]);
  const phases = useMemo(() => phaseMarks(state.points), [state.points]);
  const epochs = useMemo(() => liveEpochMarks(state.points), [state.points]);
  const endpoints = useMemo(() => endpointMarks(state.endpointEvents), [state.endpointEvents]);
  const axis = { xDomain: domain, phases, epochs, endpoints };
  const [latencyLog, setLatencyLog] = useState(true);
  const windows = useMemo(
    () => (first == null || last == null ? [] : eventWindows(state.reshards, state.stalls, first, last)),
    [state.reshards, state.stalls, first, last],
  );
  const shards = useMemo(() => shardAxis(state.buckets, "as polled"), [state.buckets]);
  const loadHeatmap = useCallback((op: string) => api.heatmap(id, op), [id]);
  const liveIndex = useMemo(() => ({ reshards: state.reshards, stalls: state.stalls }), [state.reshards, state.stalls]);

  const status = ended ?? state.status;
  const running = status === "running" || status === undefined;
  const stop = async () => {
    setStopping(true);
    try {
      await api.stopRun(id);
    } catch (e) {
      setStopError(e);
      setStopping(false);
    }
  };
  const fraction = state.progress?.fraction;
  // A completed run's bar is full, whatever its last phase knew of its end.
  const barFraction = status === "completed" ? 1 : (fraction ?? 0);

  return (
    <section>
      <div className="title-row">
        <h1>
          Live: <span className="mono">{id}</span>
        </h1>
        {status && <StatusBadge status={status} />}
        {running ? (
          <button className="danger" data-testid="stop-run" onClick={stop} disabled={!access.canChange || stopping} title={access.why}>
            {stopping ? "Stopping… (finishing the interval)" : "Stop run"}
          </button>
        ) : (
          <Link className="button" to={`/runs/${id}`} data-testid="open-detail">
            Open results
          </Link>
        )}
      </div>
      {connError && running && <div className="state warn">{connError}</div>}
      {stopError != null && <ErrorBox error={stopError} />}
      {state.error && <ErrorBox error={state.error} />}
      {ended === "killed" && (
        <div className="state warn" data-testid="run-killed">
          The process running this run is gone (killed, out of memory, crashed, or the machine restarted). Results up to
          its last interval are kept;{" "}
          {resumable ? (
            <>
              <span className="mono">keystorm run --resume {id}</span> continues it from its last checkpoint.
            </>
          ) : (
            <>its objects lived in the embedded target of that process, so it cannot be resumed: run the workload again.</>
          )}
        </div>
      )}
      <div className="cards">
        <div className="card" data-testid="live-phase">
          <div className="muted">Phase</div>
          <div className="big">{state.phase ? `${placeLabel(state.phase)} · ${state.phase.name}` : "starting…"}</div>
          <div className="muted">
            {state.position != null && state.phases ? `phase ${state.position + 1} of ${state.phases}` : ""}
          </div>
        </div>
        <div className="card">
          <div className="muted">Progress</div>
          <div className="progress" aria-label="phase progress">
            <div style={{ width: `${Math.round(barFraction * 100)}%` }} />
          </div>
          <div className="muted" data-testid="live-progress">
            {!running && status
              ? endedSummary(status, state)
              : state.progress == null
                ? "measuring the first second…"
                : `${fraction != null ? `${Math.round(fraction * 100)} %` : "end not known in advance"} · ${fmtDuration(state.progress.elapsed_s)}`}
          </div>
        </div>
        <div className="card">
          <div className="muted">Objects in the keyspace</div>
          <div className="big">{fmtCount(state.objects)}</div>
        </div>
        <div className="card">
          <div className="muted">Operations / errors in this phase</div>
          <div className="big">
            {fmtCount(state.progress?.ops)} / {fmtCount(state.progress?.errors)}
          </div>
        </div>
      </div>
      <LiveShards runId={id} running={running} />
      <LiveKeys state={state} />
      {state.cleanup && <CleanupLine cleanup={state.cleanup} />}
      {state.index.length > 0 && <LiveIndex state={state} />}
      <LiveEndpoints state={state} />
      {state.warnings.map((w, i) => (
        <div className="state warn" key={i}>
          {w}
        </div>
      ))}
      <div className="chart-grid">
        <div>
          <h3>Throughput (ops/s){shards ? " and index shards" : ""}</h3>
          <TimeChart
            testId="live-chart-ops"
            data={state.points}
            series={series.ops}
            unit="ops/s"
            right={shards}
            windows={windows}
            {...axis}
          />
        </div>
        <div>
          <h3>Bandwidth</h3>
          <TimeChart testId="live-chart-mib" data={state.points} series={series.mib} unit="MiB/s" {...axis} />
        </div>
        <div>
          <div className="title-row">
            <h3>Latency p50 / p99 / p99.9</h3>
            <label className="muted small">
              <input type="checkbox" checked={latencyLog} onChange={(e) => setLatencyLog(e.target.checked)} data-testid="live-latency-log" /> log
              scale
            </label>
          </div>
          <TimeChart
            testId="live-chart-latency"
            data={state.points}
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
            <TimeChart testId="live-chart-errors" data={state.points} series={series.errors} unit="errors/s" {...axis} />
          ) : (
            <div className="state empty">No errors so far.</div>
          )}
        </div>
      </div>
      {state.ops.length > 0 && (
        <HeatmapSection
          ops={state.ops}
          load={loadHeatmap}
          index={liveIndex}
          refreshMs={running ? HEATMAP_REFRESH_MS : undefined}
          span={domain}
        />
      )}
    </section>
  );
}
