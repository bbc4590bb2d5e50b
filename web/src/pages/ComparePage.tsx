// Compare: two or more runs aligned by section, round, phase and operation (not by wall
// clock) — throughput across rounds overlaid (or normalised to the first run), latency
// distributions overlaid, and the % change of every run against the first. The page
// for "dynamic vs pre-sharded". The URL holds the whole view (runs, metric,
// normalisation, log scale, distribution), so a link opens the same page.
import { useQueries, useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import { Link, useSearchParams } from "react-router-dom";
import { api } from "../api/client";
import type { IndexReport, IntegrityReport, RunDetail } from "../api/types";
import { hasIntegrity, integrityClean, integrityVerdict } from "../lib/integrity";
import type { LegendGroup } from "../components/SeriesLegend";
import { DistributionChart, RoundsChart, type RightAxis, MetricSelect } from "../components/charts";
import { EndpointsComparison } from "../components/EndpointsComparison";
import { MarkerGlyph } from "../components/Marker";
import { LABEL_COLOUR, SHARD_COLOUR, dashOf, markerOf, opColour } from "../lib/palette";
import { Empty, ErrorBox, Labels, Loading } from "../components/states";
import {
  DELTA_METRICS,
  type DeltaScope,
  aggregate,
  fmtChange,
  metricLabel,
  comparePanels,
  normaliseOverlay,
  roundsOf,
  verdictOf,
} from "../lib/compare";
import { type RoundMarkSpec, mergeByX, overlayShards, roundMarkSpecs, roundMarks } from "../lib/bucket-index";
import { fmtLatency, fmtOpMiBs, fmtRate, movesPayload, openLoopBehind, openLoopText } from "../lib/format";
import { ninesOf } from "../lib/nines";
import { METRICS, metricDash, placeLabel, wholePhaseRows } from "../lib/rounds";

function runLabel(d: RunDetail, i: number): string {
  const labels = Object.entries(d.info.labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  return `#${i + 1} ${labels || d.info.run_id}`;
}

/** Each run's shard line (grey, in the run's marker) and reshard / stall rounds, for
 * the overlaid rounds charts. */
function runsIndexOverlay(runs: Array<{ label: string; detail: RunDetail; index?: IndexReport }>): {
  data: Array<Record<string, number>>;
  right?: RightAxis;
  marks: RoundMarkSpec[];
} {
  const tagged = runs.map((r, i) => ({ ...r, tag: `#${i + 1}`, rows: r.detail.summary?.rows ?? [] }));
  const shards = overlayShards(tagged);
  const marks = tagged.flatMap((run, i) =>
    roundMarkSpecs(roundMarks(run.index, run.rows, run.detail.manifest.started_at), { row: i, tag: run.tag, label: run.label }),
  );
  const series = shards.series.map((s) => ({
    key: s.key,
    name: s.name,
    colour: SHARD_COLOUR,
    dash: dashOf(s.run),
    marker: markerOf(s.run),
    width: 5,
    opacity: 0.35,
  }));
  return { data: shards.data, right: series.length ? { unit: "index shards", series } : undefined, marks };
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
                    <td className="num">{fmtMetric(m.unit, baseValue, base.op)}</td>
                    {aggs.slice(1).map((a, i) => {
                      const other = a.get(k);
                      if (!other) return <td key={i} className="muted">not in this run</td>;
                      const value = other[m.key] as number;
                      // A bandwidth that does not apply (LIST, DELETE) has no change either.
                      if (m.unit === "MiB/s" && !movesPayload(base.op)) return <td key={i} className="num">–</td>;
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

export function ComparePage() {
  const [params, setParams] = useSearchParams();
  const ids = (params.get("runs") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  // The view opens as the URL says; each change shows at once and is written back to
  // the URL (so a link opens the same view).
  const [metric, setMetric] = useState(() => {
    const wanted = params.get("metric") ?? "";
    return wanted in METRICS ? wanted : "ops_per_sec";
  });
  const [normalised, setNormalised] = useState(() => params.get("normalise") === "1");
  // Latency reads best on a log scale (one slow round does not flatten the rest).
  const [latencyLog, setLatencyLog] = useState(() => params.get("log") !== "0");
  const [pick, setPick] = useState(() => Math.max(0, Number(params.get("dist") ?? 0) || 0));
  useEffect(() => {
    const next = new URLSearchParams(params);
    const put = (key: string, value: string | null) => (value == null ? next.delete(key) : next.set(key, value));
    put("metric", metric === "ops_per_sec" ? null : metric);
    put("normalise", normalised ? "1" : null);
    put("log", latencyLog ? null : "0");
    put("dist", pick ? String(pick) : null);
    // Written only when it differs, so writing it does not come round again.
    if (next.toString() !== params.toString()) setParams(next, { replace: true });
  }, [metric, normalised, latencyLog, pick, params, setParams]);
  const queries = useQueries({ queries: ids.map((id) => ({ queryKey: ["run", id], queryFn: () => api.run(id) })) });
  const indexes = useQueries({
    queries: ids.map((id) => ({ queryKey: ["index", id], queryFn: () => api.index(id), retry: false })),
  });
  const indexById = new Map(ids.map((id, i) => [id, indexes[i]?.data]));
  const integrities = useQueries({
    queries: ids.map((id) => ({ queryKey: ["integrity", id], queryFn: () => api.integrity(id), retry: false })),
  });
  const integrityById = new Map(ids.map((id, i) => [id, integrities[i]?.data]));
  const runsList = useQuery({ queryKey: ["runs"], queryFn: api.runs, enabled: ids.length < 2 });
  const loaded = queries.every((q) => q.data);
  const runs = useMemo(
    // The oldest run is the baseline, whatever order the runs were picked in.
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

  if (ids.length < 2) {
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
  const failed = queries.find((q) => q.isError);
  if (failed) return <ErrorBox error={failed.error} hint={<Link to="/runs">Back to the runs</Link>} />;
  if (!loaded) return <Loading what="the runs" />;
  const m = METRICS[metric];
  const panels = comparePanels(
    runs.map((r) => ({ id: r.detail.info.run_id, label: r.label, rows: wholePhaseRows(r.detail) })),
    m.get,
  ).map((p) => ({ ...p, overlay: normalised ? normaliseOverlay(p.overlay) : p.overlay }));
  const index = runsIndexOverlay(runs.map((r) => ({ ...r, index: indexById.get(r.detail.info.run_id) })));
  return (
    <section data-testid="compare-page">
      <h1>Compare {runs.length} runs</h1>
      <table className="grid compact">
        <thead>
          <tr>
            <th>#</th>
            <th>Run</th>
            <th>Workload</th>
            <th>Labels</th>
            <th>Endpoint</th>
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
            </tr>
          ))}
        </tbody>
      </table>
      <BehindNotes runs={runs} />
      <IntegrityNotes runs={runs.map((r) => ({ label: r.label, integrity: integrityById.get(r.detail.info.run_id) }))} />
      <div className="title-row">
        <h2>
          {m.label} across rounds{normalised ? ` (× ${runs[0].label})` : ""}
        </h2>
        <MetricSelect value={metric} onChange={setMetric} label="compare metric" />
        <label className="muted">
          <input
            type="checkbox"
            checked={normalised}
            onChange={(e) => setNormalised(e.target.checked)}
            data-testid="normalise"
          />{" "}
          normalise to {runs[0].label}
        </label>
        {m.unit === "ms" && !normalised && (
          <label className="muted">
            <input type="checkbox" checked={latencyLog} onChange={(e) => setLatencyLog(e.target.checked)} data-testid="compare-latency-log" /> log scale
          </label>
        )}
      </div>
      <p className="muted">
        One chart per round phase: colour is the operation, the marker is the run (see the table above)
        {m.percentile ? `, and the dash is ${m.percentile}'s on every chart` : ""}.
        {index.right && " The wide pale step lines are each run's bucket index shards at each round's end (right axis)."}
        {index.marks.length > 0 && " Labels above a chart mark the rounds in which a run's bucket was resharded or its writes stalled; hover for details."}
      </p>
      <div className="chart-grid" data-testid="compare-panels">
        {panels.map((p) => (
          <div key={p.phase} data-testid="compare-panel" data-phase={p.phase}>
            <h3>{p.phase}</h3>
            <RoundsChart
              data={mergeByX("round", p.overlay.data, index.data)}
              unit={normalised ? `× ${runs[0].label}` : m.unit}
              height={260}
              fullMarkLabels={10}
              right={index.right}
              marks={index.marks}
              log={!normalised && m.unit === "ms" && latencyLog}
              series={p.overlay.series.map((s) => ({
                key: s.name,
                colour: opColour(s.op),
                dash: metricDash(m),
                marker: markerOf(s.run),
              }))}
              legend={compareLegend(p.overlay.series, runs, metricDash(m))}
            />
          </div>
        ))}
      </div>
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

/** A compare chart's legend: each operation once (its colour, the metric's dash), then
 * each run once (its marker). */
export function compareLegend(
  series: Array<{ name: string; run: number; phase: string; op: string }>,
  runs: Array<{ label: string }>,
  metricDash = "",
): LegendGroup[] {
  const ops = [...new Set(series.map((s) => s.op))];
  const byOp = ops.map((op) => ({
    key: `op ${op}`,
    name: op,
    colour: opColour(op),
    dash: metricDash,
    members: series.filter((s) => s.op === op).map((s) => s.name),
  }));
  const byRun = runs.map((r, i) => ({
    key: `run ${i}`,
    name: r.label,
    colour: LABEL_COLOUR,
    marker: markerOf(i),
    markerOnly: true,
    members: series.filter((s) => s.run === i).map((s) => s.name),
  }));
  return [...byOp, ...byRun];
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

/** Open-loop phases of the runs compared that fell behind their rate: a throughput
 * compared there is what the target took, not what was asked. */
export function BehindNotes({ runs }: { runs: Array<{ label: string; detail: RunDetail }> }) {
  const notes = runs.flatMap((r) => {
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
      <strong>Open-loop phases that fell behind their rate</strong> (the target took less than was asked):
      <ul>
        {notes.map((n) => (
          <li key={n}>{n}</li>
        ))}
      </ul>
    </div>
  );
}
