// When each endpoint of a run was marked down and found up again: the time (from the
// run's start), the endpoint, the phase running then, and why (the last failure, or
// how long it was down).
import type { EndpointEvent } from "../api/types";
import { fmtCount, fmtDuration } from "../lib/format";
import { placeLabel } from "../lib/rounds";

export function EndpointEventsTable({ events, omitted = 0 }: { events: EndpointEvent[]; omitted?: number }) {
  if (events.length === 0) return <p className="muted" data-testid="endpoint-events-none">No endpoint went down.</p>;
  return (
    <>
      <table className="grid compact" data-testid="endpoint-events">
        <thead>
          <tr>
            <th className="num">Time</th>
            <th>Endpoint</th>
            <th>State</th>
            <th>Phase</th>
            <th className="num" title="down: the consecutive failures that marked it; up: the probes that failed before one answered">
              Failures
            </th>
            <th>Detail</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e, i) => (
            <tr key={i} data-testid="endpoint-event" data-state={e.state} data-endpoint={e.endpoint}>
              <td className="num nowrap">{fmtDuration(e.t_s)}</td>
              <td className="mono">{e.endpoint}</td>
              <td>
                <span className={`badge endpoint-${e.state}`}>{e.state}</span>
              </td>
              <td className="nowrap">{e.phase ? `${placeLabel(e.phase)} · ${e.phase.name}` : "–"}</td>
              <td className="num">{fmtCount(e.failures)}</td>
              <td className="small">{e.detail}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {omitted > 0 && <p className="muted small">{fmtCount(omitted)} later events are not listed.</p>}
    </>
  );
}
