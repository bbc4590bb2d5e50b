// Runs compared, drawn from data however it came: the compare page fetches it from the
// API, the offline report of a comparison (`keystorm report BASE NEW…`) reads it from
// its own file — one component tree, so the two cannot drift apart. The runs table,
// open-loop and integrity notes, the judged changes, throughput across rounds, sweeps'
// and searches' curves overlaid, latency distributions overlaid and endpoints side by side.
import { useQueries } from "@tanstack/react-query";
import type { ReactNode } from "react";
import type { Comparison, Distribution, IndexReport, IntegrityReport, RunDetail } from "../api/types";
import { hasIntegrity, integrityClean, integrityVerdict } from "../lib/integrity";
import { openLoopBehind, openLoopText } from "../lib/format";
import { markerOf, opColour } from "../lib/palette";
import { ninesOf } from "../lib/nines";
import { placeLabel, wholePhaseRows } from "../lib/rounds";
import type { RoundsView } from "../lib/verdicts";
import { DistributionChart } from "./charts";
import { CompareRounds } from "./CompareRounds";
import { CompareVerdicts, VerdictControls, comparisonHasRounds } from "./CompareVerdicts";
import { EndpointsComparison } from "./EndpointsComparison";
import { SweepsComparison } from "./SweepsComparison";
import { MarkerGlyph } from "./Marker";
import { ErrorBox, Labels, Loading } from "./states";
import { VerdictBadges } from "./VerdictBadges";

/** A run compared: its label on the page (`#1 labels`) and its data. */
export interface ComparedRun {
  label: string;
  detail: RunDetail;
}

/** One phase × round × operation of a run, as a distribution is asked for. */
export interface DistributionChoice {
  section: string;
  round: number | null;
  phase: string;
  op: string;
}

/** How the throughput-across-rounds charts are drawn (the page keeps it in its
 * address, the report in memory). */
export type RoundsChartView = Parameters<typeof CompareRounds>[0]["view"];

/** How the judged changes are shown: the noise floor (fixed in a report) and whether
 * rounds are judged each on its own or together. */
export interface JudgedView {
  noiseFloor: number;
  /** Absent where the floor cannot change (a report: it was judged once). */
  setNoiseFloor?: (floor: number) => void;
  roundsView: RoundsView;
  setRoundsView: (view: RoundsView) => void;
}

/** The judged comparison as it stands: being asked for, answered, or refused. */
export interface JudgedState {
  comparison?: Comparison;
  error?: unknown;
  fetching: boolean;
}

export function runLabel(d: RunDetail, i: number): string {
  const labels = Object.entries(d.info.labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  return `#${i + 1} ${labels || d.info.run_id}`;
}

function Distributions(props: {
  runs: ComparedRun[];
  pick: number;
  setPick: (pick: number) => void;
  load: (run: number, choice: DistributionChoice) => Promise<Distribution>;
}) {
  const { runs, pick, setPick, load } = props;
  const rows = runs[0].detail.summary?.rows ?? [];
  const options = rows.map((r) => ({ section: r.section as string, round: r.round ?? null, phase: r.phase, op: r.op as string }));
  const chosen = options[Math.min(pick, options.length - 1)];
  const results = useQueries({
    queries: runs.map((r, i) => ({
      queryKey: ["dist", r.detail.info.run_id, i, chosen],
      queryFn: () => load(i, chosen),
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

/** The runs compared, each with its marker on the charts; `runLink` makes a run's id a
 * link (the page's to the run page; a report has none). */
function ComparedRunsTable({ runs, runLink }: { runs: ComparedRun[]; runLink?: (runId: string) => ReactNode }) {
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
          <tr key={`${i}-${r.detail.info.run_id}`} data-testid="compare-run">
            <td>
              <MarkerGlyph shape={markerOf(i)} /> {i + 1}
            </td>
            <td>{runLink ? runLink(r.detail.info.run_id) : r.detail.info.run_id}</td>
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

/** The runs' changes against the first, as the server judged them. */
function JudgedChanges(props: { runs: ComparedRun[]; judged: JudgedState; view: JudgedView }) {
  const { runs, judged, view } = props;
  const byId = new Map(runs.map((r) => [r.detail.info.run_id, r]));
  const source = {
    label: (id: string) => byId.get(id)?.label ?? id,
    rows: (id: string) => {
      const run = byId.get(id);
      return run ? wholePhaseRows(run.detail) : [];
    },
  };
  return (
    <section data-testid="compare-verdicts" aria-busy={judged.fetching}>
      <h2>Changes against {runs[0].label}, judged</h2>
      <VerdictControls {...view} withRounds={comparisonHasRounds(judged.comparison)} />
      {judged.error ? (
        <ErrorBox error={judged.error} />
      ) : judged.comparison ? (
        <CompareVerdicts comparison={judged.comparison} source={source} view={view.roundsView} />
      ) : (
        <Loading what="the verdicts" />
      )}
    </section>
  );
}

/** Everything the compare page and a comparison's report show, the base first. */
export function CompareView(props: {
  runs: ComparedRun[];
  indexById: Map<string, IndexReport | undefined>;
  integrityById: Map<string, IntegrityReport | null | undefined>;
  judged: JudgedState;
  judgedView: JudgedView;
  roundsView: RoundsChartView;
  pick: number;
  setPick: (pick: number) => void;
  /** The latency distribution of one run (by its place in `runs`) and phase. */
  loadDistribution: (run: number, choice: DistributionChoice) => Promise<Distribution>;
  runLink?: (runId: string) => ReactNode;
}) {
  const { runs } = props;
  return (
    <section data-testid="compare-page">
      <h1>Compare {runs.length} runs</h1>
      <ComparedRunsTable runs={runs} runLink={props.runLink} />
      <BehindNotes runs={runs} />
      <IntegrityNotes runs={runs.map((r) => ({ label: r.label, integrity: props.integrityById.get(r.detail.info.run_id) }))} />
      <JudgedChanges runs={runs} judged={props.judged} view={props.judgedView} />
      <CompareRounds runs={runs} indexById={props.indexById} view={props.roundsView} />
      <SweepsComparison runs={runs} />
      <Distributions runs={runs} pick={props.pick} setPick={props.setPick} load={props.loadDistribution} />
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
export function BehindNotes({ runs }: { runs: ComparedRun[] }) {
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
