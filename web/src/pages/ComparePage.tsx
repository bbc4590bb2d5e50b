// Compare: two or more runs aligned by section, round, phase and operation (not by wall
// clock) — throughput across rounds overlaid (or normalised to the first run), latency
// distributions overlaid, and every run's changes against the first as the server
// judged them (each with its interval and a verdict against the noise floor). The page
// for "dynamic vs pre-sharded". The URL holds the whole view (runs, metric,
// normalisation, log scale, distribution, noise floor, rounds judged), so a link opens
// the same page.
import { keepPreviousData, useQueries, useQuery } from "@tanstack/react-query";
import { useMemo } from "react";
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
import { CompareVerdicts, VerdictControls, comparisonHasRounds } from "../components/CompareVerdicts";
import { openLoopBehind, openLoopText } from "../lib/format";
import type { RoundsView } from "../lib/verdicts";
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

/** The runs' changes against the first, judged by the server with the noise floor
 * asked (a new floor asks again; the last answer stays while it comes). */
function JudgedChanges(props: {
  runs: Array<{ label: string; detail: RunDetail }>;
  noiseFloor: number;
  setNoiseFloor: (floor: number) => void;
  roundsView: RoundsView;
  setRoundsView: (view: RoundsView) => void;
}) {
  const { runs, noiseFloor } = props;
  const [base, ...news] = runs.map((r) => r.detail.info.run_id);
  const judged = useQuery({
    queryKey: ["compare", base, news, noiseFloor],
    queryFn: () => api.compare(base, news, noiseFloor),
    placeholderData: keepPreviousData,
    retry: false,
  });
  const byId = new Map(runs.map((r) => [r.detail.info.run_id, r]));
  const source = {
    label: (id: string) => byId.get(id)?.label ?? id,
    rows: (id: string) => {
      const run = byId.get(id);
      return run ? wholePhaseRows(run.detail) : [];
    },
  };
  return (
    <section data-testid="compare-verdicts" aria-busy={judged.isFetching}>
      <h2>Changes against {runs[0].label}, judged</h2>
      <VerdictControls {...props} withRounds={comparisonHasRounds(judged.data)} />
      {judged.isError ? (
        <ErrorBox error={judged.error} />
      ) : judged.data ? (
        <CompareVerdicts comparison={judged.data} source={source} view={props.roundsView} />
      ) : (
        <Loading what="the verdicts" />
      )}
    </section>
  );
}

export function ComparePage() {
  const { ids, rounds, pick, setPick, judged } = useCompareUrl();
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
      <JudgedChanges runs={runs} {...judged} />
      <CompareRounds runs={runs} indexById={indexById} view={rounds} />
      <Distributions runs={runs} pick={pick} setPick={setPick} />
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
