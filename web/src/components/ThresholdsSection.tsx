// The workload's thresholds (`expect:`), each judged on every phase it applies to: met
// or missed, with the phase's figure. The run page and the report show it beside the
// verdict, which says "missed a threshold" when one was missed.
import type { RunDetail } from "../api/types";

export function ThresholdsSection({ checks }: { checks: RunDetail["thresholds"] }) {
  if (!checks?.length) return null;
  const missed = checks.filter((c) => !c.passed).length;
  return (
    <section>
      <h2>Thresholds</h2>
      <p className="muted" data-testid="thresholds-summary">
        {missed === 0
          ? `All ${checks.length} met.`
          : `${missed} of ${checks.length} missed: the run exits 3 (missed a threshold).`}
      </p>
      <table className="table" data-testid="thresholds">
        <thead>
          <tr>
            <th>Phase</th>
            <th>Expected</th>
            <th className="num">Measured</th>
            <th>Result</th>
          </tr>
        </thead>
        <tbody>
          {checks.map((c, i) => (
            <tr key={i} data-testid={c.passed ? "threshold-met" : "threshold-missed"}>
              <td>{c.phase}</td>
              <td>
                <code>{c.expect}</code>
              </td>
              <td className="num">{c.actual_text}</td>
              <td className={c.passed ? "good" : "bad"}>{c.passed ? "met" : "missed"}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
