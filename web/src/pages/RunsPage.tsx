// Runs: every run in the results folder, filterable by label, status and the bucket it
// worked on (kept in the address as `?bucket=`); pick two or more to compare them round
// by round.
import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router-dom";
import { api } from "../api/client";
import type { RunInfo } from "../api/types";
import { Empty, ErrorBox, Labels, Loading } from "../components/states";
import { VerdictBadges } from "../components/VerdictBadges";
import { fmtDuration, fmtLatency, fmtRate, fmtTime } from "../lib/format";

/**
 * The runs that match the label text (in the id, workload or labels), the status and
 * the bucket (one the run wrote, or read from a listing or a key file; as the API's
 * `?bucket=` chooses them). An empty filter matches every run.
 */
export function filterRuns(runs: RunInfo[], labelText: string, status: string, bucket = ""): RunInfo[] {
  const needle = labelText.trim().toLowerCase();
  return runs.filter((r) => {
    if (status && r.status !== status) return false;
    if (bucket && !(r.buckets ?? []).includes(bucket)) return false;
    if (!needle) return true;
    const hay = [r.run_id, r.workload, ...Object.entries(r.labels).map(([k, v]) => `${k}=${v}`)].join(" ").toLowerCase();
    return hay.includes(needle);
  });
}

/** Every bucket the runs worked on, sorted, with `also` (the one filtered on) among them. */
export function bucketsOf(runs: RunInfo[], also = ""): string[] {
  const all = new Set(runs.flatMap((r) => r.buckets ?? []));
  if (also) all.add(also);
  return [...all].sort();
}

/** The bucket filter, kept in the address as `?bucket=` (replacing the history entry). */
function useBucketParam(): [string, (bucket: string) => void] {
  const [params, setParams] = useSearchParams();
  const bucket = params.get("bucket") ?? "";
  const setBucket = (b: string) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (b) next.set("bucket", b);
        else next.delete("bucket");
        return next;
      },
      { replace: true },
    );
  return [bucket, setBucket];
}

export function RunsTable({ runs }: { runs: RunInfo[] }) {
  const [label, setLabel] = useState("");
  const [status, setStatus] = useState("");
  const [bucket, setBucket] = useBucketParam();
  const buckets = useMemo(() => bucketsOf(runs, bucket), [runs, bucket]);
  const [selected, setSelected] = useState<string[]>([]);
  const navigate = useNavigate();
  const shown = useMemo(() => filterRuns(runs, label, status, bucket), [runs, label, status, bucket]);
  const toggle = (id: string) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id]));

  return (
    <>
      <div className="toolbar">
        <input
          placeholder="Filter by label, workload or id (e.g. bucket=presharded)"
          value={label}
          onChange={(e) => setLabel(e.target.value)}
          aria-label="filter by label"
          data-testid="runs-filter"
        />
        <select value={status} onChange={(e) => setStatus(e.target.value)} aria-label="filter by status">
          <option value="">any status</option>
          {["running", "completed", "interrupted", "aborted", "failed", "killed"].map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <select value={bucket} onChange={(e) => setBucket(e.target.value)} aria-label="filter by bucket" data-testid="runs-bucket-filter">
          <option value="">any bucket</option>
          {buckets.map((b) => (
            <option key={b} value={b}>
              bucket {b}
            </option>
          ))}
        </select>
        <button
          data-testid="compare-button"
          disabled={selected.length < 2}
          title={selected.length < 2 ? "Select two or more runs to compare" : ""}
          onClick={() => navigate(`/compare?runs=${selected.map(encodeURIComponent).join(",")}`)}
        >
          Compare {selected.length >= 2 ? `${selected.length} runs` : ""}
        </button>
      </div>
      {shown.length === 0 ? (
        <Empty title="No run matches the filter.">Clear the filter to see all {runs.length} runs.</Empty>
      ) : (
        <table className="grid" data-testid="runs-table">
          <thead>
            <tr>
              <th></th>
              <th>Run</th>
              <th>Workload</th>
              <th>Status</th>
              <th>Labels</th>
              <th>Started</th>
              <th>Duration</th>
              <th>Throughput and p99 per operation</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <RunRow key={r.run_id} run={r} selected={selected.includes(r.run_id)} onToggle={() => toggle(r.run_id)} />
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** One run: a box to pick it for comparing, its link (live while it runs), what it
 * worked on, how it stands, and its headline figures. */
function RunRow({ run: r, selected, onToggle }: { run: RunInfo; selected: boolean; onToggle: () => void }) {
  return (
    <tr data-testid={`run-row-${r.run_id}`}>
      <td>
        <input type="checkbox" aria-label={`select ${r.run_id}`} checked={selected} onChange={onToggle} />
      </td>
      <td>
        <Link to={r.status === "running" ? `/runs/${r.run_id}/live` : `/runs/${r.run_id}`}>{r.run_id}</Link>
      </td>
      <td>
        {r.workload}
        {(r.buckets ?? []).length > 0 && (
          <div className="muted small mono" data-testid="run-buckets" title="the buckets this run worked on">
            {r.buckets.join(", ")}
          </div>
        )}
      </td>
      <td>
        <VerdictBadges verdict={r.verdict} status={r.status} />
      </td>
      <td>
        <Labels labels={r.labels} />
      </td>
      <td className="nowrap">{fmtTime(r.started_at)}</td>
      <td className="num">{fmtDuration(r.duration_s)}</td>
      <td>
        {r.headline.length === 0 && (
          <span className="muted" data-testid="no-headline">
            {noHeadline(r.status, r.error)}
          </span>
        )}
        {r.headline.map((h) => (
          <span key={h.op} className="headline">
            <b>{h.op}</b> {fmtRate(h.ops_per_sec)}, p99 {fmtLatency(h.p99_us)}
          </span>
        ))}
      </td>
    </tr>
  );
}

export function RunsPage() {
  const q = useQuery({ queryKey: ["runs"], queryFn: api.runs, refetchInterval: 5000 });
  return (
    <section>
      <h1>Runs</h1>
      {q.isPending ? (
        <Loading what="runs" />
      ) : q.isError ? (
        <ErrorBox error={q.error} hint="Check that keystorm serve is running, then reload." />
      ) : q.data.length === 0 ? (
        <Empty title="No runs yet.">
          Start one from <Link to="/workloads">Workloads</Link>, or run <code>keystorm run workloads/demo.yaml</code> with the
          same results folder.
        </Empty>
      ) : (
        <RunsTable runs={q.data} />
      )}
    </section>
  );
}

/**
 * What the throughput cell of a run with no finished phase says instead: how it ended
 * and, when it recorded one, why.
 */
export function noHeadline(status: string, error?: string | null): string {
  const why = error ? `: ${error}` : "";
  switch (status) {
    case "running":
      return "no phase finished yet";
    case "killed":
      return "killed before a phase finished";
    case "failed":
    case "aborted":
    case "interrupted":
      return `${status} before a phase finished${why}`;
    default:
      return "no phase finished";
  }
}
