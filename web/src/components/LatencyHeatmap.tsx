// The latency heatmap of one operation: x = time, y = latency on a log scale, colour =
// operations per second in the cell, drawn from the recorded interval histograms (exact,
// each at the time it really covers) into one
// canvas; phase boundaries and reshard / stall windows on the same time axis as a few
// positioned elements. The run page, the live page (growing) and the offline report
// show it.
import { useEffect, useMemo, useRef } from "react";
import type { TimeWindow } from "../lib/bucket-index";
import { fmtCount } from "../lib/format";
import { type Heatmap, cellColour, heatmapExtent, heatmapPixels, heatmapTotal, labelRows, maxRate, timeTicks } from "../lib/heatmap";
import { heatmapRowAxis } from "../lib/heatmap-rows";
import { SCALE_PX, scaleLabels } from "../lib/heatmap-scale";
import { EVENT_COLOURS } from "../lib/palette";

export function LatencyHeatmap(props: {
  heatmap: Heatmap;
  windows?: TimeWindow[];
  /** The time axis (s from the run's start); by default the columns'. A live run's is
   * wider than what it measured so far, so its first seconds are not stretched across. */
  span?: [number, number];
  testId?: string;
}) {
  const h = props.heatmap;
  const canvas = useRef<HTMLCanvasElement>(null);
  const [from, to] = props.span ?? heatmapExtent(h);
  // A phase shorter than a second spans the width, as on its line charts.
  const span = Math.max(to - from, 0.01);
  // The latency rows from the fastest operation's to the slowest's, at 1-2-5 bounds.
  const rows = useMemo(() => heatmapRowAxis(h.rows_us, h.counts), [h]);
  const pixels = useMemo(() => heatmapPixels(h, from, from + span, undefined, [rows.from, rows.to]), [h, from, span, rows]);
  const max = useMemo(() => maxRate(h), [h]);
  useEffect(() => {
    const ctx = canvas.current?.getContext("2d");
    if (!ctx || pixels.width === 0) return;
    ctx.putImageData(new ImageData(pixels.data, pixels.width, pixels.height), 0, 0);
  }, [pixels]);
  const x = (t: number) => `${Math.min(100, Math.max(0, ((t - from) / span) * 100))}%`;
  const windows = (props.windows ?? []).filter((w) => w.x2 >= from && w.x1 <= from + span);
  const canvasPlace = { left: "0%", width: "100%" };
  // A label takes about a tenth of the plot: closer ones go on a row below.
  const phaseRows = labelRows(
    h.phases.map((p) => (p.t_s - from) / span),
    0.1,
  );
  return (
    <div
      className="heatmap"
      data-testid={props.testId ?? "latency-heatmap"}
      data-columns={h.counts.length}
      data-total={heatmapTotal(h)}
      data-span={span}
      data-extent={heatmapExtent(h).join(",")}
      data-rows={`${rows.from},${rows.to}`}
    >
      <div className="heatmap-axis" data-testid="heatmap-latency-axis">
        {rows.labels.map((l) => (
          <span key={l.label} style={{ bottom: `${l.at * 100}%` }}>
            {l.label}
          </span>
        ))}
      </div>
      <div className="heatmap-plot">
        {pixels.width > 0 && <canvas ref={canvas} width={pixels.width} height={pixels.height} style={canvasPlace} data-testid="heatmap-canvas" />}
        {windows.map((w) => (
          <div
            key={`${w.kind}-${w.id}`}
            className="heatmap-window"
            data-testid="heatmap-window"
            title={w.title}
            data-kind={w.kind}
            style={{ left: x(w.x1), width: `calc(${x(w.x2)} - ${x(w.x1)})`, background: EVENT_COLOURS[w.kind] }}
          />
        ))}
        {/* A pause is an empty band that must not read as the store going quiet. */}
        {windows
          .filter((w) => w.kind === "pause")
          .map((w) => (
            <span key={`label-${w.id}`} className="heatmap-window-label" data-testid="heatmap-pause-label" title={w.title} style={{ left: x(w.x1) }}>
              {w.label}
            </span>
          ))}
        {h.phases.map((p, i) => (
          <div key={i} className="heatmap-phase" data-testid="heatmap-phase" style={{ left: x(p.t_s) }}>
            <span style={{ top: `${2 + phaseRows[i] * 13}px` }}>{p.round != null ? `r${p.round} ${p.phase}` : p.phase}</span>
          </div>
        ))}
      </div>
      <div className="heatmap-time" data-testid="heatmap-time">
        {timeTicks(from, from + span).map((t) => (
          <span key={t.label} style={{ left: `${t.at * 100}%` }}>
            {t.label}
          </span>
        ))}
      </div>
      <div className="muted small heatmap-key">
        {fmtCount(heatmapTotal(h))} {h.op.toUpperCase()}s,{" "}
        {h.merged === 1 ? "a column per recorded second, where it ran" : `a column per ${h.merged} recorded seconds, where they ran`}
        ; operations per second in a cell (log scale, clear = none):
        <HeatmapScale max={max} />
        {windows.length > 0 && `shaded: ${shadedKinds(windows)}`}
      </div>
    </div>
  );
}

/** The colour scale with rates on it (operations per second), as the cells are coloured. */
function HeatmapScale({ max }: { max: number }) {
  const stops = [0, 0.25, 0.5, 0.75, 1].map((t) => {
    const [r, g, b] = cellColour(Math.max(1, Math.round(Math.expm1(t * Math.log1p(max)))), max);
    return `rgb(${r}, ${g}, ${b}) ${t * 100}%`;
  });
  return (
    <span className="heatmap-scale" data-testid="heatmap-scale" style={{ width: `${SCALE_PX}px` }}>
      <span className="heatmap-scale-bar" style={{ background: `linear-gradient(to right, ${stops.join(", ")})` }} />
      {scaleLabels(max).map((l) => (
        <span key={l.count} className="heatmap-scale-tick" data-testid="heatmap-scale-label" style={{ left: `${l.left}px`, width: `${l.width}px` }}>
          {l.text}
        </span>
      ))}
    </span>
  );
}

/** What a heatmap's shading stands for: `reshards and write stalls`, `pauses`. */
export function shadedKinds(windows: TimeWindow[]): string {
  const names = (
    [
      ["reshard", "reshards"],
      ["stall", "write stalls"],
      ["pause", "pauses (of the run, or of the shard named)"],
    ] as const
  )
    .filter(([k]) => windows.some((w) => w.kind === k))
    .map(([, name]) => name);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : (names[0] ?? "");
}
