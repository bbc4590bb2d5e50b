// What a run's metadata scans and bulk transfers did: per HEAD scan the HEADs, their
// rate and what the objects' user metadata held (objects per name, the most common
// values); per download or upload pass what moved, what was already complete, and the
// aggregate and per-stream rates.
import type { ListingsReport, MetadataScanRecord, TransferRecord } from "../api/types";
import { fmtBytes, fmtCount, fmtDuration, fmtMiBs } from "../lib/format";
import { placeLabel } from "../lib/rounds";

const TOP_VALUES = 5;

function topValues(values: Record<string, number>): [string, number][] {
  return Object.entries(values)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, TOP_VALUES);
}

function MetadataScans({ scans }: { scans: MetadataScanRecord[] }) {
  return (
    <>
      <h2>Metadata scans</h2>
      <table className="grid compact" data-testid="metadata-scans-table">
        <thead>
          <tr>
            <th>Where</th>
            <th>Phase</th>
            <th>Bucket</th>
            <th className="num">HEADs</th>
            <th className="num">Errors</th>
            <th className="num">Gone since listed</th>
            <th className="num">HEAD workers</th>
            <th className="num">Time</th>
            <th className="num">HEAD/s</th>
          </tr>
        </thead>
        <tbody>
          {scans.map((s) => (
            <tr key={s.id}>
              <td>{placeLabel(s.phase)}</td>
              <td>{s.phase.name}</td>
              <td>{s.bucket}</td>
              <td className="num">{fmtCount(s.heads)}</td>
              <td className="num">{fmtCount(s.head_errors)}</td>
              <td className="num">{fmtCount(s.missing)}</td>
              <td className="num">{s.head_workers}</td>
              <td className="num">{fmtDuration(s.seconds)}</td>
              <td className="num">{s.seconds > 0 ? fmtCount(Math.round(s.heads / s.seconds)) : "–"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {scans.map((s) => {
        const names = Object.entries(s.metadata.names);
        return (
          <div key={`meta-${s.id}`} data-testid="metadata-names">
            <h3>
              User metadata in {s.bucket} ({s.phase.name}): {fmtCount(s.metadata.objects)} objects,{" "}
              {fmtCount(s.metadata.without_metadata)} without any
            </h3>
            {names.length === 0 ? (
              <p className="muted">No object carried user metadata.</p>
            ) : (
              <table className="grid compact">
                <thead>
                  <tr>
                    <th>Name</th>
                    <th className="num">Objects</th>
                    <th className="num">Distinct values</th>
                    <th>Most common values (objects)</th>
                  </tr>
                </thead>
                <tbody>
                  {names.map(([name, n]) => {
                    const distinct = Object.keys(n.values).length;
                    return (
                      <tr key={name}>
                        <td className="mono">{name}</td>
                        <td className="num">{fmtCount(n.objects)}</td>
                        <td className="num">
                          {n.other_values > 0 ? `over ${fmtCount(distinct)}` : fmtCount(distinct)}
                        </td>
                        <td className="mono">
                          {topValues(n.values)
                            .map(([v, c]) => `${JSON.stringify(v)} (${fmtCount(c)})`)
                            .join(", ")}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            )}
            {s.metadata.other_names > 0 && (
              <p className="muted">{fmtCount(s.metadata.other_names)} more name occurrences past the cap on names.</p>
            )}
          </div>
        );
      })}
    </>
  );
}

function Transfers({ transfers }: { transfers: TransferRecord[] }) {
  return (
    <>
      <h2>Transfers</h2>
      <table className="grid compact" data-testid="transfers-table">
        <thead>
          <tr>
            <th>Where</th>
            <th>Phase</th>
            <th>Direction</th>
            <th className="num">Objects</th>
            <th className="num">Bytes</th>
            <th className="num">Already complete</th>
            <th className="num">Failed</th>
            <th className="num">Time</th>
            <th className="num">Aggregate</th>
            <th className="num">Per stream p50</th>
            <th className="num">Per stream max</th>
          </tr>
        </thead>
        <tbody>
          {transfers.map((t) => {
            const o = t.outcome;
            return (
              <tr key={t.id}>
                <td>{placeLabel(t.phase)}</td>
                <td>{t.phase.name}</td>
                <td>{o.direction}</td>
                <td className="num">{fmtCount(o.objects)}</td>
                <td className="num">{fmtBytes(o.bytes)}</td>
                <td className="num">
                  {fmtCount(o.skipped)} ({fmtBytes(o.skipped_bytes)})
                </td>
                <td className={o.failed > 0 ? "num bad" : "num"}>{fmtCount(o.failed)}</td>
                <td className="num">
                  {fmtDuration(o.seconds)}
                  {o.complete ? "" : " (stopped)"}
                </td>
                <td className="num">{fmtMiBs(o.mib_per_sec)}</td>
                <td className="num">{fmtMiBs(o.per_stream.p50)}</td>
                <td className="num">{fmtMiBs(o.per_stream.max)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {transfers.flatMap((t) =>
        t.outcome.failures.map((f, i) => (
          <p key={`${t.id}-${i}`} className="bad">
            {t.phase.name}: {f}
          </p>
        )),
      )}
    </>
  );
}

export function ScansAndTransfers({ report }: { report?: ListingsReport | null }) {
  const scans = report?.metadata_scans ?? [];
  const transfers = report?.transfers ?? [];
  if (scans.length === 0 && transfers.length === 0) return null;
  return (
    <section data-testid="scans-and-transfers">
      {scans.length > 0 && <MetadataScans scans={scans} />}
      {transfers.length > 0 && <Transfers transfers={transfers} />}
    </section>
  );
}
