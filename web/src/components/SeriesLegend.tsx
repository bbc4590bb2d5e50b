// A chart's legend that shows each series as drawn (its colour and dash pattern) and
// hides or shows a series when clicked, so a chart of twelve lines can be read one
// operation at a time.
import { useCallback, useState } from "react";

export interface LegendSeries {
  key: string;
  name: string;
  colour: string;
  dash?: string;
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
            <svg width="22" height="8" aria-hidden="true">
              <line x1="1" y1="4" x2="21" y2="4" stroke={s.colour} strokeWidth="2.5" strokeDasharray={s.dash || undefined} />
            </svg>
            {s.name}
          </button>
        );
      })}
    </div>
  );
}
