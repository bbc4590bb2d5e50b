// Live run: the current phase, round and progress, its thresholds so far, per-operation
// throughput and latency over time, errors by class, and a stop button. Fed by the
// run's event stream (see useLiveRun); this page lays out what it holds.
import { useState } from "react";
import { Link, useParams } from "react-router-dom";
import { useAccess } from "../api/access";
import { api } from "../api/client";
import type { RunDetail, RunStatus } from "../api/types";
import { CleanupLine } from "../components/CleanupLine";
import { LiveCards } from "../components/LiveCards";
import { LiveCharts } from "../components/LiveCharts";
import { LiveEndpoints } from "../components/LiveEndpoints";
import { LiveShards } from "../components/LiveShards";
import { LiveThresholds } from "../components/LiveThresholds";
import { ErrorBox, StatusBadge } from "../components/states";
import { VerdictBadges } from "../components/VerdictBadges";
import { fmtCount } from "../lib/format";
import { keysLine } from "../lib/keys";
import { type LiveState, runningKeys } from "../lib/live";
import { useLiveRun } from "./useLiveRun";

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

/** Stops the run (it finishes its interval first); what went wrong if it could not. */
function useStopRun(id: string) {
  const [stopError, setStopError] = useState<unknown>(null);
  const [stopping, setStopping] = useState(false);
  const stop = async () => {
    setStopping(true);
    try {
      await api.stopRun(id);
    } catch (e) {
      setStopError(e);
      setStopping(false);
    }
  };
  return { stop, stopping, stopError };
}

/** The run's id and status, with a stop button while it runs; once it ended, its verdict
 * (when read) in place of the bare status, and a link to its results. */
function LiveTitle(props: { id: string; status?: RunStatus; detail: RunDetail | null; running: boolean; stop: () => void; stopping: boolean }) {
  const { id, status, detail, running, stop, stopping } = props;
  const access = useAccess();
  return (
    <div className="title-row">
      <h1>
        Live: <span className="mono">{id}</span>
      </h1>
      {!running && detail ? (
        <VerdictBadges verdict={detail.verdict} status={detail.info.status} />
      ) : (
        status && <StatusBadge status={status} />
      )}
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
  );
}

/** Why a run whose process died stopped sending events, and whether it can go on. */
function KilledRunNote({ id, resumable }: { id: string; resumable: boolean }) {
  return (
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
  );
}

export function LiveRunPage() {
  const { id = "" } = useParams();
  const { state, connError, ended, resumable, detail } = useLiveRun(id);
  const { stop, stopping, stopError } = useStopRun(id);
  const status = ended ?? state.status;
  const running = status === "running" || status === undefined;

  return (
    <section>
      <LiveTitle id={id} status={status} detail={detail} running={running} stop={stop} stopping={stopping} />
      {connError && running && <div className="state warn">{connError}</div>}
      {stopError != null && <ErrorBox error={stopError} />}
      {state.error && <ErrorBox error={state.error} />}
      {ended === "killed" && <KilledRunNote id={id} resumable={resumable} />}
      <LiveCards state={state} status={status} running={running} />
      <LiveShards runId={id} running={running} />
      <LiveKeys state={state} />
      <LiveThresholds thresholds={state.thresholds} />
      {state.cleanup && <CleanupLine cleanup={state.cleanup} />}
      {state.index.length > 0 && <LiveIndex state={state} />}
      <LiveEndpoints state={state} />
      {state.warnings.map((w, i) => (
        <div className="state warn" key={i} data-testid="live-warning">
          {w}
        </div>
      ))}
      <LiveCharts runId={id} state={state} running={running} />
    </section>
  );
}
