// Compare: two or more runs aligned by section, round, phase and operation (not by wall
// clock) — throughput across rounds overlaid (or normalised to the first run), latency
// distributions overlaid, and the % change of every run against the first. The page
// for "dynamic vs pre-sharded". The URL holds the whole view (runs, metric,
// normalisation, log scale, distribution), so a link opens the same page.
import { useQueries, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { Link } from "react-router-dom";
import { api } from "../api/client";
import type { IntegrityReport, RunDetail } from "../api/types";
import { hasIntegrity, integrityClean, integrityVerdict } from "../lib/integrity";
import { DistributionChart } from "../components/charts";
import { CompareRounds } from "../components/CompareRounds";
import { EndpointsComparison } from "../components/EndpointsComparison";
import { MarkerGlyph } from "../components/Marker";
import { markerOf, opColour } from "../lib/palette";
import { Empty, ErrorBox, Labels, Loading } from "../components/states";
import { VerdictBadges } from "../components/VerdictBadges";
import { DELTA_METRICS, type DeltaScope, type LagMetric, aggregate, fmtChange, lagNote, metricLabel, roundsOf, verdictOf } from "../lib/compare";
import { fmtLatency, fmtOpMiBs, fmtRate, movesPayload, openLoopBehind, openLoopText } from "../lib/format";
import { ninesOf } from "../lib/nines";
import { placeLabel, wholePhaseRows } from "../lib/rounds";
import { useCompareUrl } from "./useCompareUrl";

export { compareLegend } from "../components/CompareRounds";

function runLabel(d: RunDetail, i: number): string {
  const labels = Object.entries(d.info.labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  return `#${i + 1} ${labels || d.info.run_id}`;
}

function fmtMetric(unit: string, v: number, op: string): string {
  if (unit === "ops/s") return fmtRate(v);
  if (unit === "MiB/s") return fmtOpMiBs(op, v);
  if (unit === "µs") return fmtLatency(v);
  return String(v);
}

export function DeltaTable({ runs }: { runs: Array<{ label: string; detail: RunDetail }> }) {
  const rowsPerRun = runs.map((r) => wholePhaseRows(r.detail));
  const rounds = roundsOf(rowsPerRun);
  const [scope, setScope] = useState<DeltaScope>("all");
  const aggs = rowsPerRun.map((rows) => aggregate(rows, scope));
  const keys = [...aggs[0].keys()];
  return (
    <>
      <div className="title-row">
        <label className="inline-label">
          Rounds compared
          <select
            value={String(scope)}
            onChange={(e) => setScope(e.target.value === "all" ? "all" : Number(e.target.value))}
            aria-label="rounds compared"
            data-testid="delta-scope"
          >
            <option value="all">all rounds together (and the phases outside rounds)</option>
            {rounds.map((n) => (
              <option key={n} value={n}>
                round {n} only (exact values of that round)
              </option>
            ))}
          </select>
        </label>
      </div>
      {keys.length === 0 ? (
        <Empty title="The baseline has no rows here.">Pick another round, or all rounds.</Empty>
      ) : (
        <table className="grid" data-testid="delta-table">
          <thead>
            <tr>
              <th>Phase · op</th>
              <th>Metric</th>
              <th className="num">{runs[0].label} (baseline)</th>
              {runs.slice(1).map((r) => (
                <th className="num" key={r.label}>
                  {r.label} (change vs baseline)
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {keys.flatMap((k) =>
              DELTA_METRICS.map((m, j) => {
                const base = aggs[0].get(k);
                if (!base) return null;
                const baseValue = base[m.key] as number;
                return (
                  <tr key={`${k}/${m.key}`} className={j === 0 ? "group-start" : ""}>
                    <td>{j === 0 ? `${base.section === "round" ? "rounds" : base.section} · ${base.phase} · ${base.op}` : ""}</td>
                    <td>{metricLabel(m, scope, base.section)}</td>
                    <td className="num">
                      {fmtMetric(m.unit, baseValue, base.op)}
                      {base.mostlyLag[m.key as LagMetric] && (
                        <span className="delta muted" data-testid="delta-lag">
                          {" "}
                          (mostly the client's lag)
                        </span>
                      )}
                    </td>
                    {aggs.slice(1).map((a, i) => {
                      const other = a.get(k);
                      if (!other) return <td key={i} className="muted">not in this run</td>;
                      const value = other[m.key] as number;
                      // A bandwidth that does not apply (LIST, DELETE) has no change either.
                      if (m.unit === "MiB/s" && !movesPayload(base.op)) return <td key={i} className="num">–</td>;
                      const lag = lagNote(base, other, m.key);
                      if (lag)
                        return (
                          <td key={i} className="num" title={`change ${fmtChange(baseValue, value)}: not the store's`}>
                            {fmtMetric(m.unit, value, base.op)}{" "}
                            <span className="delta muted" data-testid="delta-lag">
                              ({lag})
                            </span>
                          </td>
                        );
                      return (
                        <td key={i} className={`num ${verdictOf(baseValue, value, m.better)}`}>
                          {fmtMetric(m.unit, value, base.op)} <span className="delta">({fmtChange(baseValue, value)})</span>
                        </td>
                      );
                    })}
                  </tr>
                );
              }),
            )}
          </tbody>
        </table>
      )}
    </>
  );
}

function Distributions(props: {
  runs: Array<{ label: string; detail: RunDetail }>;
  pick: number;
  setPick: (pick: number) => void;
}) {
  const { runs, pick, setPick } = props;
  const rows = runs[0].detail.summary?.rows ?? [];
  const options = rows.map((r) => ({ section: r.section, round: r.round ?? null, phase: r.phase, op: r.op }));
  const chosen = options[Math.min(pick, options.length - 1)];
  const results = useQueries({
    queries: runs.map((r) => ({
      queryKey: ["dist", r.detail.info.run_id, chosen],
      queryFn: () => api.distribution(r.detail.info.run_id, chosen),
      enabled: !!chosen,
      retry: false,
    })),
  });
  if (!chosen) return null;
  const lines = results.flatMap((res, i) =>
    res.data
      ? [
          {
            name: runs[i].label,
            colour: opColour(chosen.op),
            marker: markerOf(i),
            points: res.data.points.map((p) => ({ nines: ninesOf(p.percentile), ms: Math.max(p.latency_us, 1) / 1000 })),
          },
        ]
      : [],
  );
  return (
    <div>
      <div className="title-row">
        <h3>Latency distributions overlaid</h3>
        <select value={pick} onChange={(e) => setPick(Number(e.target.value))} aria-label="phase to compare" data-testid="compare-distribution">
          {options.map((o, i) => (
            <option key={i} value={i}>
              {placeLabel(o)} · {o.phase} · {o.op}
            </option>
          ))}
        </select>
      </div>
      {results.some((r) => r.isError) && <div className="muted">Some runs have no such phase × round × operation.</div>}
      <DistributionChart lines={lines} />
    </div>
  );
}

/** The runs compared, the oldest first (the baseline, whatever order they were picked
 * in), with their bucket index and integrity reports as they come. */
function useComparedRuns(ids: string[]) {
  const queries = useQueries({ queries: ids.map((id) => ({ queryKey: ["run", id], queryFn: () => api.run(id) })) });
  const indexes = useQueries({
    queries: ids.map((id) => ({ queryKey: ["index", id], queryFn: () => api.index(id), retry: false })),
  });
  const indexById = new Map(ids.map((id, i) => [id, indexes[i]?.data]));
  const integrities = useQueries({
    queries: ids.map((id) => ({ queryKey: ["integrity", id], queryFn: () => api.integrity(id), retry: false })),
  });
  const integrityById = new Map(ids.map((id, i) => [id, integrities[i]?.data]));
  const loaded = queries.every((q) => q.data);
  const runs = useMemo(
    () =>
      loaded
        ? queries
            .map((q) => q.data!)
            .sort((a, b) => a.info.started_at.localeCompare(b.info.started_at))
            .map((d, i) => ({ label: runLabel(d, i), detail: d }))
        : [],
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [loaded, ...queries.map((q) => q.dataUpdatedAt)],
  );
  return { runs, loaded, failed: queries.find((q) => q.isError), indexById, integrityById };
}

/** Fewer than two runs picked: how to pick them, or a link comparing the two latest. */
function PickRuns() {
  const runsList = useQuery({ queryKey: ["runs"], queryFn: api.runs });
  return (
    <section>
      <h1>Compare runs</h1>
      <Empty title="Pick two or more runs to compare.">
        Tick them in the <Link to="/runs">runs table</Link> and press Compare.
        {runsList.data && runsList.data.length >= 2 && (
          <div>
            Or compare the two latest:{" "}
            <Link to={`/compare?runs=${runsList.data[1].run_id},${runsList.data[0].run_id}`}>
              {runsList.data[1].run_id} vs {runsList.data[0].run_id}
            </Link>
          </div>
        )}
      </Empty>
    </section>
  );
}

/** The runs compared, each with its marker on the charts. */
function ComparedRunsTable({ runs }: { runs: Array<{ label: string; detail: RunDetail }> }) {
  return (
    <table className="grid compact">
      <thead>
        <tr>
          <th>#</th>
          <th>Run</th>
          <th>Workload</th>
          <th>Labels</th>
          <th>Endpoint</th>
          <th>Verdict</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r, i) => (
          <tr key={r.detail.info.run_id} data-testid="compare-run">
            <td>
              <MarkerGlyph shape={markerOf(i)} /> {i + 1}
            </td>
            <td>
              <Link to={`/runs/${r.detail.info.run_id}`}>{r.detail.info.run_id}</Link>
            </td>
            <td>{r.detail.info.workload}</td>
            <td>
              <Labels labels={r.detail.info.labels} />
            </td>
            <td>{r.detail.info.endpoint}</td>
            <td>
              <VerdictBadges verdict={r.detail.verdict} status={r.detail.info.status} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ComparePage() {
  const { ids, rounds, pick, setPick } = useCompareUrl();
  const { runs, loaded, failed, indexById, integrityById } = useComparedRuns(ids);
  if (ids.length < 2) return <PickRuns />;
  if (failed) return <ErrorBox error={failed.error} hint={<Link to="/runs">Back to the runs</Link>} />;
  if (!loaded) return <Loading what="the runs" />;
  return (
    <section data-testid="compare-page">
      <h1>Compare {runs.length} runs</h1>
      <ComparedRunsTable runs={runs} />
      <BehindNotes runs={runs} />
      <IntegrityNotes runs={runs.map((r) => ({ label: r.label, integrity: integrityById.get(r.detail.info.run_id) }))} />
      <CompareRounds runs={runs} indexById={indexById} view={rounds} />
      <Distributions runs={runs} pick={pick} setPick={setPick} />
      <h2>Change against {runs[0].label}</h2>
      <p className="muted">
        All rounds together: throughput is total operations / total measured time and latency is the worst round's
        (percentiles are never averaged); pick one round for its exact values. Green is better, red is worse; a change
        from a zero baseline reads "from 0".
      </p>
      <DeltaTable runs={runs} />
      <EndpointsComparison runs={runs.map((r) => ({ label: r.label, rows: wholePhaseRows(r.detail) }))} />
    </section>
  );
}

/** Each compared run's integrity verdict, when any of them verified or lost something:
 * a faster run that corrupted or lost objects is no better. */
export function IntegrityNotes({ runs }: { runs: Array<{ label: string; integrity?: IntegrityReport | null }> }) {
  if (!runs.some((r) => hasIntegrity(r.integrity))) return null;
  return (
    <table className="grid compact" data-testid="compare-integrity">
      <thead>
        <tr>
          <th>Run</th>
          <th>Integrity</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((r) => {
          const report = r.integrity;
          const clean = !report || integrityClean(report);
          return (
            <tr key={r.label} data-testid="compare-integrity-row">
              <td>{r.label}</td>
              <td className={clean ? "" : "bad"}>{report ? integrityVerdict(report) : "–"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Open-loop phases of the runs compared that fell behind their rate, one sentence each
 * (the run's own "fell behind" findings: what was asked and sent, how late requests
 * left, whose side that was on): a throughput compared there is not what was asked. */
export function BehindNotes({ runs }: { runs: Array<{ label: string; detail: RunDetail }> }) {
  const notes = runs.flatMap((r) => {
    const findings = r.detail.verdict?.findings.filter((f) => f.kind === "fell_behind").map((f) => `${r.label} · ${f.text}`);
    if (findings) return findings;
    const seen = new Set<string>();
    return wholePhaseRows(r.detail).flatMap((row) => {
      const key = `${row.section}/${row.round}/${row.phase}`;
      if (!row.open_loop || !openLoopBehind(row.open_loop) || seen.has(key)) return [];
      seen.add(key);
      return [`${r.label} · ${placeLabel(row)} · ${row.phase}: sent ${openLoopText(row.open_loop)}`];
    });
  });
  if (!notes.length) return null;
  return (
    <div className="state warn" data-testid="behind-notes">
      <strong>Open-loop phases that fell behind their rate</strong>:
      <ul>
        {notes.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
    </div>
  );
}
