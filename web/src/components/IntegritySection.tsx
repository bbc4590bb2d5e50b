// What the run proved about the store, beside its errors: how many GETs its verifying
// phases checked, and a red verdict with the first objects found corrupt or missing
// (bucket, key, where the body first differed) when the store did not give back what
// it was given. Nothing for a run that verified nothing and lost nothing.
import type { IntegrityReport } from "../api/types";
import { fmtCount } from "../lib/format";
import { placeLabel } from "../lib/rounds";

/** Whether a run has anything to say about integrity: it verified, or lost something. */
export function hasIntegrity(r: IntegrityReport | null | undefined): r is IntegrityReport {
  return !!r && (r.verified_phases.length > 0 || r.corrupt > 0 || r.missing > 0);
}

/** The verdict in words, as the CLI prints it. */
export function integrityVerdict(r: IntegrityReport): string {
  const phases = r.verified_phases.length;
  const checked = phases
    ? `verified ${fmtCount(r.verified_gets)} GETs in ${phases} phase${phases === 1 ? "" : "s"}`
    : "no phase verified its GETs";
  if (r.corrupt === 0 && r.missing === 0) return `${checked[0].toUpperCase()}${checked.slice(1)}: every body as written, no live key missing.`;
  return `Not as written: ${fmtCount(r.corrupt)} corrupt, ${fmtCount(r.missing)} missing (${checked}).`;
}

export function IntegritySection({ report }: { report?: IntegrityReport | null }) {
  if (!hasIntegrity(report)) return null;
  const clean = report.corrupt === 0 && report.missing === 0;
  return (
    <div data-testid="integrity">
      <h2>Integrity</h2>
      <div className={`state ${clean ? "good" : "error"}`} data-testid="integrity-verdict" data-clean={clean}>
        {integrityVerdict(report)}
      </div>
      {report.examples.length > 0 && (
        <>
          <p className="muted">
            The first {fmtCount(report.examples.length)} objects found (the error counts hold them all). Corrupt: a verified GET's body or MD5
            ETag differs from what keystorm wrote; missing: a key written and not deleted answered 404.
          </p>
          <table className="grid compact" data-testid="integrity-examples">
            <thead>
              <tr>
                <th>Found</th>
                <th>Where</th>
                <th>Bucket</th>
                <th>Key</th>
                <th>What</th>
              </tr>
            </thead>
            <tbody>
              {report.examples.map((e, i) => (
                <tr key={i} data-testid="integrity-example">
                  <td className="bad">{e.class}</td>
                  <td>
                    {placeLabel(e.phase)} · {e.phase.name}
                  </td>
                  <td>{e.bucket}</td>
                  <td className="mono">{e.key}</td>
                  <td>{e.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
