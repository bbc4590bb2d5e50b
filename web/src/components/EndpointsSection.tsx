// A run that drives several endpoints (gateways): what each took of every phase × round
// × operation, which gateway is slow (throughput and p99 per endpoint across the run's
// phases and rounds), and when one was lost and came back. Nothing for a run of one
// endpoint.
import { useState } from "react";
import type { EndpointsReport, SummaryRow } from "../api/types";
import { endpointHost, endpointKey, endpointOrder, endpointP99Ms, endpointPlaces, endpointThroughput, hasEndpointRows } from "../lib/endpoints";
import { markerOf, runColour } from "../lib/palette";
import { EndpointEventsTable } from "./EndpointEventsTable";
import { EndpointsTable } from "./EndpointsTable";
import { PlacesChart } from "./PlacesChart";

export function EndpointsSection(props: {
  /** The summary's rows (a stopped and resumed phase in its parts). */
  rows: SummaryRow[];
  /** Whole phases, what the chart across phases draws. */
  phases: SummaryRow[];
  /** The run's endpoints as its manifest lists them. */
  endpoints?: string[];
  report?: EndpointsReport | null;
}) {
  const events = props.report?.events ?? [];
  if (!hasEndpointRows(props.rows) && events.length === 0) return null;
  return (
    <section data-testid="endpoints-section">
      <h2>Endpoints</h2>
      {hasEndpointRows(props.rows) && (
        <>
          <EndpointsTable rows={props.rows} />
          <SlowGatewayCharts phases={props.phases} endpoints={endpointOrder(props.phases, props.endpoints, events)} />
        </>
      )}
      <h3>Endpoints down and up</h3>
      <EndpointEventsTable events={events} omitted={props.report?.omitted} />
    </section>
  );
}

/** Throughput and p99 of each endpoint at each phase × round × operation. */
function SlowGatewayCharts({ phases, endpoints }: { phases: SummaryRow[]; endpoints: string[] }) {
  const [latencyLog, setLatencyLog] = useState(true);
  const series = endpoints.map((e, i) => ({ key: endpointKey(i), name: endpointHost(e), colour: runColour(i), marker: markerOf(i) }));
  return (
    <div className="chart-grid">
      <div>
        <div className="title-row">
          <h3>Throughput per endpoint across phases and rounds</h3>
        </div>
        <PlacesChart testId="endpoints-throughput-chart" data={endpointPlaces(phases, endpoints, endpointThroughput)} series={series} unit="ops/s" />
      </div>
      <div>
        <div className="title-row">
          <h3>p99 latency per endpoint across phases and rounds</h3>
          <label className="muted">
            <input type="checkbox" checked={latencyLog} onChange={(e) => setLatencyLog(e.target.checked)} data-testid="endpoints-latency-log" /> log
            scale
          </label>
        </div>
        <PlacesChart testId="endpoints-p99-chart" data={endpointPlaces(phases, endpoints, endpointP99Ms)} series={series} unit="ms" log={latencyLog} />
      </div>
    </div>
  );
}
