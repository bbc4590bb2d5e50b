// The charts every page shares, on recharts with animation off: a time series (x =
// seconds from the run's start, downsampled for long runs), a rounds chart (x = round
// number, one point per round per series) and a latency distribution on a nines axis.
// Time series and rounds charts can carry step lines on a right axis (the bucket's
// index shards), shaded windows (reshards, stalls) and marked rounds.
import { useMemo } from "react";
import {
  CartesianGrid,
  Line,
  LineChart,
  ReferenceArea,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { fmtAxis } from "../lib/format";
import { fitUnit, maxOf, scaleRows } from "../lib/units";
import {
  ENDPOINT_COLOURS,
  EPOCH_COLOUR,
  GRID_COLOUR,
  LABEL_COLOUR,
  type MarkerShape,
  PHASE_MARK_COLOUR,
  SHARD_COLOUR,
  dashOf as dash,
  runColour as colour,
} from "../lib/palette";
import { type EpochMark, pointTitle } from "../lib/keys";
import type { EndpointMark } from "../lib/endpoints";
import { MarkerMark } from "./Marker";
import { ROUND_EDGE, type RoundMarkSpec, type TimeWindow, roundLabel, shardKey, shardName } from "../lib/bucket-index";
import { MAX_POINTS, downsampleRows } from "../lib/lttb";
import { labelRows, timeLabel, timeTicks } from "../lib/heatmap";
import { NINES_TICKS, ninesLabel } from "../lib/nines";
import { logAxis, valuesOf } from "../lib/log-axis";
import { METRICS } from "../lib/rounds";
import {
  type DotProps,
  MARK_ROW_PX,
  RIGHT_AXIS,
  type RightAxis,
  RightYAxis,
  type SeriesSpec,
  RoundMarkShape,
  ShardDot,
  StepDot,
  WindowKey,
  WindowShape,
} from "./overlays";
import { type LegendGroup, type LegendSeries, SeriesLegend, isHidden, useHiddenSeries } from "./SeriesLegend";

export type { RightAxis, SeriesSpec } from "./overlays";

/** A phase's start on a time chart: where (s from the run's start) and its name. */
export interface PhaseMark {
  t: number;
  label: string;
}
export { colour };

const fmtNumber = fmtAxis;

/** The legend's entries: the lines as drawn, then the right axis's. */
export function legendOf(series: SeriesSpec[], right?: RightAxis): LegendSeries[] {
  return series
    .map((s, i) => ({ key: s.key, name: s.name ?? s.key, colour: s.colour ?? colour(i), dash: s.dash, marker: s.marker }))
    .concat(
      (right?.series ?? []).map((s) => ({
        key: s.key,
        name: `${s.name ?? s.key} (right axis)`,
        colour: s.colour ?? SHARD_COLOUR,
        dash: s.dash,
        marker: s.marker,
      })),
    );
}

/** The shard lines of one run's buckets on a right axis, or nothing when the index was not tracked. */
export function shardAxis(buckets: string[], what: string): RightAxis | undefined {
  if (!buckets.length) return undefined;
  return {
    unit: "index shards",
    series: buckets.map((b, i) => ({ key: shardKey(b), name: `${shardName(b, buckets)} ${what}`, colour: SHARD_COLOUR, dash: dash(i) })),
  };
}

/** The rows with their lines' values in the unit that fits them (µs, not "0.25 ms"). */
export function fitted<T extends Record<string, unknown>>(rows: T[], keys: string[], unit: string): { data: T[]; unit: string } {
  const fit = fitUnit(unit, maxOf(rows, keys));
  return { data: scaleRows(rows, keys, fit.factor), unit: fit.unit };
}

/**
 * The left axis of a chart's values: in `unit`, on a log scale when `log`, from a 1-2-5
 * value under the values of `rows` under `keys` to one over them, ticked at 1-2-5.
 */
export function valueAxis(unit: string, log?: boolean, rows: ReadonlyArray<Record<string, unknown>> = [], keys: readonly string[] = []) {
  const axis = log ? logAxis(valuesOf(rows, keys)) : undefined;
  return {
    fontSize: 12,
    tickFormatter: fmtNumber,
    scale: log ? ("log" as const) : ("auto" as const),
    domain: axis?.domain,
    ticks: axis?.ticks,
    allowDataOverflow: log,
    label: { value: unit, angle: -90, position: "insideLeft" as const, fontSize: 12 },
  };
}

/** The keys of the lines on the left axis. */
export function lineKeysOf(series: SeriesSpec[]): string[] {
  return series.map((s) => s.key);
}

export function tooltipFormatter(unit: string, right?: RightAxis) {
  const rightKeys = new Set(right?.series.map((s) => s.key));
  return (v: unknown, name: unknown, item: { dataKey?: unknown }) => [
    `${fmtNumber(v)} ${right && rightKeys.has(String(item?.dataKey)) ? right.unit : unit}`,
    String(name),
  ];
}

/** What a time chart is given. */
export interface TimeChartProps {
  data: Array<Record<string, number | string>>;
  series: SeriesSpec[];
  unit: string;
  right?: RightAxis;
  windows?: TimeWindow[];
  /** Whether to say under the chart what its shading means (default: when it has any). */
  windowKey?: boolean;
  /** The x range to show (seconds); by default the data's. */
  xDomain?: [number, number];
  /** A log scale (latency's default), so one slow p99 does not flatten the rest. */
  log?: boolean;
  /** Where each phase begins (s from the run's start) and its name. */
  phases?: PhaseMark[];
  /** Where an epochs phase entered its next epoch; the tooltip names each point's epoch. */
  epochs?: EpochMark[];
  /** Where an endpoint of the run went down or came back. */
  endpoints?: EndpointMark[];
  height?: number;
  testId?: string;
}

export function TimeChart(props: TimeChartProps) {
  const right = props.right?.series.length ? props.right : undefined;
  const domain = props.xDomain ?? ["dataMin", "dataMax"];
  const phases = props.phases ?? [];
  const epochs = props.epochs ?? [];
  const endpoints = props.endpoints ?? [];
  const rows = markLabelRows(phases, epochs, endpoints, props.xDomain);
  const [hidden, toggle] = useHiddenSeries();
  const { data, unit, ticks } = useTimeRows(props, right);
  return (
    <div
      className="chart"
      data-testid={props.testId}
      data-points={data.length}
      data-unit={unit}
      data-scale={props.log ? "log" : "linear"}
      data-x-domain={props.xDomain?.join(",")}
    >
      <ResponsiveContainer width="100%" height={props.height ?? 220}>
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={GRID_COLOUR} />
          <XAxis
            dataKey="t"
            type="number"
            domain={domain}
            allowDataOverflow={props.xDomain != null}
            ticks={ticks}
            tickFormatter={(v: number) => timeLabel(v)}
            fontSize={12}
          />
          <YAxis {...valueAxis(unit, props.log, data, lineKeysOf(props.series))} />
          {right && <RightYAxis axis={right} data={data} />}
          <Tooltip
            formatter={tooltipFormatter(unit, right)}
            labelFormatter={(v: unknown, payload: ReadonlyArray<{ payload?: Record<string, unknown> }>) => pointTitle(v, payload?.[0]?.payload?.epoch)}
          />
          {windowAreas(props.windows ?? [])}
          {phaseLines(phases, rows.phases)}
          {epochLines(epochs, rows.epochs)}
          {endpointLines(endpoints, rows.endpoints)}
          {/* A series breaks where its operation did not run (PUT's line stops at the end
              of "write" and starts again at the next "write"), never drawn across. */}
          {props.series.map((s, i) => (
            <Line
              key={s.key}
              dataKey={s.key}
              name={s.name ?? s.key}
              stroke={s.colour ?? colour(i)}
              strokeDasharray={s.dash}
              dot={false}
              isAnimationActive={false}
              hide={hidden.has(s.key)}
            />
          ))}
          {right?.series.map((s) => (
            <Line
              key={s.key}
              yAxisId={RIGHT_AXIS}
              type="stepAfter"
              dataKey={s.key}
              name={`${s.name ?? s.key} (right axis)`}
              stroke={s.colour ?? SHARD_COLOUR}
              strokeDasharray={s.dash}
              strokeWidth={2}
              dot={<StepDot rows={data} />}
              activeDot={false}
              isAnimationActive={false}
              connectNulls
              hide={hidden.has(s.key)}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
      <SeriesLegend series={legendOf(props.series, right)} hidden={hidden} onToggle={toggle} />
      {props.windowKey !== false && <WindowKey windows={props.windows ?? []} />}
    </div>
  );
}

/**
 * The rows a time chart's data is drawn from: downsampled for a long run, each line in
 * the unit that fits it, and the time ticks, at round seconds (minutes...) of the axis
 * shown as on the heatmaps, so a tick sits at the time its label says.
 */
function useTimeRows(props: TimeChartProps, right?: RightAxis) {
  const keys = props.series
    .concat(right?.series ?? [])
    .map((s) => s.key)
    .join("\n");
  const lineKeys = props.series.map((s) => s.key).join("\n");
  const { data, unit } = useMemo(() => {
    const rows = downsampleRows(props.data, MAX_POINTS, "t", keys ? keys.split("\n") : []);
    return fitted(rows, lineKeys ? lineKeys.split("\n") : [], props.unit);
  }, [props.data, keys, lineKeys, props.unit]);
  const ticks = useMemo(() => {
    const ts = data.map((d) => Number(d.t)).filter(Number.isFinite);
    const [a, b] = props.xDomain ?? [Math.min(...ts), Math.max(...ts)];
    return Number.isFinite(a) && Number.isFinite(b) ? timeTicks(a, b).map((t) => a + t.at * (b - a)) : undefined;
  }, [data, props.xDomain]);
  return { data, unit, ticks };
}

/**
 * The row each mark's label sits in, so labels close together do not overlap: phases'
 * from the top, epochs' from the bottom, endpoints' from the top under the phases'.
 */
function markLabelRows(phases: PhaseMark[], epochs: EpochMark[], endpoints: EndpointMark[], xDomain?: [number, number]) {
  const [lo, hi] = xDomain ?? [phases[0]?.t ?? 0, (phases[phases.length - 1]?.t ?? 0) + 1];
  const at = (t: number) => (t - lo) / Math.max(hi - lo, 1);
  const phaseRows = labelRows(phases.map((p) => at(p.t)), 0.12);
  // Endpoint labels sit right of their line, in rows under the phases' labels.
  const phaseLabelRows = phases.length ? Math.max(...phaseRows) + 1 : 0;
  return {
    phases: phaseRows,
    epochs: labelRows(epochs.map((e) => at(e.t)), 0.08),
    endpoints: labelRows(endpoints.map((e) => at(e.t)), 0.14).map((row) => phaseLabelRows + row),
  };
}

/** The shaded windows of reshards and write stalls. */
function windowAreas(windows: TimeWindow[]) {
  return windows.map((w) => (
    <ReferenceArea key={`${w.kind}-${w.id}`} x1={w.x1} x2={w.x2} ifOverflow="hidden" shape={<WindowShape window={w} />} />
  ));
}

/** A dashed line where each phase begins, its name at the top in its label row. */
function phaseLines(phases: PhaseMark[], rows: number[]) {
  return phases.map((p, i) => (
    <ReferenceLine
      key={`phase-${i}`}
      x={p.t}
      stroke={PHASE_MARK_COLOUR}
      strokeDasharray="3 3"
      ifOverflow="hidden"
      label={{ value: p.label, position: "insideTopLeft", fontSize: 10, fill: LABEL_COLOUR, dy: rows[i] * 12 }}
      className="phase-mark"
    />
  ));
}

/** A dotted line where an epochs phase entered its next epoch, labelled at the bottom. */
function epochLines(epochs: EpochMark[], rows: number[]) {
  return epochs.map((e, i) => (
    <ReferenceLine
      key={`epoch-${i}`}
      x={e.t}
      stroke={EPOCH_COLOUR}
      strokeDasharray="2 3"
      ifOverflow="hidden"
      label={{ value: e.label, position: "insideBottomLeft", fontSize: 10, fill: EPOCH_COLOUR, dy: -rows[i] * 12 }}
      className="epoch-mark"
    />
  ));
}

/** A line where an endpoint went down or came back, in the colour of which. */
function endpointLines(endpoints: EndpointMark[], rows: number[]) {
  return endpoints.map((e, i) => (
    <ReferenceLine
      key={`endpoint-${i}`}
      x={e.t}
      stroke={ENDPOINT_COLOURS[e.state]}
      strokeDasharray="4 2"
      ifOverflow="hidden"
      label={{
        value: e.label,
        position: "insideTopLeft",
        fontSize: 10,
        fill: ENDPOINT_COLOURS[e.state],
        dy: rows[i] * 12,
      }}
      className={`endpoint-mark endpoint-mark-${e.state}`}
    />
  ));
}

/** A point of a rounds chart, findable by tests (`rounds-point`, or `testId`). */
export function RoundDot(props: DotProps & { shape?: MarkerShape; testId?: string }) {
  if (props.cx == null || props.cy == null || props.payload?.[props.dataKey ?? ""] == null) return null;
  return (
    <MarkerMark
      testId={props.testId ?? "rounds-point"}
      series={props.dataKey}
      shape={props.shape ?? "circle"}
      cx={props.cx}
      cy={props.cy}
      colour={props.stroke ?? SHARD_COLOUR}
    />
  );
}

export function RoundsChart(props: {
  data: Array<Record<string, number>>;
  series: SeriesSpec[];
  unit: string;
  right?: RightAxis;
  marks?: RoundMarkSpec[];
  /** Above this many rounds the marks' labels shrink to letters. */
  fullMarkLabels?: number;
  /** A log scale, so p50 lines are not squashed flat under p99.9 (latency's default). */
  log?: boolean;
  /** A legend of groups (each run, each phase and operation) in place of one entry a line. */
  legend?: LegendGroup[];
  height?: number;
  testId?: string;
}) {
  const right = props.right?.series.length ? props.right : undefined;
  const [hidden, toggle] = useHiddenSeries();
  const off = (key: string) => isHidden(hidden, key, props.legend);
  const rounds = props.data.map((d) => d.round).filter((r) => Number.isInteger(r));
  const marks = props.marks ?? [];
  const markRows = marks.length ? Math.max(...marks.map((m) => m.row)) + 1 : 0;
  const compact = rounds.length > (props.fullMarkLabels ?? 5);
  const lineKeys = props.series.map((s) => s.key).join("\n");
  const { data, unit } = useMemo(
    () => fitted(props.data, lineKeys ? lineKeys.split("\n") : [], props.unit),
    [props.data, lineKeys, props.unit],
  );
  return (
    <div className="chart" data-testid={props.testId ?? "rounds-chart"} data-scale={props.log ? "log" : "linear"} data-unit={unit}>
      <ResponsiveContainer width="100%" height={(props.height ?? 280) + markRows * MARK_ROW_PX}>
        <LineChart data={data} margin={{ top: 8 + markRows * MARK_ROW_PX, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={GRID_COLOUR} />
          <XAxis
            dataKey="round"
            type="number"
            domain={[Math.min(...rounds, 1) - ROUND_EDGE, Math.max(...rounds, 1) + ROUND_EDGE]}
            ticks={rounds}
            tickFormatter={(v: number) => `round ${v}`}
            fontSize={12}
          />
          <YAxis {...valueAxis(unit, props.log, data, lineKeysOf(props.series))} />
          {right && <RightYAxis axis={right} data={data} />}
          <Tooltip formatter={tooltipFormatter(unit, right)} labelFormatter={(v: unknown) => roundLabel(Number(v))} />
          {marks.map((m) => (
            <ReferenceLine
              key={`${m.row}-${m.round}`}
              x={m.round}
              ifOverflow="visible"
              shape={<RoundMarkShape mark={m} rows={markRows} compact={compact} />}
            />
          ))}
          {props.series.map((s, i) => (
            <Line
              key={s.key}
              dataKey={s.key}
              name={s.name ?? s.key}
              stroke={s.colour ?? colour(i)}
              strokeDasharray={s.dash}
              dot={<RoundDot shape={s.marker} />}
              activeDot={false}
              isAnimationActive={false}
              connectNulls
              hide={off(s.key)}
            />
          ))}
          {right?.series.map((s) => (
            <Line
              key={s.key}
              yAxisId={RIGHT_AXIS}
              type="stepAfter"
              dataKey={s.key}
              name={`${s.name ?? s.key} (right axis)`}
              stroke={s.colour ?? SHARD_COLOUR}
              strokeDasharray={s.dash}
              strokeWidth={s.width ?? 2.5}
              strokeOpacity={s.opacity ?? 0.75}
              dot={<ShardDot shape={s.marker} />}
              activeDot={false}
              isAnimationActive={false}
              connectNulls
              hide={off(s.key)}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
      <SeriesLegend series={props.legend ? [...props.legend, ...legendOf([], right)] : legendOf(props.series, right)} hidden={hidden} onToggle={toggle} />
    </div>
  );
}

/** A line of a distribution chart: latency (ms) at each percentile (as nines). */
export interface DistributionLine {
  name: string;
  points: Array<{ nines: number; ms: number }>;
  colour?: string;
  dash?: string;
  /** Drawn at the labelled percentiles (p50, p90, p99...), telling lines of one colour apart. */
  marker?: MarkerShape;
}

/** For each labelled percentile within a line's range, the index of its nearest point. */
export function markedPoints(points: Array<{ nines: number }>): Set<number> {
  const out = new Set<number>();
  if (!points.length) return out;
  const last = points[points.length - 1].nines;
  for (const tick of NINES_TICKS) {
    if (tick > last) break;
    let best = 0;
    points.forEach((p, i) => {
      if (Math.abs(p.nines - tick) < Math.abs(points[best].nines - tick)) best = i;
    });
    out.add(best);
  }
  return out;
}

function DistributionDot(props: DotProps & { index?: number; marked: Set<number>; shape?: MarkerShape }) {
  if (!props.shape || props.cx == null || props.cy == null || props.index == null || !props.marked.has(props.index)) return null;
  return <MarkerMark testId="distribution-point" series={props.dataKey} shape={props.shape} cx={props.cx} cy={props.cy} colour={props.stroke ?? SHARD_COLOUR} />;
}

/** Latency against percentile on a nines axis, one line per distribution; given in ms, shown in the unit that fits. */
export function DistributionChart(props: { lines: DistributionLine[]; height?: number }) {
  const fit = fitUnit("ms", Math.max(0, ...props.lines.flatMap((l) => l.points.map((p) => p.ms))));
  const lines = props.lines.map((l) => ({ ...l, points: scaleRows(l.points, ["ms"], fit.factor) }));
  const axis = logAxis(lines.flatMap((l) => l.points.map((p) => p.ms)));
  const [hidden, toggle] = useHiddenSeries();
  const legend = lines.map((l, i) => ({ key: l.name, name: l.name, colour: l.colour ?? colour(i), dash: l.dash, marker: l.marker }));
  return (
    <div className="chart" data-testid="distribution-chart" data-unit={fit.unit}>
      <ResponsiveContainer width="100%" height={props.height ?? 280}>
        <LineChart margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid strokeDasharray="3 3" stroke={GRID_COLOUR} />
          <XAxis
            dataKey="nines"
            type="number"
            domain={[0, 6]}
            ticks={[...NINES_TICKS, 6]}
            tickFormatter={(v: number) => (v >= 6 ? "max" : ninesLabel(v))}
            fontSize={12}
            allowDuplicatedCategory={false}
            label={{ value: "percentile", position: "insideBottomRight", offset: -2, fontSize: 12 }}
          />
          <YAxis
            dataKey="ms"
            fontSize={12}
            scale="log"
            domain={axis.domain}
            ticks={axis.ticks}
            allowDataOverflow
            tickFormatter={fmtNumber}
            label={{ value: fit.unit, angle: -90, position: "insideLeft", fontSize: 12 }}
          />
          <Tooltip
            formatter={(v: unknown, name: unknown) => [`${fmtNumber(v)} ${fit.unit}`, String(name)]}
            labelFormatter={(v: unknown) => (Number(v) >= 6 ? "max" : `p${ninesLabel(Number(v)).replace(" %", "")}`)}
          />
          {lines.map((l, i) => (
            <Line
              key={l.name}
              data={l.points}
              dataKey="ms"
              name={l.name}
              stroke={l.colour ?? colour(i)}
              strokeDasharray={l.dash}
              dot={<DistributionDot marked={markedPoints(l.points)} shape={l.marker} />}
              activeDot={false}
              isAnimationActive={false}
              hide={hidden.has(l.name)}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
      <SeriesLegend series={legend} hidden={hidden} onToggle={toggle} />
    </div>
  );
}

/** Picks which round metric a rounds chart shows (throughput, bandwidth, a percentile). */
export function MetricSelect(props: { value: string; onChange: (key: string) => void; label: string }) {
  return (
    <select value={props.value} onChange={(e) => props.onChange(e.target.value)} aria-label={props.label}>
      {Object.entries(METRICS).map(([k, v]) => (
        <option key={k} value={k}>
          {v.label} ({v.unit})
        </option>
      ))}
    </select>
  );
}
