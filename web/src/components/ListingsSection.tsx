// A run's complete listings: a table of each one (mode, listers, keys, time, keys/s)
// and, when a list phase ran at two sizes or more (the list-scaling workload), list time
// against objects with the fitted line per phase (in colours no operation has) and what
// it predicts for a bucket of the size the reader types in, with the 95 % prediction
// interval, or why it does not say (R² under 0.9, or a bucket over 100× the largest
// listing measured).
import { useState } from "react";
import {
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ResponsiveContainer,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import type { ListingsReport, ScalingLine } from "../api/types";
import { fmtBytes, fmtCount } from "../lib/format";
import { placeLabel } from "../lib/rounds";
import { type Extrapolation as Extrapolated, extrapolate, fitEnds, fmtKeyCount, humanDuration, parseKeyCount } from "../lib/scaling";
import { scalingColour } from "../lib/palette";

const DEFAULT_EXTRAPOLATION = "67 billion";

function listers(n: number): string {
  return n === 1 ? "1 lister" : `${n} listers`;
}

export function ListingsSection({ report }: { report?: ListingsReport | null }) {
  if (!report || report.listings.length === 0) return null;
  const fitted = report.lines.filter((l) => l.fit);
  return (
    <section data-testid="listings">
      <h2>Complete listings</h2>
      {fitted.length > 0 && (
        <div className="chart-grid">
          <ScalingChart report={report} />
          <Extrapolation fitted={fitted} />
        </div>
      )}
      <ListingsTable listings={report.listings} />
    </section>
  );
}

/** List time against objects: each list phase's listings as points, its fitted line dashed. */
function ScalingChart({ report }: { report: ListingsReport }) {
  const fitted = report.lines.filter((l) => l.fit);
  const maxKeys = Math.max(...report.listings.map((l) => l.outcome.keys), 1);
  return (
    <div>
      <h3>List time against objects, with fitted lines (s)</h3>
      <div className="chart" data-testid="list-scaling-chart">
        <ResponsiveContainer width="100%" height={300}>
          <ComposedChart margin={{ top: 8, right: 16, bottom: 8, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis
              type="number"
              dataKey="keys"
              domain={[0, maxKeys]}
              tickFormatter={(v: number) => fmtCount(v)}
              label={{ value: "objects listed", position: "insideBottomRight", offset: -4 }}
            />
            <YAxis type="number" unit=" s" width={64} />
            <Tooltip formatter={(v: unknown) => `${Number(v).toFixed(2)} s`} labelFormatter={(v: unknown) => `${fmtCount(Number(v))} objects`} />
            <Legend />
            {report.lines.map((l, i) => (
              <Scatter
                key={`${l.phase} points`}
                name={`${l.phase} (${l.mode}, ${listers(l.listers)})`}
                data={l.points.map((p) => ({ keys: p.keys, seconds: p.seconds }))}
                dataKey="seconds"
                fill={scalingColour(i)}
                isAnimationActive={false}
              />
            ))}
            {fitted.map((l) => {
              const i = report.lines.indexOf(l);
              return (
                <Line
                  key={`${l.phase} fit`}
                  name={`${l.phase} fit (R² ${l.fit!.r2.toFixed(3)})`}
                  data={fitEnds(l, maxKeys)}
                  dataKey={`${l.phase} fit`}
                  stroke={scalingColour(i)}
                  strokeDasharray="6 3"
                  dot={false}
                  isAnimationActive={false}
                  legendType="plainline"
                />
              );
            })}
          </ComposedChart>
        </ResponsiveContainer>
      </div>
    </div>
  );
}

/** Each fitted line, and how long it says a bucket of the size the reader types in takes to list. */
function Extrapolation({ fitted }: { fitted: ScalingLine[] }) {
  const [target, setTarget] = useState(DEFAULT_EXTRAPOLATION);
  const keys = parseKeyCount(target);
  return (
    <div>
      <h3>Extrapolated</h3>
      <label className="inline">
        A bucket of{" "}
        <input
          value={target}
          onChange={(e) => setTarget(e.target.value)}
          aria-label="keys to extrapolate to"
          data-testid="extrapolate-input"
          size={14}
        />{" "}
        keys {keys == null ? <span className="bad">(write a count such as 67e9 or 5 million)</span> : null}
      </label>
      <table className="grid compact" data-testid="extrapolation-table">
        <thead>
          <tr>
            <th>Phase</th>
            <th>Fitted line</th>
            <th className="num">R²</th>
            <th className="num">Rate</th>
            <th>{keys == null ? "Time" : `${fmtKeyCount(keys)} keys take (95 % prediction interval)`}</th>
          </tr>
        </thead>
        <tbody>
          {fitted.map((l) => (
            <tr key={l.phase}>
              <td>
                {l.phase} ({l.mode}, {listers(l.listers)})
              </td>
              <td className="mono">
                {(Math.abs(l.fit!.intercept_s) < 0.0005 ? 0 : l.fit!.intercept_s).toFixed(3)} s + {(l.fit!.slope_s_per_key * 1e6).toFixed(3)} µs/key
              </td>
              <td className="num" data-testid={`r2-${l.phase}`}>
                {l.fit!.r2.toFixed(4)}
              </td>
              <td className="num">{fmtCount(Math.round(1 / l.fit!.slope_s_per_key))} keys/s</td>
              <td data-testid={`extrapolated-${l.phase}`}>{keys == null ? "–" : <ExtrapolatedTime at={extrapolate(l.fit!, keys)} />}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Listing time grows linearly with the key count while the store keeps its page rate. A line is extrapolated only where it
        describes what was measured (three sizes or more, R² at least 0.9) and at most 100× beyond the largest listing; the range is
        where a listing of that size falls 19 times in 20 if the store keeps behaving as it did.
      </p>
    </div>
  );
}

/** A line's time for the bucket with its interval, or why it gives none. */
function ExtrapolatedTime({ at }: { at: Extrapolated }) {
  if (at.refusal != null) return <span className="warn-text">not extrapolated: {at.refusal}</span>;
  const p = at.prediction;
  return (
    <>
      <span className="num">{humanDuration(p.seconds)}</span>{" "}
      <span className="muted" data-testid="prediction-interval">
        ({humanDuration(p.low)} to {humanDuration(p.high)})
      </span>
    </>
  );
}

/** One row per complete listing: where it ran, how, and how fast. */
function ListingsTable({ listings }: { listings: ListingsReport["listings"] }) {
  return (
    <table className="grid compact" data-testid="listings-table">
      <thead>
        <tr>
          <th>Where</th>
          <th>Phase</th>
          <th>Bucket</th>
          <th>Mode</th>
          <th className="num">Listers</th>
          <th className="num">Keys</th>
          <th className="num">Bytes listed</th>
          <th className="num">Time</th>
          <th className="num">Keys/s</th>
          <th className="num">Requests</th>
          <th className="num">Ranges (cut)</th>
        </tr>
      </thead>
      <tbody>
        {listings.map((l) => {
          const o = l.outcome;
          return (
            <tr key={l.id}>
              <td>{placeLabel(l.phase)}</td>
              <td>{l.phase.name}</td>
              <td>{o.bucket}</td>
              <td>{o.mode.mode}</td>
              <td className="num">{o.listers}</td>
              <td className="num">{fmtCount(o.keys)}</td>
              <td className="num">{fmtBytes(o.bytes)}</td>
              <td className="num">
                {o.seconds.toFixed(2)} s{o.complete ? "" : " (stopped)"}
              </td>
              <td className="num">{fmtCount(Math.round(o.keys / Math.max(o.seconds, 1e-9)))}</td>
              <td className="num">
                {fmtCount(o.requests)}
                {o.errors ? <span className="bad"> ({o.errors} failed)</span> : null}
              </td>
              <td className="num">
                {fmtCount(o.ranges)} ({fmtCount(o.cuts)})
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
