// The running phase's thresholds on the live page, judged on what it measured so far:
// each met or missed so far with its figure, and whether a miss stops the run
// (`expect_abort_after`) — now, after how much more measuring, or never.
import type { ThresholdsSoFar } from "../api/types";
import { fmtDuration } from "../lib/format";

/** What the thresholds so far are judged on, and what a miss does. */
export function thresholdsNote(t: ThresholdsSoFar): string {
  const on = `on the ${fmtDuration(t.measured_s)} measured so far`;
  const after = t.abort_after_s;
  if (t.stops_run) return `${t.stops_run} missed ${on}: it stops the run (expect_abort_after ${fmtDuration(after)})`;
  if (after == null) return `${on}; a miss is shown, not acted on (no expect_abort_after)`;
  if (t.measured_s < after) {
    return `${on}; one still missed once ${fmtDuration(after)} are measured stops the run (${fmtDuration(after - t.measured_s)} to go)`;
  }
  return `${on}; a miss now stops the run (expect_abort_after ${fmtDuration(after)})`;
}

export function LiveThresholds({ thresholds: t }: { thresholds?: ThresholdsSoFar }) {
  if (!t?.checks.length) return null;
  const missed = t.checks.filter((c) => !c.passed).length;
  return (
    <div className={missed > 0 ? "state warn" : "state"} data-testid="live-thresholds">
      <strong>Thresholds so far: </strong>
      {missed === 0 ? `all ${t.checks.length} met` : `${missed} of ${t.checks.length} missed`}{" "}
      <span className="muted" data-testid="live-thresholds-note">
        {thresholdsNote(t)}
      </span>
      <table className="table">
        <thead>
          <tr>
            <th>Expected</th>
            <th className="num">So far</th>
            <th>Result</th>
          </tr>
        </thead>
        <tbody>
          {t.checks.map((c) => (
            <tr key={c.expect} data-testid={c.passed ? "live-threshold-met" : "live-threshold-missed"}>
              <td>
                <code>{c.expect}</code>
              </td>
              <td className="num">{c.actual_text}</td>
              <td className={c.passed ? "good" : "bad"}>
                {c.passed ? "met so far" : t.stops_run === c.expect ? "missed: stops the run" : "missed so far"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
