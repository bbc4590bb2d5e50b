// A line chart whose x is each phase × round × operation of a run in the order it ran
// (`r1 write · put`, `r1 read · get`, `r2 write · put`…): what several endpoints did at
// each, one line an endpoint, so the slow one stands out wherever it was slow.
import { useMemo } from "react";
import { CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { PlacePoint } from "../lib/endpoints";
import { GRID_COLOUR } from "../lib/palette";
import type { SeriesSpec } from "./overlays";
import { SeriesLegend, useHiddenSeries } from "./SeriesLegend";
import { RoundDot, colour, fitted, legendOf, lineKeysOf, tooltipFormatter, valueAxis } from "./charts";

export function PlacesChart(props: {
  data: PlacePoint[];
  series: SeriesSpec[];
  unit: string;
  log?: boolean;
  height?: number;
  testId?: string;
}) {
  const [hidden, toggle] = useHiddenSeries();
  const lineKeys = props.series.map((s) => s.key).join("\n");
  const { data, unit } = useMemo(() => fitted(props.data, lineKeys ? lineKeys.split("\n") : [], props.unit), [props.data, lineKeys, props.unit]);
  const labels = props.data.map((p) => p.label);
  const xs = props.data.map((p) => p.x);
  // Long names are tilted, so each x keeps its label.
  const tilted = labels.length > 4 || labels.some((l) => l.length > 18);
  return (
    <div className="chart" data-testid={props.testId} data-unit={unit} data-scale={props.log ? "log" : "linear"}>
      <ResponsiveContainer width="100%" height={(props.height ?? 240) + (tilted ? 40 : 0)}>
        <LineChart data={data} margin={{ top: 8, right: 24, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={GRID_COLOUR} />
          <XAxis
            dataKey="x"
            type="number"
            domain={[-0.3, Math.max(0, xs.length - 1) + 0.3]}
            ticks={xs}
            interval={0}
            tickFormatter={(v: number) => labels[v] ?? ""}
            fontSize={11}
            angle={tilted ? -25 : 0}
            textAnchor={tilted ? "end" : "middle"}
            height={tilted ? 70 : 30}
          />
          <YAxis {...valueAxis(unit, props.log, data, lineKeysOf(props.series))} />
          <Tooltip formatter={tooltipFormatter(unit)} labelFormatter={(v: unknown) => labels[Number(v)] ?? ""} />
          {props.series.map((s, i) => (
            <Line
              key={s.key}
              dataKey={s.key}
              name={s.name ?? s.key}
              stroke={s.colour ?? colour(i)}
              strokeDasharray={s.dash}
              dot={<RoundDot shape={s.marker} testId="places-point" />}
              activeDot={false}
              isAnimationActive={false}
              connectNulls
              hide={hidden.has(s.key)}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
      <SeriesLegend series={legendOf(props.series)} hidden={hidden} onToggle={toggle} />
    </div>
  );
}
