// Sweeps and searches of the runs compared, overlaid: for each sweep or search (by its
// place and name) and operation, every run's p50 and p99 against the rate it achieved,
// run by run in its marker, with the SLO's bound; beside the chart each run's knee or
// sustainable rate with the bracket it lies in, so "pre-sharded sustains 1,150 PUT/s,
// dynamic 640" reads off one table.
import { CartesianGrid, Line, LineChart, ResponsiveContainer } from "recharts";
import type { RunDetail } from "../api/types";
import { fmtRate } from "../lib/format";
import { logAxis } from "../lib/log-axis";
import { GRID_COLOUR, PERCENTILE_DASH, RUN_PALETTE, markerOf } from "../lib/palette";
import { achievedAxis, latencyAxis, latencyTooltip, sloLine } from "./sweepChartParts";
import { wholePhaseRows } from "../lib/rounds";
import { type SweepCurve, curvePlace, curvePoints, knee, latencyBounds, sweepCurves } from "../lib/sweeps";
import { fitUnit } from "../lib/units";
import { RoundDot } from "./charts";
import { MarkerGlyph } from "./Marker";
import { SeriesLegend, useHiddenSeries } from "./SeriesLegend";

interface RunCurves {
  label: string;
  curves: SweepCurve[];
}

const key = (c: SweepCurve) => `${c.section}|${c.round ?? ""}|${c.sweep}|${c.op}`;

/** What a run's curve came to: the rate a search found with its bracket, or a sweep's knee. */
export function curveOutcome(c: SweepCurve | undefined): string {
  if (!c) return "–";
  if (c.search) {
    const [lo, hi] = c.search.bracket;
    if (c.search.sustainable_rate == null) return "none sustainable";
    const bare = (r: number) => fmtRate(r).replace(/ ops\/s$/, "");
    const bracket = hi != null ? `between ${bare(lo)} and ${fmtRate(hi)}` : `every step passed, up to ${fmtRate(lo)}`;
    const how = c.search.budget_ran_out ? "budget ran out" : c.search.confirmed ? "confirmed" : "not confirmed";
    return `sustainable ${fmtRate(c.search.sustainable_rate)} (${bracket}; ${how})`;
  }
  const k = knee(c);
  return k ? `kept up to ${fmtRate(k.asked)}` : "behind from its first step";
}

function Overlay({ runs, at }: { runs: RunCurves[]; at: string }) {
  const curves = runs.map((r) => r.curves.find((c) => key(c) === at));
  const first = curves.find((c) => c) as SweepCurve;
  const bounds = latencyBounds(curves.flatMap((c) => c?.search?.slo ?? [])).filter((b) => b.op === first.op);
  const allMs = curves.flatMap((c) => (c ? curvePoints(c) : []).flatMap((p) => [p.p50 / 1000, p.p99 / 1000]));
  const fit = fitUnit("ms", Math.max(0, ...allMs, ...bounds.map((b) => b.us / 1000)));
  const lines = curves.flatMap((c, i) =>
    c
      ? (["p50", "p99"] as const).map((f) => ({
          key: `${i}-${f}`,
          name: `${runs[i].label} ${f}`,
          run: i,
          figure: f,
          points: curvePoints(c).map((p) => ({ achieved: p.achieved, v: (p[f] / 1000) * fit.factor })),
        }))
      : [],
  );
  const bars = [...new Set(bounds.map((b) => b.text))].map((text) => ({ text, y: (bounds.find((b) => b.text === text)!.us / 1000) * fit.factor }));
  const axis = logAxis([...lines.flatMap((l) => l.points.map((p) => p.v)), ...bars.map((b) => b.y)]);
  const [hidden, toggle] = useHiddenSeries();
  const legend = lines.map((l) => ({ key: l.key, name: l.name, colour: RUN_PALETTE[l.run % RUN_PALETTE.length], dash: PERCENTILE_DASH[l.figure], marker: markerOf(l.run) }));
  return (
    <div className="chart" data-testid="compare-sweep-chart" data-unit={fit.unit}>
      <ResponsiveContainer width="100%" height={300}>
        <LineChart margin={{ top: 16, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={GRID_COLOUR} />
          {achievedAxis()}
          {latencyAxis(axis, fit.unit, "v")}
          {latencyTooltip(fit.unit)}
          {bars.map(sloLine)}
          {lines.map((l) => (
            <Line
              key={l.key}
              data={l.points}
              dataKey="v"
              name={l.name}
              stroke={RUN_PALETTE[l.run % RUN_PALETTE.length]}
              strokeDasharray={PERCENTILE_DASH[l.figure]}
              dot={<RoundDot shape={markerOf(l.run)} />}
              activeDot={false}
              isAnimationActive={false}
              hide={hidden.has(l.key)}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
      <SeriesLegend series={legend} hidden={hidden} onToggle={toggle} />
    </div>
  );
}

/** The runs' sweeps and searches overlaid; nothing when none of them ran one. */
export function SweepsComparison({ runs }: { runs: Array<{ label: string; detail: RunDetail }> }) {
  const withCurves: RunCurves[] = runs.map((r) => ({ label: r.label, curves: sweepCurves(wholePhaseRows(r.detail), r.detail.summary?.searches ?? []) }));
  const keys = [...new Set(withCurves.flatMap((r) => r.curves.map(key)))];
  if (!keys.length) return null;
  return (
    <section data-testid="compare-sweeps">
      <h2>Latency against load</h2>
      {keys.map((at) => {
        const any = withCurves.flatMap((r) => r.curves).find((c) => key(c) === at) as SweepCurve;
        return (
          <div key={at}>
            <h3>
              {any.search ? "Search" : "Sweep"} <span className="mono">{any.sweep}</span>, {curvePlace(any)}, {any.op}
            </h3>
            <table className="grid compact" data-testid="compare-sweep-outcomes">
              <tbody>
                {withCurves.map((r, i) => (
                  <tr key={r.label} data-testid="compare-sweep-outcome">
                    <td>
                      <MarkerGlyph shape={markerOf(i)} /> {r.label}
                    </td>
                    <td>{curveOutcome(r.curves.find((c) => key(c) === at))}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <Overlay runs={withCurves} at={at} />
          </div>
        );
      })}
    </section>
  );
}
