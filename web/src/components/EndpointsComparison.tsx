// The compare page's endpoints: for runs that drive several endpoints, each endpoint's
// throughput and p99 per phase × operation, run beside run (all rounds together:
// total operations / total time, and the worst round's p99). Endpoints are matched by
// URL; one a run did not drive reads "–".
import type { SummaryRow } from "../api/types";
import { compareEndpoints, hasEndpointRows } from "../lib/endpoints";
import { fmtLatency, fmtRate } from "../lib/format";
import { markerOf } from "../lib/palette";
import { MarkerGlyph } from "./Marker";

export function EndpointsComparison({ runs }: { runs: Array<{ label: string; rows: SummaryRow[] }> }) {
  if (!runs.some((r) => hasEndpointRows(r.rows))) return null;
  const lines = compareEndpoints(runs.map((r) => r.rows));
  return (
    <section data-testid="compare-endpoints">
      <h2>Endpoints</h2>
      <p className="muted">
        What each endpoint did in each run, all rounds together: throughput is its operations / the phase's measured time, p99 the worst
        round's.
      </p>
      <table className="grid compact" data-testid="compare-endpoints-table">
        <thead>
          <tr>
            <th rowSpan={2}>Phase · op</th>
            <th rowSpan={2}>Endpoint</th>
            {runs.map((r, i) => (
              <th key={r.label} colSpan={2} className="num">
                <MarkerGlyph shape={markerOf(i)} /> {r.label}
              </th>
            ))}
          </tr>
          <tr>
            {runs.flatMap((r) => [
              <th key={`${r.label} ops`} className="num">
                ops/s
              </th>,
              <th key={`${r.label} p99`} className="num">
                p99
              </th>,
            ])}
          </tr>
        </thead>
        <tbody>
          {lines.map((l, i) => {
            const first = i === 0 || lines[i - 1].phase !== l.phase || lines[i - 1].op !== l.op || lines[i - 1].section !== l.section;
            return (
              <tr key={`${l.section}|${l.phase}|${l.op}|${l.endpoint}`} className={first && i > 0 ? "group-start" : undefined} data-testid="compare-endpoint-row" data-endpoint={l.endpoint}>
                <td>{first ? `${l.section === "round" ? "rounds" : l.section} · ${l.phase} · ${l.op}` : ""}</td>
                <td className="mono">{l.endpoint}</td>
                {l.runs.flatMap((a, run) => [
                  <td key={`${run} ops`} className="num" data-testid="compare-endpoint-ops">
                    {a ? fmtRate(a.ops_per_sec) : "–"}
                  </td>,
                  <td key={`${run} p99`} className="num" data-testid="compare-endpoint-p99">
                    {a && a.ops > 0 ? fmtLatency(a.worst_p99_us) : "–"}
                  </td>,
                ])}
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
