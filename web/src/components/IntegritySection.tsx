// What the run proved about the store, beside its errors: how many GETs its verifying
// phases checked, and a red verdict with the first objects found corrupt or missing
// (bucket, key, where the body first differed) when the store did not give back what
// it was given; then each listing audit (per phase and bucket: keys expected and
// listed, missing, doubled, extra, resized) with its first keys found. Nothing for a
// run that verified nothing, audited nothing and lost nothing.
import type { IntegrityReport, PhaseRef } from "../api/types";
import { fmtCount, fmtDuration } from "../lib/format";
import { auditClean, auditVerdict, hasIntegrity, hasVerification, verificationVerdict } from "../lib/integrity";
import { placeLabel } from "../lib/rounds";

export function IntegritySection({ report }: { report?: IntegrityReport | null }) {
  if (!hasIntegrity(report)) return null;
  return (
    <div data-testid="integrity">
      <h2>Integrity</h2>
      {hasVerification(report) && <Verification report={report} />}
      {report.audits.length > 0 && <Audits report={report} />}
    </div>
  );
}

function Verification({ report }: { report: IntegrityReport }) {
  const clean = report.corrupt === 0 && report.missing === 0;
  return (
    <>
      <div className={`state ${clean ? "good" : "error"}`} data-testid="integrity-verdict" data-clean={clean}>
        {verificationVerdict(report)}
      </div>
      {report.examples.length > 0 && (
        <>
          <p className="muted">
            The first {fmtCount(report.examples.length)} objects found (the error counts hold them all). Corrupt: a verified GET's body or MD5
            ETag differs from what keystorm wrote; missing: a key written and not deleted answered 404.
          </p>
          <FoundTable
            testid="integrity-example"
            rows={report.examples.map((e) => ({ found: e.class, phase: e.phase, bucket: e.bucket, key: e.key, detail: e.detail }))}
          />
        </>
      )}
    </>
  );
}

/** One object found wrong. */
interface Found {
  found: string;
  phase: PhaseRef;
  bucket: string;
  key: string;
  detail: string;
}

/** Objects found wrong: what, where, which, and how. */
function FoundTable({ rows, testid }: { rows: Found[]; testid: string }) {
  return (
    <table className="grid compact" data-testid={`${testid}s`}>
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
        {rows.map((e, i) => (
          <tr key={i} data-testid={testid}>
            <td className="bad">{e.found}</td>
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
  );
}

/** Keys an audit names of each finding, at most (the engine's limit). */
const AUDIT_EXAMPLES = 25;
/** Found keys shown without a click. */
const EXAMPLES_OPEN = 10;

/** Seconds with the precision a short listing needs. */
function seconds(s: number): string {
  return s < 10 ? `${s.toFixed(2)} s` : fmtDuration(s);
}

/** A count cell, red when it is not zero. */
function Count({ n }: { n: number }) {
  return <td className={n > 0 ? "num bad" : "num"}>{fmtCount(n)}</td>;
}

function Audits({ report }: { report: IntegrityReport }) {
  const clean = report.audits.every((a) => auditClean(a.counts));
  const examples = report.audits.flatMap((a) => a.examples.map((e) => ({ ...e, audit: a })));
  return (
    <>
      <h3>Listing audits</h3>
      <div className={`state ${clean ? "good" : "error"}`} data-testid="audit-verdict" data-clean={clean}>
        {auditVerdict(report)}
      </div>
      <p className="muted">
        Each audit listed the bucket and compared it with every key of the live window: missing (written, not listed), doubled (listed more than
        once), extra (listed, never written or already deleted), size mismatch (listed with another size).
      </p>
      <table className="grid compact" data-testid="audits">
        <thead>
          <tr>
            <th>Where</th>
            <th>Bucket</th>
            <th className="num">Expected</th>
            <th className="num">Listed</th>
            <th className="num">Missing</th>
            <th className="num">Doubled</th>
            <th className="num">Extra</th>
            <th className="num">Size mismatch</th>
            <th className="num">Listing</th>
            <th className="num">Keys/s</th>
          </tr>
        </thead>
        <tbody>
          {report.audits.map((a, i) => (
            <tr key={i} data-testid="audit-row" data-clean={auditClean(a.counts)}>
              <td>
                {placeLabel(a.phase)} · {a.phase.name}
              </td>
              <td>{a.bucket}</td>
              <td className="num">{fmtCount(a.counts.expected)}</td>
              <td className="num">{fmtCount(a.counts.listed)}</td>
              <Count n={a.counts.missing} />
              <Count n={a.counts.doubled} />
              <Count n={a.counts.extra} />
              <Count n={a.counts.size_mismatch} />
              <td className="num">{seconds(a.list_seconds)}</td>
              <td className="num">{a.list_seconds > 0 ? fmtCount(Math.round(a.counts.listed / a.list_seconds)) : "–"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {examples.length > 0 && (
        <details className="audit-examples" open={examples.length <= EXAMPLES_OPEN}>
          <summary>
            The first {fmtCount(examples.length)} keys found ({AUDIT_EXAMPLES} of each finding per audit at most; the counts hold them all)
          </summary>
          <FoundTable
            testid="audit-example"
            rows={examples.map((e) => ({ found: e.finding.replace("_", " "), phase: e.audit.phase, bucket: e.audit.bucket, key: e.key, detail: e.detail }))}
          />
        </details>
      )}
    </>
  );
}
