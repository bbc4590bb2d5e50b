// What charts draw over their lines: the shard lines' right-hand axis and dots, the
// shaded reshard and stall windows of a time chart with their key, and the marked
// rounds of a rounds chart. Each carries a data-testid the browser tests look for.
import { YAxis } from "recharts";
import { type RoundMarkSpec, type TimeWindow, shardTicks } from "../lib/bucket-index";
import { EVENT_COLOURS, type MarkerShape, PAPER_COLOUR } from "../lib/palette";
import { markerPath } from "./Marker";

export interface SeriesSpec {
  key: string;
  name?: string;
  colour?: string;
  dash?: string;
  /** The shape of its points (rounds charts), where colour and dash alone are shared. */
  marker?: MarkerShape;
  width?: number;
  opacity?: number;
}

/** Step lines drawn against a second, right-hand axis. */
export interface RightAxis {
  unit: string;
  series: SeriesSpec[];
}

export const RIGHT_AXIS = "right";
const WINDOW_COLOURS: Record<TimeWindow["kind"], string> = EVENT_COLOURS;

export interface DotProps {
  cx?: number;
  cy?: number;
  stroke?: string;
  payload?: Record<string, number>;
  dataKey?: string;
}

/** The right-hand axis of the shard lines: whole numbers, 0 up to a round number above the highest. */
export function RightYAxis({ axis, data }: { axis: RightAxis; data: Array<Record<string, unknown>> }) {
  const max = data.reduce((m, row) => axis.series.reduce((mm, s) => Math.max(mm, Number(row[s.key] ?? 0) || 0), m), 0);
  const ticks = shardTicks(max);
  return (
    <YAxis
      yAxisId={RIGHT_AXIS}
      orientation="right"
      allowDecimals={false}
      domain={[0, ticks[ticks.length - 1]]}
      ticks={ticks}
      fontSize={12}
      tickFormatter={fmtInteger}
      label={{ value: axis.unit, angle: 90, position: "insideRight", fontSize: 12 }}
    />
  );
}

interface StepDotProps extends DotProps {
  index?: number;
  rows: Array<Record<string, unknown>>;
}

/** Marks where a step line changes value (and where it starts), findable by tests. */
export function StepDot(props: StepDotProps) {
  const key = props.dataKey ?? "";
  const value = props.payload?.[key];
  if (props.cx == null || props.cy == null || value == null || props.index == null) return null;
  const previous = props.index > 0 ? props.rows[props.index - 1]?.[key] : undefined;
  if (previous === value) return null;
  return (
    <circle
      data-testid="shard-step"
      data-series={key}
      data-shards={value}
      cx={props.cx}
      cy={props.cy}
      r={3}
      fill={props.stroke}
      stroke={PAPER_COLOUR}
    />
  );
}

const WINDOW_NAMES: Record<TimeWindow["kind"], string> = { reshard: "reshard", stall: "write stall", pause: "a pause (of the run, or of the shard it names)" };

/** Roughly how wide a label of 11 px text is, in px. */
function labelWidth(text: string): number {
  return text.length * 6.2 + 6;
}

/** The window's label if it fits inside it, else its initial if that fits, else nothing. */
function windowLabel(w: TimeWindow, width: number): string {
  if (labelWidth(w.label) <= width) return w.label;
  const initial = w.kind === "reshard" ? "R" : "S";
  return labelWidth(initial) <= width ? initial : "";
}

/**
 * A shaded window of the time chart (a reshard or a stall), labelled when the label
 * fits inside it, with its full story as a tooltip. Reshards are labelled at the top,
 * stalls at the bottom, so the two rarely collide.
 */
export function WindowShape(props: { x?: number; y?: number; width?: number; height?: number; clipPath?: string; window: TimeWindow }) {
  const { x = 0, y = 0, width = 0, height = 0, window: w } = props;
  const label = windowLabel(w, width);
  return (
    <g data-testid={`${w.kind}-window`} data-label={w.label} clipPath={props.clipPath} style={{ cursor: "help" }}>
      <title>{w.title}</title>
      <rect x={x} y={y} width={Math.max(width, 1)} height={height} fill={WINDOW_COLOURS[w.kind]} fillOpacity={w.kind === "reshard" ? 0.12 : 0.16} />
      {label && (
        <text x={x + 3} y={w.kind === "stall" ? y + height - 4 : y + 12} fontSize={11} fill={WINDOW_COLOURS[w.kind]}>
          {label}
        </text>
      )}
    </g>
  );
}

/** What the shading of a time chart means, shown under it when it has any. */
export function WindowKey({ windows }: { windows: TimeWindow[] }) {
  const kinds = (["reshard", "stall", "pause"] as const).filter((k) => windows.some((w) => w.kind === k));
  if (!kinds.length) return null;
  return (
    <div className="window-key">
      Shaded:
      {kinds.map((k) => (
        <span key={k}>
          <span className="swatch" style={{ background: WINDOW_COLOURS[k], opacity: 0.35 }} /> {WINDOW_NAMES[k]}
        </span>
      ))}
      <span className="muted">(hover for details)</span>
    </div>
  );
}

function fmtInteger(v: unknown): string {
  const n = Number(v);
  return Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : String(v);
}

/** A filled marker (a square unless the line has a shape of its own) on the shard line
 * at each round, findable by tests (`shard-point`). */
export function ShardDot(props: DotProps & { shape?: MarkerShape }) {
  const value = props.payload?.[props.dataKey ?? ""];
  if (props.cx == null || props.cy == null || value == null || !Number.isInteger(props.payload?.round)) return null;
  const shape = props.shape ?? "square";
  return (
    <path
      data-testid="shard-point"
      data-series={props.dataKey}
      data-shards={value}
      data-marker={shape}
      d={markerPath(shape, props.cx, props.cy, 3)}
      fill={props.stroke}
      stroke={props.stroke}
    />
  );
}

export const MARK_ROW_PX = 17;

/** A marked round: a dashed line at its x and a label above the plot, one row per run. */
export function RoundMarkShape(props: { x1?: number; y1?: number; x2?: number; y2?: number; mark: RoundMarkSpec; rows: number; compact: boolean }) {
  const { x1 = 0, y1 = 0, y2 = 0, mark, rows, compact } = props;
  const top = Math.min(y1, y2);
  const bottom = Math.max(y1, y2);
  const text = compact ? mark.short : mark.text;
  const width = text.length * 6 + 10;
  const y = top - (rows - mark.row) * MARK_ROW_PX;
  return (
    <g data-testid="round-mark" data-round={mark.round} data-kind={mark.kind} style={{ cursor: "help" }}>
      <title>{mark.title}</title>
      <line x1={x1} x2={x1} y1={y + 14} y2={bottom} stroke={mark.colour} strokeDasharray="3 3" strokeOpacity={0.7} />
      <rect x={x1 - width / 2} y={y} width={width} height={14} rx={3} fill={PAPER_COLOUR} stroke={mark.colour} />
      <text x={x1} y={y + 10.5} textAnchor="middle" fontSize={10} fill={mark.colour}>
        {text}
      </text>
    </g>
  );
}

