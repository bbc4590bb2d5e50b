// Run detail: a finished (or running) run's results from the server (drawn as the
// offline report draws them), with label and note editing, exports and deletion.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { type MouseEvent, useCallback, useState } from "react";
import { Link, useNavigate, useParams } from "react-router-dom";
import { useAccess } from "../api/access";
import { api } from "../api/client";
import { readToken } from "../api/token";
import type { RunDetail } from "../api/types";
import type { PhaseChoice } from "../components/RunDetailView";
import { RunReport } from "../components/RunReport";
import { Empty, ErrorBox, Loading } from "../components/states";

export function parseLabels(text: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const part of text.split(/[,\n]/).map((p) => p.trim()).filter(Boolean)) {
    const i = part.indexOf("=");
    if (i <= 0) return `"${part}" is not key=value`;
    out[part.slice(0, i).trim()] = part.slice(i + 1).trim();
  }
  return out;
}

function Annotations({ detail }: { detail: RunDetail }) {
  const id = detail.info.run_id;
  const qc = useQueryClient();
  const [labels, setLabels] = useState(
    Object.entries(detail.info.labels)
      .map(([k, v]) => `${k}=${v}`)
      .join(", "),
  );
  const [notes, setNotes] = useState(detail.info.notes);
  const [msg, setMsg] = useState<unknown>(null);
  const access = useAccess();
  const save = async () => {
    const parsed = parseLabels(labels);
    if (typeof parsed === "string") {
      setMsg(parsed);
      return;
    }
    try {
      await api.editRun(id, { labels: parsed, notes });
      setMsg("Saved.");
      await qc.invalidateQueries({ queryKey: ["run", id] });
    } catch (e) {
      setMsg(e);
    }
  };
  return (
    <div className="annotations">
      <label>
        Labels (key=value, comma separated)
        <input value={labels} onChange={(e) => setLabels(e.target.value)} data-testid="labels-input" />
      </label>
      <label>
        Notes
        <textarea value={notes} onChange={(e) => setNotes(e.target.value)} rows={2} data-testid="notes-input" />
      </label>
      <button onClick={save} disabled={!access.canChange} title={access.why} data-testid="save-annotations">
        Save labels and notes
      </button>
      {msg != null && (typeof msg === "string" ? <span className="muted">{msg}</span> : <ErrorBox error={msg} />)}
    </div>
  );
}

/** The run's results from the server, read again every few seconds while it runs, and
 * how its phases' own data (intervals, distributions, heatmaps) is read. */
function useRunResults(id: string) {
  const run = useQuery({
    queryKey: ["run", id],
    queryFn: () => api.run(id),
    refetchInterval: (query) => (query.state.data?.info.status === "running" ? 3000 : false),
  });
  const running = run.data?.info.status === "running";
  const index = useQuery({
    queryKey: ["index", id],
    queryFn: () => api.index(id),
    refetchInterval: running ? 3000 : false,
    retry: false,
  });
  const listings = useQuery({
    queryKey: ["listings", id],
    queryFn: () => api.listings(id),
    refetchInterval: running ? 3000 : false,
    retry: false,
  });
  const integrity = useQuery({
    queryKey: ["integrity", id],
    queryFn: () => api.integrity(id),
    refetchInterval: running ? 3000 : false,
    retry: false,
  });
  const endpoints = useQuery({
    queryKey: ["endpoints", id],
    queryFn: () => api.endpoints(id),
    refetchInterval: running ? 3000 : false,
    retry: false,
  });
  const timeline = useQuery({
    queryKey: ["timeline", id],
    queryFn: () => api.timeline(id),
    refetchInterval: running ? 3000 : false,
    retry: false,
  });
  const loadIntervals = useCallback(
    (c: PhaseChoice) => api.intervals(id, { section: c.section, round: c.round, phase: c.phase }),
    [id],
  );
  const loadDistribution = useCallback((c: PhaseChoice) => api.distribution(id, c), [id]);
  const loadHeatmap = useCallback((op: string) => api.heatmap(id, op), [id]);
  const loadPhaseHeatmap = useCallback((c: PhaseChoice) => api.heatmap(id, c.op, c), [id]);
  return {
    run,
    reports: { index: index.data, listings: listings.data, integrity: integrity.data, endpoints: endpoints.data, timeline: timeline.data },
    loaders: { loadIntervals, loadDistribution, loadHeatmap, loadPhaseHeatmap },
  };
}

export function RunDetailPage() {
  const { id = "" } = useParams();
  const { run, reports, loaders } = useRunResults(id);
  if (run.isPending) return <Loading what="the run" />;
  if (run.isError) return <ErrorBox error={run.error} hint={<Link to="/runs">Back to the runs</Link>} />;
  const detail = run.data;
  return (
    <section data-testid="run-detail">
      <RunReport
        data={{ detail, ...reports }}
        loadIntervals={loaders.loadIntervals}
        loadDistribution={loaders.loadDistribution}
        loadHeatmap={loaders.loadHeatmap}
        loadPhaseHeatmap={loaders.loadPhaseHeatmap}
        headerExtra={
          detail.info.status === "running" ? (
            <Link className="button" to={`/runs/${id}/live`}>
              Watch live
            </Link>
          ) : null
        }
        empty={<NoPhaseYet status={detail.info.status} error={detail.info.error} />}
      >
        <Annotations detail={detail} />
        <ExportsAndDelete id={id} detail={detail} />
      </RunReport>
    </section>
  );
}

/** The run's files to download, and a button deleting its results (not while it runs). */
function ExportsAndDelete({ id, detail }: { id: string; detail: RunDetail }) {
  const navigate = useNavigate();
  const [deleteError, setDeleteError] = useState<unknown>(null);
  const [exportError, setExportError] = useState<unknown>(null);
  const access = useAccess();
  const remove = async () => {
    if (!window.confirm(`Delete the results of ${id}? This removes its folder for good.`)) return;
    try {
      await api.deleteRun(id);
      navigate("/runs");
    } catch (e) {
      setDeleteError(e);
    }
  };
  // A link cannot send the tab's token: with one, the file is fetched with it.
  const exportWithToken = (e: MouseEvent, file: string) => {
    if (!readToken()) return;
    e.preventDefault();
    setExportError(null);
    api.downloadExport(id, file).catch(setExportError);
  };
  return (
    <>
      <div className="exports">
        Export:{" "}
        {["summary.csv", "intervals.csv", "histograms.hlog", "report.html"].map((f) => (
          <a key={f} href={api.exportUrl(id, f)} download onClick={(e) => exportWithToken(e, f)} data-testid={`export-${f}`}>
            {f}
          </a>
        ))}
        <button
          className="danger small"
          onClick={remove}
          disabled={!access.canChange || detail.info.status === "running"}
          title={access.why}
          data-testid="delete-run"
        >
          Delete run
        </button>
      </div>
      {deleteError != null && <ErrorBox error={deleteError} />}
      {exportError != null && <ErrorBox error={exportError} />}
    </>
  );
}

/** A run with no finished phase: still going, or how it ended and why. */
export function NoPhaseYet(props: { status: string; error?: string | null }) {
  if (props.status === "running") {
    return <Empty title="No phase has finished yet.">Results appear here as each phase ends.</Empty>;
  }
  return (
    <Empty title={`The run ${props.status === "killed" ? "was killed" : props.status} before a phase finished.`}>
      {props.error ? <span data-testid="run-error">{props.error}</span> : "It recorded no reason."}
    </Empty>
  );
}
