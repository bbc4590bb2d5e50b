// The keys of a run's phases that read a bucket keystorm did not write: for each, which
// bucket (and prefix) and key file, how many keys (a shard's part of them), how many
// epochs, and what the listing took.
import type { ListingsReport } from "../api/types";
import { fmtCount } from "../lib/format";
import { keysCount, keysListTime, keysListedBytes, keysSource } from "../lib/keys";
import { placeLabel } from "../lib/rounds";

export function KeysSection({ report }: { report?: ListingsReport | null }) {
  const keys = report?.keys ?? [];
  if (keys.length === 0) return null;
  return (
    <section data-testid="keys-section">
      <h2>Keys read</h2>
      <table className="grid compact" data-testid="keys-table">
        <thead>
          <tr>
            <th>Where</th>
            <th>Phase</th>
            <th>Source</th>
            <th>Bucket</th>
            <th>Key file</th>
            <th className="num">Keys</th>
            <th className="num">Epochs</th>
            <th className="num">List time</th>
            <th className="num">Bytes listed</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k, i) => (
            <tr key={i} data-testid="keys-row">
              <td>{placeLabel(k.phase)}</td>
              <td>{k.phase.name}</td>
              <td>{keysSource(k)}</td>
              <td>
                <span className="mono">{k.bucket}</span>
                {k.prefix ? (
                  <span className="muted">
                    {" "}
                    prefix <span className="mono">{k.prefix}</span>
                  </span>
                ) : null}
              </td>
              <td className="mono">{k.file}</td>
              <td className="num" title={k.part_keys < k.keys ? "this shard's part of the key file's keys" : undefined}>
                {keysCount(k)}
              </td>
              <td className="num" title={k.epochs ? `every key read ${k.epochs} times: ${fmtCount(k.epochs * k.part_keys)} reads` : undefined}>
                {k.epochs ?? "–"}
              </td>
              <td className="num">{keysListTime(k)}</td>
              <td className="num">{keysListedBytes(k)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted small">
        A listing's keys are kept in its key file in the run folder; another workload reads them again with{" "}
        <code>keys: {"{"}file: PATH, bucket: B{"}"}</code> without listing the bucket.
      </p>
    </section>
  );
}
