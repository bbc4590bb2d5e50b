// What a run proved about the store, in words shared by the run page, the compare page
// and the offline report: the verification of GET bodies (corrupt, missing) and the
// listing audits (missing, doubled, extra, size mismatches), each as the CLI says it.
import type { AuditCounts, IntegrityReport } from "../api/types";
import { fmtCount } from "./format";

/** Whether a run has anything to say about integrity: it verified, audited, or lost something. */
export function hasIntegrity(r: IntegrityReport | null | undefined): r is IntegrityReport {
  return !!r && (hasVerification(r) || r.audits.length > 0);
}

/** Whether GET bodies were verified, or a read found a live key missing. */
export function hasVerification(r: IntegrityReport): boolean {
  return r.verified_phases.length > 0 || r.corrupt > 0 || r.missing > 0;
}

/** Every audit's counts added up. */
export function audited(r: IntegrityReport): AuditCounts {
  const total: AuditCounts = { expected: 0, listed: 0, missing: 0, doubled: 0, extra: 0, size_mismatch: 0 };
  for (const a of r.audits) {
    for (const k of Object.keys(total) as Array<keyof AuditCounts>) total[k] += a.counts[k];
  }
  return total;
}

/** Whether a listing is exactly what was written. */
export function auditClean(c: AuditCounts): boolean {
  return c.missing === 0 && c.doubled === 0 && c.extra === 0 && c.size_mismatch === 0;
}

/** Whether the store gave back everything as written, and listed it exactly once. */
export function integrityClean(r: IntegrityReport): boolean {
  return r.corrupt === 0 && r.missing === 0 && auditClean(audited(r));
}

/** The verification's verdict: `Verified 12,000 GETs in 1 phase: every body as written…`. */
export function verificationVerdict(r: IntegrityReport): string {
  const phases = r.verified_phases.length;
  const checked = phases
    ? `verified ${fmtCount(r.verified_gets)} GETs in ${phases} phase${phases === 1 ? "" : "s"}`
    : "no phase verified its GETs";
  if (r.corrupt === 0 && r.missing === 0) return `${checked[0].toUpperCase()}${checked.slice(1)}: every body as written, no live key missing.`;
  return `Not as written: ${fmtCount(r.corrupt)} corrupt, ${fmtCount(r.missing)} missing (${checked}).`;
}

/** The audits' verdict: every listing exact, or what was wrong in all of them. */
export function auditVerdict(r: IntegrityReport): string {
  const n = r.audits.length;
  const c = audited(r);
  const of = `${n} audit${n === 1 ? "" : "s"} of ${fmtCount(c.expected)} keys`;
  if (auditClean(c)) return `Listed exactly as written: ${of}, each key once, none extra.`;
  return (
    `Listings not as written: ${fmtCount(c.missing)} missing, ${fmtCount(c.doubled)} doubled, ` +
    `${fmtCount(c.extra)} extra, ${fmtCount(c.size_mismatch)} size mismatches (${of}).`
  );
}

/** Both verdicts, where the run has each. */
export function integrityVerdict(r: IntegrityReport): string {
  const parts: string[] = [];
  if (hasVerification(r)) parts.push(verificationVerdict(r));
  if (r.audits.length > 0) parts.push(auditVerdict(r));
  return parts.join(" ");
}
