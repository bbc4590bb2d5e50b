// The per-agent breakdown of a run merged from shards: each agent's own throughput
// and tail latency per operation, beside the merged numbers, to spot a slow client.
import type { MergedPart } from "../api/types";
import { fmtCount, fmtLatency, fmtRate } from "../lib/format";
import { StatusBadge } from "./states";

/** One row per shard and operation, slowest p99 of each operation marked. */
export function shardRows(parts: MergedPart[]) {
  const slowest = new Map<string, number>();
  for (const p of parts)
    for (const t of p.totals ?? []) slowest.set(t.op, Math.max(slowest.get(t.op) ?? 0, t.latency_us.p99));
  return parts.flatMap((p) =>
    (p.totals ?? []).map((t) => ({
      shard: `${p.shard.index}/${p.shard.count}`,
      host: p.host,
      runId: p.run_id,
      status: p.status,
      op: t.op,
      ops: t.ops,
      opsPerSec: t.ops_per_sec,
      p99: t.latency_us.p99,
      max: t.latency_us.max,
      slowest: parts.length > 1 && t.latency_us.p99 === slowest.get(t.op),
    })),
  );
}

export function ShardsSection({ parts }: { parts: MergedPart[] | undefined }) {
  if (!parts || parts.length === 0) return null;
  const rows = shardRows(parts);
  return (
    <>
      <h2>Per agent</h2>
      <p className="muted">
        Merged from {parts.length} shards: the numbers above add their histograms; here is each shard on its own.
      </p>
      <table className="grid compact" data-testid="per-agent-table">
        <thead>
          <tr>
            <th>shard</th>
            <th>host</th>
            <th>status</th>
            <th>op</th>
            <th className="num">ops</th>
            <th className="num">ops/s</th>
            <th className="num">p99</th>
            <th className="num">max</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.shard}-${r.op}`} data-testid="per-agent-row">
              <td title={r.runId}>{r.shard}</td>
              <td>{r.host}</td>
              <td>
                <StatusBadge status={r.status} />
              </td>
              <td>{r.op}</td>
              <td className="num">{fmtCount(r.ops)}</td>
              <td className="num">{fmtRate(r.opsPerSec)}</td>
              <td className={`num${r.slowest ? " bad" : ""}`} title={r.slowest ? "the slowest shard's p99 for this operation" : ""}>
                {fmtLatency(r.p99)}
              </td>
              <td className="num">{fmtLatency(r.max)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
