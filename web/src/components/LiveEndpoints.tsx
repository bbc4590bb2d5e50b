// The live page's endpoints of a run that drives several: what each did in the latest
// second (throughput, the p99 of its slowest operation, errors) and which are down,
// then the down and up events as they come.
import type { EndpointEvent } from "../api/types";
import { type LiveEndpointRow, liveEndpointRows } from "../lib/endpoints";
import { fmtCount, fmtDuration, fmtLatency, fmtRate } from "../lib/format";
import type { LiveState } from "../lib/live";
import { EndpointEventsTable } from "./EndpointEventsTable";

/** Newest first, at most this many events listed (all are marked on the charts). */
const LISTED_EVENTS = 10;

export function LiveEndpoints({ state }: { state: LiveState }) {
  const events: EndpointEvent[] = state.endpointEvents;
  const rows = liveEndpointRows(state.endpointOps, events, state.endpoints);
  if (rows.length === 0) return null;
  return (
    <div className="chart-grid" data-testid="live-endpoints">
      <div>
        <h3>Endpoints in the latest second</h3>
        <LiveEndpointsTable rows={rows} />
      </div>
      <div>
        <h3>Endpoints down and up</h3>
        <EndpointEventsTable events={events.slice(-LISTED_EVENTS).reverse()} omitted={Math.max(0, events.length - LISTED_EVENTS)} />
      </div>
    </div>
  );
}

function LiveEndpointsTable({ rows }: { rows: LiveEndpointRow[] }) {
  return (
    <table className="grid compact" data-testid="live-endpoints-table">
      <thead>
        <tr>
          <th>Endpoint</th>
          <th>State</th>
          <th className="num">Throughput</th>
          <th className="num" title="the p99 of its slowest operation in the latest second">
            p99
          </th>
          <th className="num">Errors</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.endpoint} data-testid="live-endpoint-row" data-endpoint={r.endpoint} data-down={r.down ? "true" : "false"}>
            <td className="mono">{r.endpoint}</td>
            <td>
              {r.down ? (
                <span className="badge endpoint-down" title={r.down.detail}>
                  down since {fmtDuration(r.down.t_s)}
                </span>
              ) : (
                <span className="badge endpoint-up">up</span>
              )}
            </td>
            <td className="num">{r.opsPerSec == null ? "–" : fmtRate(r.opsPerSec)}</td>
            <td className="num" title={r.p99op}>
              {r.p99us == null ? "–" : `${fmtLatency(r.p99us)}${r.p99op ? ` (${r.p99op})` : ""}`}
            </td>
            <td className={`num ${r.errors ? "bad" : ""}`}>{fmtCount(r.errors)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
