// What each endpoint (gateway) took of every phase × round × operation: its operations
// and share of them, throughput, bandwidth, p50 and p99, and errors by class. The
// shares of one row add up to 100 %.
import type { SummaryRow } from "../api/types";
import { endpointTableRows, errorClassesText } from "../lib/endpoints";
import { fmtCount, fmtLatency, fmtOpMiBs, fmtRate } from "../lib/format";

/** A share of a row's operations: `49.7 %`; "–" for a row without operations. */
export function fmtShare(share: number | null): string {
  return share == null ? "–" : `${share.toFixed(1)} %`;
}

export function EndpointsTable({ rows }: { rows: SummaryRow[] }) {
  return (
    <table className="grid compact" data-testid="endpoints-table">
      <thead>
        <tr>
          <th>Where</th>
          <th>Phase</th>
          <th>Op</th>
          <th>Endpoint</th>
          <th className="num">Operations</th>
          <th className="num" title="this endpoint's part of the row's operations">
            Share
          </th>
          <th className="num">Throughput</th>
          <th className="num">Bandwidth</th>
          <th className="num">p50</th>
          <th className="num">p99</th>
          <th className="num">Errors</th>
          <th>Errors by class</th>
        </tr>
      </thead>
      <tbody>
        {endpointTableRows(rows).map((r, i) => (
          <tr
            key={i}
            className={r.first && i > 0 ? "group-start" : undefined}
            data-testid="endpoint-row"
            data-endpoint={r.endpoint}
            data-place={`${r.place}|${r.phase}|${r.op}`}
            data-share={r.share ?? ""}
            data-p99-us={r.stats.latency_us.p99}
          >
            <td>{r.first ? r.place : ""}</td>
            <td>{r.first ? r.phase : ""}</td>
            <td>{r.first ? r.op : ""}</td>
            <td className="mono">{r.endpoint}</td>
            <td className="num">{fmtCount(r.stats.ops)}</td>
            <td className="num" data-testid="endpoint-share">
              {fmtShare(r.share)}
            </td>
            <td className="num">{fmtRate(r.stats.ops_per_sec)}</td>
            <td className="num">{fmtOpMiBs(r.op, r.stats.mib_per_sec)}</td>
            <td className="num">{r.stats.ops > 0 ? fmtLatency(r.stats.latency_us.p50) : "–"}</td>
            <td className="num" data-testid="endpoint-p99">
              {r.stats.ops > 0 ? fmtLatency(r.stats.latency_us.p99) : "–"}
            </td>
            <td className={`num ${r.stats.errors ? "bad" : ""}`}>{fmtCount(r.stats.errors)}</td>
            <td className={r.stats.errors ? "bad small" : "muted small"}>{errorClassesText(r.stats.error_classes) || "–"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
