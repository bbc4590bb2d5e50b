// Rate sweeps and searches: each step's p50, p99 and p99.9 against the rate it achieved,
// so the knee shows where the line turns up; the SLO's bound drawn across, a sweep's knee
// or a search's sustainable rate marked, and every step in a table with the rate it
// asked, what it sent and whether it kept up. The run page and the report show it.
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer } from "recharts";
import type { SummaryRow } from "../api/types";
import { fmtLatency, fmtRate } from "../lib/format";
import { fitUnit, scaleRows } from "../lib/units";
import { logAxis } from "../lib/log-axis";
import { GRID_COLOUR, LABEL_COLOUR, PERCENTILE_DASH, SUSTAINABLE_COLOUR, opColour } from "../lib/palette";
import { achievedAxis, latencyAxis, latencyTooltip, sloLine } from "./sweepChartParts";
import { type SearchResult, type SweepCurve, curvePlace, curvePoints, knee, latencyBounds, sweepCurves } from "../lib/sweeps";
import { SeriesLegend, useHiddenSeries } from "./SeriesLegend";

const LINES = [
  { key: "p50", name: "p50" },
  { key: "p99", name: "p99" },
  { key: "p999", name: "p99.9" },
] as const;

/** What a search found, in words: `sustainable 400 ops/s at put.p99 < 150ms (between 400 and 418 ops/s, both ends confirmed)`. */
export function searchText(s: SearchResult): string {
  const slo = s.slo.join(", ");
  const found = s.sustainable_rate != null ? `sustainable ${fmtRate(s.sustainable_rate)} at ${slo}` : `no rate sustainable at ${slo}`;
  const [lo, hi] = s.bracket;
  const bracket =
    s.sustainable_rate == null ? "its first step failed" : hi != null ? `between ${fmtRate(lo)} and ${fmtRate(hi)}` : `every step passed, up to ${fmtRate(lo)}`;
  const how = s.budget_ran_out ? "the time budget ran out before it was done" : s.confirmed ? "both ends confirmed" : "not confirmed";
  const voided = s.voided ?? [];
  const again =
    voided.length === 1
      ? `, and ${voided[0]} run again: a shard restarted in the middle of it`
      : voided.length > 1
        ? `, and ${voided.length} run again: a shard restarted in the middle of them`
        : "";
  // The lowest rate that failed failed on the client's side: no bound on the store.
  const limit =
    s.limited_by_client && hi != null
      ? `; the client, not the store, failed at ${fmtRate(hi)}: its requests left late (too few workers for the store's latency, or too little CPU), so the store may sustain more`
      : "";
  return `${found} (${bracket}, ${how}; ${s.steps} steps${again})${limit}`;
}

/** Where a sweep stopped keeping up, as `keystorm show` says it. */
export function sweepText(c: SweepCurve): string {
  const k = knee(c);
  const b = curvePoints(c).find((p) => !p.keptUp);
  const behind = b && `${fmtRate(b.asked)} (sent ${Math.round((100 * b.sent) / b.asked)} %, p99 ${fmtLatency(b.p99)})`;
  if (!k) return behind ? `behind from its first step, ${behind}` : "no step measured";
  const kept = `kept up to ${fmtRate(k.asked)} (p50 ${fmtLatency(k.p50)}, p99 ${fmtLatency(k.p99)})`;
  return behind ? `${kept}; behind from ${behind}` : `${kept}; kept up at every step`;
}

function CurveChart({ curve }: { curve: SweepCurve }) {
  const bounds = curve.search ? latencyBounds(curve.search.slo).filter((b) => b.op === curve.op) : [];
  // Latencies in ms, then in the unit that fits their range (µs, ms or s).
  // A voided step is listed in the table, not drawn: its rows are part of the shards' work.
  const drawn = curvePoints(curve);
  const ms = drawn.map((p) => ({ ...p, p50: p.p50 / 1000, p99: p.p99 / 1000, p999: p.p999 / 1000 }));
  const boundsMs = bounds.map((b) => ({ ...b, ms: b.us / 1000 }));
  const fit = fitUnit("ms", Math.max(0, ...ms.flatMap((p) => [p.p50, p.p99, p.p999]), ...boundsMs.map((b) => b.ms)));
  const data = scaleRows(ms, ["p50", "p99", "p999"], fit.factor);
  const lines = boundsMs.map((b) => ({ ...b, y: b.ms * fit.factor }));
  const axis = logAxis([...data.flatMap((d) => [d.p50, d.p99, d.p999]), ...lines.map((b) => b.y)]);
  const kneePoint = curve.search ? undefined : knee(curve);
  const found = curve.search?.sustainable_rate;
  const foundPoint = found != null ? drawn.find((p) => p.asked === found) : undefined;
  const [hidden, toggle] = useHiddenSeries();
  const legend = LINES.map((l) => ({ key: l.key, name: l.name, colour: opColour(curve.op), dash: PERCENTILE_DASH[l.name] }));
  return (
    <div className="chart" data-testid="sweep-chart" data-unit={fit.unit}>
      <ResponsiveContainer width="100%" height={280}>
        <LineChart data={data} margin={{ top: 16, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={GRID_COLOUR} />
          {achievedAxis()}
          {latencyAxis(axis, fit.unit)}
          {latencyTooltip(fit.unit)}
          {lines.map(sloLine)}
          {kneePoint && (
            <ReferenceLine
              x={kneePoint.achieved}
              stroke={LABEL_COLOUR}
              strokeDasharray="2 2"
              label={{ value: `knee ${fmtRate(kneePoint.asked)}`, position: "insideTopRight", fontSize: 11 }}
            />
          )}
          {foundPoint && (
            <ReferenceLine
              x={foundPoint.achieved}
              stroke={SUSTAINABLE_COLOUR}
              strokeDasharray="2 2"
              label={{
                value: curve.search?.limited_by_client ? `sustainable ≥ ${fmtRate(found)} (client-limited)` : `sustainable ${fmtRate(found)}`,
                position: "insideTopRight",
                fontSize: 11,
                fill: SUSTAINABLE_COLOUR,
              }}
            />
          )}
          {LINES.map((l) => (
            <Line
              key={l.key}
              dataKey={l.key}
              name={l.name}
              stroke={opColour(curve.op)}
              strokeDasharray={PERCENTILE_DASH[l.name]}
              isAnimationActive={false}
              dot={{ r: 3 }}
              activeDot={false}
              hide={hidden.has(l.key)}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
      <SeriesLegend series={legend} hidden={hidden} onToggle={toggle} />
    </div>
  );
}

function StepsTable({ curve }: { curve: SweepCurve }) {
  // A search's steps as it judged them (SLOs, rate sent and answered); a sweep's, whether
  // each sent its rate.
  const judged = curve.search ? new Map((curve.search.judged ?? []).map((j) => [j.phase, j.passed])) : undefined;
  const clients = new Set((curve.search?.judged ?? []).filter((j) => j.failed_by === "client").map((j) => j.phase));
  // Steps of a search over agents that a shard restarted in: not judged, run again.
  const voided = new Set(curve.search?.voided ?? []);
  return (
    <table className="grid compact" data-testid="sweep-steps">
      <thead>
        <tr>
          <th>Step</th>
          <th className="num">Asked</th>
          <th className="num">Achieved</th>
          <th className="num">p50</th>
          <th className="num">p99</th>
          <th className="num">p99.9</th>
          <th>{judged ? "Passed" : "Kept up"}</th>
        </tr>
      </thead>
      <tbody>
        {curve.points.map((p) => {
          const good = judged ? judged.get(p.phase) : p.keptUp;
          const said = voided.has(p.phase)
            ? "not judged: run again"
            : judged
              ? good == null
                ? "–"
                : good
                  ? "passed"
                  : clients.has(p.phase)
                    ? "failed: the client fell behind"
                    : "failed"
              : good
                ? "yes"
                : "fell behind";
          return (
          <tr key={p.phase}>
            <td className="mono">{p.phase}</td>
            <td className="num">{fmtRate(p.asked)}</td>
            <td className="num">{fmtRate(p.achieved)}</td>
            <td className="num">{fmtLatency(p.p50)}</td>
            <td className="num">{fmtLatency(p.p99)}</td>
            <td className="num">{fmtLatency(p.p999)}</td>
            <td className={good == null ? "" : good ? "good" : "bad"}>{said}</td>
          </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Every sweep's and search's curve of the run; nothing when it ran none. */
export function SweepsSection({ rows, searches }: { rows: SummaryRow[]; searches?: SearchResult[] }) {
  const curves = sweepCurves(rows, searches ?? []);
  if (!curves.length) return null;
  return (
    <section data-testid="sweeps">
      <h2>Latency against load</h2>
      {curves.map((c) => {
        const said = c.search ? `search ${c.sweep}, ${curvePlace(c)}: ${searchText(c.search)}` : `sweep ${c.sweep}, ${curvePlace(c)}, ${c.op}: ${sweepText(c)}`;
        return (
          <div key={`${c.section}|${c.round}|${c.sweep}|${c.op}`} className="sweep">
            <h3>
              {c.search ? "Search" : "Sweep"} <span className="mono">{c.sweep}</span>, {curvePlace(c)}, {c.op}
            </h3>
            <p data-testid={c.search ? "search-result" : "sweep-knee"}>{said}</p>
            <CurveChart curve={c} />
            <StepsTable curve={c} />
          </div>
        );
      })}
    </section>
  );
}
