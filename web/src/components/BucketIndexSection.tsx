// The "Bucket index" section of a run: each bucket's shards from start to end, every
// reshard and write stall with what they are linked to, and what polling the index
// cost. Nothing at all for a run whose bucket index was not tracked and never stalled.
import type { IndexPollingEvent, IndexReport, ReshardRecord, StallRecord, SummaryRow } from "../api/types";
import {
  bucketTotals,
  hasIndexData,
  linkedStalls,
  reshardText,
  reshardWhen,
  stallHeldText,
  stallSeconds,
  stallWhere,
} from "../lib/bucket-index";
import { fmtCount, fmtLatency, fmtRate } from "../lib/format";

function BucketsTable({ rows, reshards }: { rows: SummaryRow[]; reshards: ReshardRecord[] }) {
  const totals = bucketTotals(rows, reshards);
  if (!totals.length) return null;
  return (
    <table className="grid compact" data-testid="index-buckets">
      <thead>
        <tr>
          <th>Bucket</th>
          <th className="num">Index shards at the start</th>
          <th className="num">Index shards at the end</th>
          <th className="num">Objects at the end</th>
          <th className="num">Reshards</th>
        </tr>
      </thead>
      <tbody>
        {totals.map((t) => (
          <tr key={t.bucket}>
            <td className="mono">{t.bucket}</td>
            <td className="num">{fmtCount(t.startShards)}</td>
            <td className="num">{fmtCount(t.endShards)}</td>
            <td className="num">{fmtCount(t.endObjects)}</td>
            <td className="num">{t.reshards}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function ReshardsTable({ reshards, stalls }: { reshards: ReshardRecord[]; stalls: StallRecord[] }) {
  if (!reshards.length) return <p className="muted" data-testid="no-reshards">No reshard: every bucket kept its index shards.</p>;
  return (
    <table className="grid compact" data-testid="reshards-table">
      <thead>
        <tr>
          <th>Bucket</th>
          <th className="num">Index shards</th>
          <th className="num">Objects</th>
          <th>When (between the polls that saw it)</th>
          <th>Write stalls linked</th>
        </tr>
      </thead>
      <tbody>
        {reshards.map((r) => (
          <tr key={r.id} data-testid="reshard-row">
            <td className="mono">{r.bucket}</td>
            <td className="num">
              {fmtCount(r.from_shards)} → {fmtCount(r.to_shards)}
            </td>
            <td className="num">{fmtCount(r.objects)}</td>
            <td>{reshardWhen(r)}</td>
            <td>
              {linkedStalls(r, stalls).map((s) => (
                <div key={typeof s === "number" ? s : s.id}>{typeof s === "number" ? `event ${s}` : linkedStallText(s)}</div>
              ))}
              {linkedStalls(r, stalls).length === 0 && <span className="muted">none</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A stall linked to a reshard: where it was, and the writes it held. */
function linkedStallText(s: StallRecord): string {
  const held = stallHeldText(s);
  return held ? `${stallWhere(s)}: ${held}` : stallWhere(s);
}

function StallsTable({ stalls, reshards }: { stalls: StallRecord[]; reshards: ReshardRecord[] }) {
  if (!stalls.length) return <p className="muted" data-testid="no-stalls">No write stall.</p>;
  return (
    <table className="grid compact" data-testid="stalls-table">
      <thead>
        <tr>
          <th>Where</th>
          <th className="num">Length</th>
          <th className="num">Lowest write ops/s (median before)</th>
          <th className="num">Highest write p99 (median before)</th>
          <th>Writes held</th>
          <th>Reshard linked</th>
        </tr>
      </thead>
      <tbody>
        {stalls.map((s) => {
          const reshard = reshards.find((r) => r.id === s.reshard);
          return (
            <tr key={s.id} data-testid="stall-row">
              <td>{stallWhere(s)}</td>
              <td className="num">{stallSeconds(s)} s</td>
              <td className={`num ${s.throughput ? "bad" : ""}`}>
                {fmtRate(s.min_write_ops_per_sec)} ({fmtRate(s.median_write_ops_per_sec)})
              </td>
              <td className={`num ${s.latency ? "bad" : ""}`}>
                {s.max_write_p99_us > 0 ? fmtLatency(s.max_write_p99_us) : "no write finished"} ({fmtLatency(s.median_write_p99_us)})
              </td>
              <td data-testid="stall-held">{stallHeldText(s) ?? <span className="muted">none counted</span>}</td>
              <td>{reshard ? `${reshardText(reshard, true)}, ${reshardWhen(reshard)}` : <span className="muted">none</span>}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function PollingCost({ polling }: { polling: IndexPollingEvent }) {
  return (
    <p className="muted" data-testid="index-polling">
      Polled the index {fmtCount(polling.polls)} times for {polling.buckets} bucket{polling.buckets === 1 ? "" : "s"}
      {polling.failures ? `, ${fmtCount(polling.failures)} failed` : ", none failed"}; one poll took {polling.p50_ms.toFixed(1)} ms at
      p50, {polling.p99_ms.toFixed(1)} ms at p99 (max {polling.max_ms.toFixed(1)} ms).
    </p>
  );
}

export function BucketIndexSection({ report, rows }: { report: IndexReport | null | undefined; rows: SummaryRow[] }) {
  if (!hasIndexData(report, rows)) return null;
  const reshards = report?.reshards ?? [];
  const stalls = report?.stalls ?? [];
  const tracked = reshards.length > 0 || report?.polling != null || rows.some((r) => r.index_at_start?.length || r.index_at_end?.length);
  return (
    <section data-testid="bucket-index">
      <h2>Bucket index</h2>
      {tracked ? (
        <>
          <BucketsTable rows={rows} reshards={reshards} />
          <h3>Reshards</h3>
          <ReshardsTable reshards={reshards} stalls={stalls} />
        </>
      ) : (
        <p className="muted" data-testid="index-not-tracked">
          This run did not poll the bucket index (no RGW admin API and no index imitation), so its shards and reshards
          are unknown; write stalls are found from throughput and latency alone.
        </p>
      )}
      <h3>Write stalls</h3>
      <StallsTable stalls={stalls} reshards={reshards} />
      {report?.polling && <PollingCost polling={report.polling} />}
    </section>
  );
}
