// Each phase row's throughput and latency percentiles with their 95 % intervals (a
// bootstrap over the phase's own seconds, worked out by the server), or why a row has
// none: how far a figure of this run can be trusted before comparing it with another.
// Shown by the run page and the offline report alike.
import type { RowIntervals } from "../api/types";
import { fmtLatencyEstimate, fmtWithHalfWidth } from "../lib/estimates";
import { fmtMiBs, fmtRate } from "../lib/format";
import { placeLabel } from "../lib/rounds";

export function IntervalsSection({ rows }: { rows: RowIntervals[] | undefined }) {
  if (!rows?.length) return null;
  return (
    <section data-testid="intervals-section">
      <h3>With 95 % intervals</h3>
      <p className="muted">
        Each figure's interval from the phase's own measured seconds (a block bootstrap; percentiles from the seconds' histograms added up,
        never averaged). ±x % is half the interval's width; a latency shows the interval's ends. A phase of fewer seconds than an interval
        needs says so.
      </p>
      <table className="grid compact" data-testid="intervals-table">
        <thead>
          <tr>
            <th>Where</th>
            <th>Phase</th>
            <th>Op</th>
            <th className="num">Seconds</th>
            <th className="num">Throughput</th>
            <th className="num">Bandwidth</th>
            <th className="num">p50</th>
            <th className="num">p99</th>
            <th className="num">p99.9</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={i} data-testid="interval-row">
              <td>{placeLabel(r)}</td>
              <td>{r.phase}</td>
              <td>{r.op}</td>
              <td className="num">{r.seconds}</td>
              {r.ops_per_sec ? (
                <>
                  <td className="num" data-testid="interval-throughput">
                    {fmtWithHalfWidth(r.ops_per_sec, fmtRate(r.ops_per_sec.value))}
                  </td>
                  <td className="num">{r.mib_per_sec ? fmtWithHalfWidth(r.mib_per_sec, fmtMiBs(r.mib_per_sec.value)) : "–"}</td>
                  {[r.p50_us, r.p99_us, r.p999_us].map((e, q) => (
                    <td key={q} className="num" data-testid="interval-latency">
                      {e ? fmtLatencyEstimate(e) : "–"}
                    </td>
                  ))}
                </>
              ) : (
                <td colSpan={5} className="muted" data-testid="interval-none">
                  no interval: {r.none_because ?? "none was drawn"}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
