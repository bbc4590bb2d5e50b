// The results of one run: rounds × phases table, throughput and latency across rounds,
// objects at each phase's start, the per-second series and latency distribution of a
// chosen phase × round, the exact workload and command line. Shared by the run-detail
// page (with the server behind it) and the offline report (data inlined).
import { useEffect, useMemo, useState } from "react";
import type { Distribution, EndpointEvent, Heatmap, IndexReport, IntervalRecord, RunDetail, SummaryRow } from "../api/types";
import { RoundsChart, MetricSelect, shardAxis } from "./charts";
import { PhaseDistribution, PhaseTimeCharts } from "./PhaseCharts";
import { Empty, ErrorBox, Labels } from "./states";
import { VerdictBadges, VerdictFindings } from "./VerdictBadges";
import { cleanupText } from "./CleanupLine";
import { LatencyHeatmap } from "./LatencyHeatmap";
import { widest } from "../lib/heatmap";
import { fmtCount, fmtDuration, fmtLatency, fmtOpMiBs, fmtRate, fmtTime, latencyClockText, openLoopBehind, openLoopText } from "../lib/format";
import { mergeByX, phaseSpan, phaseWindows, roundMarkSpecs, roundMarks, roundShardRows } from "../lib/bucket-index";
import { type PauseSpan, pauseWindows } from "../lib/pauses";
import { markText, tailCount, tailMarks } from "../lib/tails";
import { METRICS, objectsAtPhaseStart, partLabel, placeLabel, roundSeriesKeys, roundSeriesLooks, roundsTable, seriesName } from "../lib/rounds";

const PART_HELP =
  "interrupted: the phase stopped before its end, and this row covers what was measured until then; resumed: the row covers what the resumed run measured; taken over: an agent was lost and another resumed its shard from the controller's copy; redone: writes the resumed part did again because the part before had finished them after its last checkpoint (the target received both)";

export interface PhaseChoice {
  section: string;
  round: number | null;
  phase: string;
  op: string;
}

/** Failed operations by class, and failed attempts (retried ones included) when retries happened. */
export function errorsTitle(r: SummaryRow): string {
  const classes = (m: Record<string, number> | undefined) =>
    Object.entries(m ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join(", ");
  const ops = classes(r.error_classes);
  if (!r.retries) return ops;
  return `failed operations: ${ops || "none"}; failed attempts: ${classes(r.attempt_error_classes)}`;
}

function choiceKey(c: PhaseChoice): string {
  return `${c.section}|${c.round ?? ""}|${c.phase}|${c.op}`;
}

export function choices(rows: SummaryRow[]): PhaseChoice[] {
  return rows.map((r) => ({ section: r.section, round: r.round ?? null, phase: r.phase, op: r.op }));
}

/**
 * The phase the explorer opens on: the one with the most intervals (measured the
 * longest), the earliest of equals — not the last, often a one-second list.
 */
export function defaultChoice(rows: SummaryRow[]): PhaseChoice | undefined {
  let best: SummaryRow | undefined;
  for (const r of rows) if (!best || r.duration_s > best.duration_s) best = r;
  return best && { section: best.section, round: best.round ?? null, phase: best.phase, op: best.op };
}

export function RunHeader({ detail, extra }: { detail: RunDetail; extra?: React.ReactNode }) {
  const m = detail.manifest;
  return (
    <div className="run-header">
      <div className="title-row">
        <h1 className="mono">{m.run_id}</h1>
        <VerdictBadges verdict={detail.verdict} status={detail.info.status} />
        {extra}
      </div>
      <VerdictFindings verdict={detail.verdict} />
      <dl className="facts">
        <dt>Workload</dt>
        <dd>{m.workload}</dd>
        {m.endpoints && m.endpoints.length > 1 ? (
          <>
            <dt>Endpoints</dt>
            <dd className="mono" data-testid="run-endpoints">
              {m.endpoints.join(", ")}
            </dd>
          </>
        ) : (
          <>
            <dt>Endpoint</dt>
            <dd>{m.endpoint}</dd>
          </>
        )}
        <dt>Client</dt>
        <dd>
          {m.client}
          {m.latency_clock && (
            <span className="muted" data-testid="latency-clock">
              {" · "}
              {latencyClockText(m.latency_clock)}
            </span>
          )}
        </dd>
        <dt>Started</dt>
        <dd>{fmtTime(m.started_at)}</dd>
        <dt>Duration</dt>
        <dd>{fmtDuration(detail.info.duration_s)}</dd>
        <dt>Labels</dt>
        <dd>
          <Labels labels={detail.info.labels} />
        </dd>
        {m.cleanup && (
          <>
            <dt>Cleanup</dt>
            <dd className={m.cleanup.failed > 0 ? "bad" : undefined} data-testid="cleanup-fact">
              {cleanupText(m.cleanup)}
            </dd>
          </>
        )}
        {m.error && (
          <>
            <dt>Error</dt>
            <dd className="bad">{m.error}</dd>
          </>
        )}
      </dl>
    </div>
  );
}

export function RoundsPhasesTable({ rows }: { rows: SummaryRow[] }) {
  // Open-loop phases say what they sent of the rate asked, and how late requests left.
  const open = rows.some((r) => r.open_loop);
  // Operations at each tail mark or over (1 s, 10 s unless the workload said): a tail
  // p99.9 of many operations does not show.
  const marks = tailMarks(rows);
  return (
    <table className="grid" data-testid="rounds-table">
      <thead>
        <tr>
          <th>Where</th>
          <th>Phase</th>
          <th>Op</th>
          <th className="num">Objects at start</th>
          <th className="num">Operations</th>
          <th className="num">Throughput</th>
          <th className="num">Bandwidth</th>
          <th className="num">p50</th>
          <th className="num">p99</th>
          <th className="num">p99.9</th>
          <th className="num">max</th>
          {marks.map((m) => (
            <th key={m} className="num" title={`Operations that took ${markText(m)} or more: a tail the percentiles of many operations hide`}>
              ≥ {markText(m)}
            </th>
          ))}
          <th className="num">Errors</th>
          {open && (
            <>
              <th className="num" title="Open loop: requests sent per second against the rate asked; what was due and never sent">
                Sent of asked
              </th>
              <th className="num" title="Open loop: how late requests left after their scheduled time (p99); latency counts from the schedule, so it holds this">
                Sent late p99
              </th>
            </>
          )}
        </tr>
      </thead>
      <tbody>
        {rows.map((r, i) => (
          <tr key={i}>
            <td>{placeLabel(r)}</td>
            <td>
              {r.phase}
              {partLabel(r) && (
                <span className="badge part" data-testid="row-part" title={PART_HELP}>
                  {partLabel(r)}
                </span>
              )}
            </td>
            <td>{r.op}</td>
            <td className="num">{fmtCount(r.objects_at_start)}</td>
            <td className="num">{fmtCount(r.ops)}</td>
            <td className="num">{fmtRate(r.ops_per_sec)}</td>
            <td className="num">{fmtOpMiBs(r.op, r.mib_per_sec)}</td>
            <td className="num">{fmtLatency(r.latency_us.p50)}</td>
            <td className="num">{fmtLatency(r.latency_us.p99)}</td>
            <td className="num">{fmtLatency(r.latency_us.p999)}</td>
            <td className="num">{fmtLatency(r.latency_us.max)}</td>
            {marks.map((m) => {
              const n = tailCount(r, m);
              return (
                <td key={m} className={`num ${n ? "bad" : ""}`} data-testid="row-slow">
                  {n == null ? "–" : fmtCount(n)}
                </td>
              );
            })}
            <td className={`num ${r.errors ? "bad" : ""}`} title={errorsTitle(r)}>
              {fmtCount(r.errors)}
              {r.retries ? (
                <span className="muted" data-testid="row-retries">
                  {" "}
                  +{fmtCount(r.retries)} retried
                </span>
              ) : null}
            </td>
            {open && (
              <>
                <td className={`num ${r.open_loop && openLoopBehind(r.open_loop) ? "bad" : ""}`} data-testid="row-open-loop">
                  {r.open_loop ? openLoopText(r.open_loop) : "–"}
                </td>
                <td className="num" data-testid="row-schedule-lag">
                  {r.schedule_lag_us ? fmtLatency(r.schedule_lag_us.p99) : "–"}
                </td>
              </>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function RoundsCharts(props: { rows: SummaryRow[]; index?: IndexReport | null; runStartedAt?: string }) {
  const { rows } = props;
  const [metric, setMetric] = useState("ops_per_sec");
  // Latency reads best on a log scale: p50 is not squashed flat under p99.
  const [latencyLog, setLatencyLog] = useState(true);
  const keys = roundSeriesKeys(rows);
  if (!keys.length) return <Empty title="Nothing to compare across rounds: no round phase has finished." />;
  const m = METRICS[metric];
  const shards = roundShardRows(rows);
  const marks = roundMarkSpecs(roundMarks(props.index, rows, props.runStartedAt));
  const { series, latencySeries } = roundSeriesLooks(keys, m);
  const p50 = roundsTable(rows, METRICS.p50_ms.get);
  const p99 = roundsTable(rows, METRICS.p99_ms.get);
  const latencyData = p50.map((row, i) => {
    const out: Record<string, number> = { round: row.round };
    for (const k of keys) {
      out[`${seriesName(k)} p50`] = row[seriesName(k)];
      out[`${seriesName(k)} p99`] = p99[i]?.[seriesName(k)];
    }
    return out;
  });
  return (
    <div className="chart-grid">
      <div>
        <div className="title-row">
          <h3>
            {m.label} across rounds{shards.buckets.length ? " and index shards" : ""}
          </h3>
          <MetricSelect value={metric} onChange={setMetric} label="rounds metric" />
        </div>
        <RoundsChart
          data={mergeByX("round", roundsTable(rows, m.get), shards.data)}
          series={series}
          unit={m.unit}
          right={shardAxis(shards.buckets, "at each round's end")}
          marks={marks}
          log={m.unit === "ms" && latencyLog}
        />
      </div>
      <div>
        <div className="title-row">
          <h3>Latency across rounds: p50 and p99</h3>
          <label className="muted">
            <input type="checkbox" checked={latencyLog} onChange={(e) => setLatencyLog(e.target.checked)} data-testid="latency-log" /> log scale
          </label>
        </div>
        <RoundsChart testId="latency-rounds-chart" data={latencyData} series={latencySeries} unit="ms" marks={marks} log={latencyLog} />
      </div>
    </div>
  );
}

export function ObjectsTable({ rows }: { rows: SummaryRow[] }) {
  return (
    <table className="grid compact" data-testid="objects-table">
      <thead>
        <tr>
          <th>Where</th>
          <th>Phase</th>
          <th className="num">Objects in the bucket at the phase's start</th>
        </tr>
      </thead>
      <tbody>
        {objectsAtPhaseStart(rows).map((o, i) => (
          <tr key={i}>
            <td>{o.place}</td>
            <td>{o.phase}</td>
            <td className="num">{fmtCount(o.objects)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The rate the chosen phase asked for when it is an open loop, and whether that rate is
 * of several operations (a mix) rather than the chosen one's alone. */
export function askedOf(rows: SummaryRow[], c: PhaseChoice): { rate: number; mixed: boolean } | undefined {
  const phase = rows.filter((r) => r.section === c.section && (r.round ?? null) === c.round && r.phase === c.phase);
  const open = phase.find((r) => r.open_loop)?.open_loop;
  return open ? { rate: open.asked_per_sec, mixed: new Set(phase.map((r) => r.op)).size > 1 } : undefined;
}

/** How the phase explorer reads a phase's data. */
interface PhaseLoaders {
  loadIntervals: (c: PhaseChoice) => Promise<IntervalRecord[]>;
  loadDistribution?: (c: PhaseChoice) => Promise<Distribution>;
  /** The phase's latency heatmap (the run page; the offline report carries the run's). */
  loadHeatmap?: (c: PhaseChoice) => Promise<Heatmap>;
}

export function PhaseExplorer(
  props: PhaseLoaders & {
    rows: SummaryRow[];
    index?: IndexReport | null;
    /** When the run's endpoints went down and came back: marked on the phase's charts. */
    endpointEvents?: EndpointEvent[];
    /** When the run did not run: its charts break and shade there. */
    pauses?: PauseSpan[];
  },
) {
  const all = choices(props.rows);
  const [key, setKey] = useState(() => {
    const first = defaultChoice(props.rows);
    return first ? choiceKey(first) : "";
  });
  const choice = all.find((c) => choiceKey(c) === key);
  const { intervals, dist, heat, error } = usePhaseData(key, choice, props);
  const asked = useMemo(() => choice && askedOf(props.rows, choice), [props.rows, choice]);
  const measured = useMemo(() => (intervals ?? []).filter((r) => !r.warmup), [intervals]);
  const span = useMemo(() => phaseSpan(measured), [measured]);
  const windows = useMemo(
    () => (choice ? [...phaseWindows(props.index, choice, measured), ...pauseWindows(props.pauses ?? [], span)] : []),
    // `choice` is identified by `key`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [props.index, key, measured, props.pauses, span],
  );
  if (!choice) return null;
  return (
    <div>
      <div className="title-row">
        <h3>One phase in detail</h3>
        <select value={key} onChange={(e) => setKey(e.target.value)} aria-label="phase, round and operation" data-testid="phase-picker">
          {all.map((c) => (
            <option key={choiceKey(c)} value={choiceKey(c)}>
              {placeLabel(c)} · {c.phase} · {c.op}
            </option>
          ))}
        </select>
      </div>
      {error != null && <ErrorBox error={error} />}
      <div className="chart-grid">
        {props.loadDistribution && (
          <PhaseDistribution name={`${placeLabel(choice)} · ${choice.phase} · ${choice.op}`} op={choice.op} dist={dist} />
        )}
        <PhaseTimeCharts
          op={choice.op}
          measured={measured}
          span={span}
          windows={windows}
          endpointEvents={props.endpointEvents}
          pauses={props.pauses}
          asked={asked}
        />
      </div>
      {heat && (
        <>
          <h4>Latency heatmap of this phase</h4>
          <LatencyHeatmap heatmap={heat} windows={windows} span={span && widest(span, heat)} testId="phase-heatmap" />
        </>
      )}
    </div>
  );
}

/** The picked phase's intervals, latency distribution and heatmap (those it has loaders
 * for), read again when another phase is picked; what went wrong if one could not be. */
function usePhaseData(key: string, choice: PhaseChoice | undefined, loaders: PhaseLoaders) {
  const [intervals, setIntervals] = useState<IntervalRecord[] | null>(null);
  const [dist, setDist] = useState<Distribution | null>(null);
  const [heat, setHeat] = useState<Heatmap | null>(null);
  const [error, setError] = useState<unknown>(null);
  const { loadIntervals, loadDistribution, loadHeatmap } = loaders;
  useEffect(() => {
    if (!choice) return;
    let live = true;
    setIntervals(null);
    setDist(null);
    setHeat(null);
    setError(null);
    const fail = (e: unknown) => live && setError(e);
    loadIntervals(choice).then((r) => live && setIntervals(r), fail);
    loadDistribution?.(choice).then((d) => live && setDist(d), fail);
    loadHeatmap?.(choice).then((h) => live && setHeat(h), fail);
    return () => {
      live = false;
    };
    // `choice` is identified by `key`.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, loadIntervals, loadDistribution, loadHeatmap]);
  return { intervals, dist, heat, error };
}

export function WorkloadBlock({ detail }: { detail: RunDetail }) {
  const [copied, setCopied] = useState("");
  const copy = (what: string, text: string) => {
    navigator.clipboard?.writeText(text).then(() => setCopied(what), () => setCopied(""));
  };
  const command = detail.manifest.command_line.join(" ");
  return (
    <div className="chart-grid">
      <div>
        <div className="title-row">
          <h3>Workload, exactly as run</h3>
          <button onClick={() => copy("workload", detail.workload_text)} data-testid="copy-workload">
            {copied === "workload" ? "Copied" : "Copy"}
          </button>
        </div>
        <pre className="code" data-testid="workload-text">{detail.workload_text}</pre>
      </div>
      <div>
        <div className="title-row">
          <h3>Command line</h3>
          <button onClick={() => copy("command", command)}>{copied === "command" ? "Copied" : "Copy"}</button>
        </div>
        <pre className="code">{command}</pre>
      </div>
    </div>
  );
}
