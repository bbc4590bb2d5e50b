// Everything that happened in the middle of a run, in time order: pauses (with why, and
// the command that resumed it), agents lost and back, takeovers, controller restarts,
// endpoints lost and back, reshards, write stalls. The run
// page and the report show it under the run's verdict, so nothing that happened is off
// the record.
import type { Timeline } from "../api/types";
import { fmtDuration } from "../lib/format";

const KIND_WORDS: Record<string, string> = {
  pause: "paused",
  endpoint_down: "endpoint down",
  endpoint_up: "endpoint up",
  reshard: "reshard",
  stall: "write stall",
  agent_lost: "agent lost",
  agent_back: "agent back",
  takeover: "takeover",
  controller_cut_off: "controller cut off",
  controller_restart: "controller restart",
};

/** `12.3 s` or `12.3 s – 18.3 s`: when, in seconds from the run's start. */
export function whenText(t: number, until?: number | null): string {
  return until == null ? `${t.toFixed(1)} s` : `${t.toFixed(1)} s – ${until.toFixed(1)} s`;
}

export function TimelineSection({ timeline }: { timeline?: Timeline | null }) {
  const entries = timeline?.entries ?? [];
  if (!entries.length) return null;
  const lasting = (e: (typeof entries)[number]) => (e.until_t_s ?? e.t_s) - e.t_s;
  const paused = entries.filter((e) => e.kind === "pause" && !e.shard).reduce((s, e) => s + lasting(e), 0);
  const shardPauses = entries.filter((e) => e.kind === "pause" && e.shard);
  return (
    <div data-testid="timeline-section">
      <h2>Timeline</h2>
      {shardPauses.length > 0 && (
        <p className="muted" data-testid="timeline-shard-paused">
          {shardPauses.map((e) => `shard ${e.shard} did not run for ${fmtDuration(lasting(e))}`).join("; ")} while the others went on (shaded on
          the charts); a merged phase's rates divide by the time some shard ran, and each shard's sent rate by its own.
        </p>
      )}
      {paused > 0 && (
        <p className="muted" data-testid="timeline-paused">
          The run did not run for {fmtDuration(paused)} in all (shaded on its charts, which break their lines there); rates divide by the time each
          phase ran, and each phase's wall time, pauses included, is beside it.
        </p>
      )}
      <table className="grid compact">
        <thead>
          <tr>
            <th>When (from the run's start)</th>
            <th>What</th>
            <th>Details</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e, i) => (
            <tr key={i} data-testid={`timeline-${e.kind}`}>
              <td className="nowrap num">{whenText(e.t_s, e.until_t_s)}</td>
              <td className="nowrap">{KIND_WORDS[e.kind] ?? e.kind}</td>
              <td>{e.text}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {timeline && timeline.omitted > 0 && <p className="muted">{timeline.omitted} more in the run's events.</p>}
    </div>
  );
}
