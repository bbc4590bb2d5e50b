// What a sweep's chart and the compare page's overlay of sweeps draw alike: the rate
// achieved across, latency up a log scale in the unit that fits, the tooltip, and an
// SLO's latency bound as a red dashed line. Called as functions inside a LineChart, so
// recharts sees its own elements.
import { ReferenceLine, Tooltip, XAxis, YAxis } from "recharts";
import { fmtAxis, fmtRate } from "../lib/format";
import type { LogAxis } from "../lib/log-axis";
import { SLO_COLOUR } from "../lib/palette";

export function achievedAxis() {
  return (
    <XAxis
      dataKey="achieved"
      type="number"
      domain={[0, "auto"]}
      allowDuplicatedCategory={false}
      tickFormatter={fmtAxis}
      fontSize={12}
      label={{ value: "achieved ops/s", position: "insideBottomRight", offset: -2, fontSize: 12 }}
    />
  );
}

export function latencyAxis(axis: LogAxis, unit: string, dataKey?: string) {
  return (
    <YAxis
      dataKey={dataKey}
      fontSize={12}
      scale="log"
      domain={axis.domain}
      ticks={axis.ticks}
      allowDataOverflow
      tickFormatter={fmtAxis}
      label={{ value: unit, angle: -90, position: "insideLeft", fontSize: 12 }}
    />
  );
}

export function latencyTooltip(unit: string) {
  return (
    <Tooltip
      formatter={(v: unknown, name: unknown) => [`${fmtAxis(Number(v))} ${unit}`, String(name)]}
      labelFormatter={(v: unknown) => fmtRate(Number(v))}
    />
  );
}

/** An SLO's bound `text` at `y` (in the chart's unit). */
export function sloLine(b: { text: string; y: number }) {
  return (
    <ReferenceLine
      key={b.text}
      y={b.y}
      stroke={SLO_COLOUR}
      strokeDasharray="6 3"
      ifOverflow="extendDomain"
      label={{ value: `SLO ${b.text}`, position: "insideTopLeft", fontSize: 11, fill: SLO_COLOUR }}
    />
  );
}
