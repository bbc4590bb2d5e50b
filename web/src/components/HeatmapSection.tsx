// "Latency heatmap" of a run: pick an operation, see every one of its requests placed
// by when and how long, with the bucket's reshards and stalls on the same time axis.
import { useEffect, useState } from "react";
import type { Heatmap, IndexReport } from "../api/types";
import { eventWindows } from "../lib/bucket-index";
import { type PauseSpan, pauseWindows } from "../lib/pauses";
import { heatmapExtent, widest } from "../lib/heatmap";
import { LatencyHeatmap } from "./LatencyHeatmap";
import { ErrorBox } from "./states";

export function HeatmapSection(props: {
  ops: string[];
  load: (op: string) => Promise<Heatmap>;
  index?: IndexReport | null;
  /** Load again this often (ms), for a run still going. */
  refreshMs?: number;
  /** The time axis (s from the run's start): a live run's, shared with its line
   * charts; a finished run's whole length, whichever operation is shown. */
  span?: [number, number];
  /** When the run did not run: its band is shaded and labelled. */
  pauses?: PauseSpan[];
}) {
  const { ops, load, refreshMs } = props;
  const [op, setOp] = useState(ops[0] ?? "");
  const [heatmap, setHeatmap] = useState<Heatmap | null>(null);
  const [error, setError] = useState<unknown>(null);
  const chosen = ops.includes(op) ? op : (ops[0] ?? "");
  useEffect(() => {
    if (!chosen) return;
    let live = true;
    const fetchIt = () =>
      load(chosen).then(
        (h) => live && (setHeatmap(h), setError(null)),
        (e: unknown) => live && setError(e),
      );
    fetchIt();
    const timer = refreshMs ? setInterval(fetchIt, refreshMs) : undefined;
    return () => {
      live = false;
      if (timer) clearInterval(timer);
    };
  }, [chosen, load, refreshMs]);
  if (!chosen) return null;
  const shown = heatmap?.op === chosen ? heatmap : null;
  const windows = shown
    ? [
        ...(props.index ? eventWindows(props.index.reshards, props.index.stalls, ...heatmapExtent(shown)) : []),
        ...pauseWindows(props.pauses ?? [], heatmapExtent(shown)),
      ]
    : [];
  return (
    <div data-testid="heatmap-section">
      <div className="title-row">
        <h2>Latency heatmap</h2>
        <select value={chosen} onChange={(e) => setOp(e.target.value)} aria-label="heatmap operation" data-testid="heatmap-op">
          {ops.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </div>
      {error != null && <ErrorBox error={error} />}
      {shown && <LatencyHeatmap heatmap={shown} windows={windows} span={props.span && widest(props.span, shown)} />}
    </div>
  );
}
