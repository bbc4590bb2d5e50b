// The shards of a run across agents as the controller sees them: agent, state, phase
// and operations in the phase (on the Agents page and beside a live run's charts).
import type { FleetRunView } from "../api/types";
import { fmtCount, fmtDuration } from "../lib/format";

export function FleetShardsTable({ run, going }: { run: FleetRunView; going: boolean }) {
  return (
    <table className="grid compact" data-testid="shards-table">
      <thead>
        <tr>
          <th>shard</th>
          <th>agent</th>
          <th>state</th>
          <th>phase</th>
          <th className="num">operations in phase</th>
        </tr>
      </thead>
      <tbody>
        {run.shards.map((s) => (
          <tr key={s.index} data-testid="shard-row" data-state={s.state}>
            <td>
              {s.index}/{run.shards.length}
            </td>
            <td>{s.agent}</td>
            <td>
              <span className={`badge agent-${s.state}`}>{s.state}</span>
              {s.state === "lost" && s.waiting_s != null && (
                <span className="muted" data-testid="shard-waiting">
                  {" "}
                  waiting {fmtDuration(s.waiting_s)} for an idle agent to take it over
                </span>
              )}
              {s.state !== "lost" && s.taken_over_from && (
                <span className="muted" data-testid="shard-taken-over">
                  {" "}
                  taken over from {s.taken_over_from}
                  {s.waited_s != null && s.waited_s >= 1 ? ` after waiting ${fmtDuration(s.waited_s)}` : ""}
                </span>
              )}
            </td>
            <td>{s.phase ?? "–"}</td>
            <td className="num">{going ? fmtCount(s.operations) : "–"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
