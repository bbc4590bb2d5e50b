// A chart's legend that shows each series as drawn (its colour and dash pattern) and
// hides or shows a series when clicked, so a chart of twelve lines can be read one
// operation at a time.
import { useCallback, useState } from "react";
import type { MarkerShape } from "../lib/palette";
import { MarkerMark } from "./Marker";

export interface LegendSeries {
  key: string;
  name: string;
  colour: string;
  dash?: string;
  /** The shape of its points, drawn on the line. */
  marker?: MarkerShape;
  /** Only the marker (an entry that stands for a shape, whatever the line's colour). */
  markerOnly?: boolean;
}

/**
 * A legend entry that stands for several series: a chart whose lines vary on two
 * dimensions (colour = operation, marker = run) lists each value of each once, not
 * every combination, so its legend fits a line. Clicking one hides or shows all its
 * series.
 */
export interface LegendGroup extends LegendSeries {
  members: string[];
}

/** Whether the series `key` is hidden: itself, or a group it belongs to. */
export function isHidden(hidden: Set<string>, key: string, groups?: LegendGroup[]): boolean {
  return groups ? groups.some((g) => hidden.has(g.key) && g.members.includes(key)) : hidden.has(key);
}

/** Which series are hidden, and a toggle for the legend. */
export function useHiddenSeries(): [Set<string>, (key: string) => void] {
  const [hidden, setHidden] = useState<Set<string>>(() => new Set());
  const toggle = useCallback((key: string) => {
    setHidden((h) => {
      const next = new Set(h);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  }, []);
  return [hidden, toggle];
}

export function SeriesLegend(props: { series: LegendSeries[]; hidden: Set<string>; onToggle: (key: string) => void }) {
  return (
    <div className="series-legend">
      {props.series.map((s) => {
        const off = props.hidden.has(s.key);
        return (
          <button
            key={s.key}
            type="button"
            className={`legend-item${off ? " off" : ""}`}
            aria-pressed={!off}
            title={off ? `show ${s.name}` : `hide ${s.name}`}
            data-testid="legend-item"
            data-series={s.key}
            onClick={() => props.onToggle(s.key)}
          >
            <svg width="22" height="10" aria-hidden="true">
              {!s.markerOnly && (
                <line x1="1" y1="5" x2="21" y2="5" stroke={s.colour} strokeWidth="2.5" strokeDasharray={s.dash || undefined} />
              )}
              {s.marker && <MarkerMark shape={s.marker} cx={11} cy={5} r={3} colour={s.colour} />}
            </svg>
            {s.name}
          </button>
        );
      })}
    </div>
  );
}
