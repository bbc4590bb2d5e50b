// A run's verdict where people look: one badge for how it ended (completed as asked,
// not as written, missed a threshold, fell behind, had errors, or the status of a run that did not
// complete) and one per other finding (taken over, resumed), each saying its figures
// on hover and in the text a screen reader reads.
import type { RunStatus, RunVerdict } from "../api/types";

/** The badge class of a finding or an overall word: bad, warn or info. */
export function verdictTone(kind: string): "bad" | "warn" | "info" | "good" {
  switch (kind) {
    case "not_as_written":
    case "missed_threshold":
      return "bad";
    case "fell_behind":
    case "had_errors":
      return "warn";
    case "as_asked":
      return "good";
    default:
      return "info";
  }
}

const WORDS: Record<string, string> = {
  as_asked: "completed as asked",
  not_as_written: "not as written",
  missed_threshold: "missed a threshold",
  fell_behind: "fell behind",
  had_errors: "had errors",
  taken_over: "taken over",
  resumed: "resumed",
};

/** The findings of `verdict` one per kind, the texts of a kind found several times
 * (thresholds missed in several phases) joined. */
function byKind(findings: RunVerdict["findings"]): RunVerdict["findings"] {
  const kinds: RunVerdict["findings"] = [];
  for (const f of findings) {
    const same = kinds.find((k) => k.kind === f.kind);
    if (same) same.text = `${same.text}; ${f.text}`;
    else kinds.push({ ...f });
  }
  return kinds;
}

/** The badges of `verdict`; a run still going (or recorded before verdicts) shows its status. */
export function VerdictBadges({ verdict, status }: { verdict?: RunVerdict | null; status: RunStatus | string }) {
  if (!verdict || verdict.overall === "not_completed") {
    return (
      <span className="verdict" data-testid="verdict">
        <span className={`badge status-${status}`}>{status}</span>
        {byKind(verdict?.findings ?? []).map((f) => <FindingBadge key={f.kind} kind={f.kind} text={f.text} />)}
      </span>
    );
  }
  const findings = byKind(verdict.findings);
  const worst = findings[0];
  const headlined = worst && worst.kind === verdict.overall;
  return (
    <span className="verdict" data-testid="verdict">
      <span
        className={`badge verdict-${verdictTone(verdict.overall)}`}
        data-testid="verdict-overall"
        title={headlined ? worst.text : "every phase completed, at the rate asked, without errors, nothing lost"}
      >
        {WORDS[verdict.overall] ?? verdict.overall}
      </span>
      {findings.slice(headlined ? 1 : 0).map((f) => (
        <FindingBadge key={f.kind} kind={f.kind} text={f.text} />
      ))}
    </span>
  );
}

function FindingBadge({ kind, text }: { kind: string; text: string }) {
  return (
    <span className={`badge verdict-${verdictTone(kind)}`} data-testid={`finding-${kind}`} title={text}>
      {WORDS[kind] ?? kind}
      <span className="sr-only">: {text}</span>
    </span>
  );
}

/** Each finding in words, for a page that has room for them (run page, report). */
export function VerdictFindings({ verdict }: { verdict?: RunVerdict | null }) {
  if (!verdict || verdict.findings.length === 0) return null;
  return (
    <ul className="verdict-findings" data-testid="verdict-findings">
      {verdict.findings.map((f, i) => (
        <li key={i} className={`verdict-${verdictTone(f.kind)}-text`}>
          <b>{WORDS[f.kind] ?? f.kind}</b>: {f.text}
        </li>
      ))}
    </ul>
  );
}
