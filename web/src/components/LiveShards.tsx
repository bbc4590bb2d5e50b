// On the live page of a run split over agents: its shards as the controller sees them
// (agent, state, phase, operations in the phase). The charts beside it are the shards'
// intervals merged per second by the controller. Under them, what happened to the hosts
// (agents lost and back, takeovers, a controller restart), from the controller's record.
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import { api } from "../api/client";
import type { components } from "../api/schema.gen";
import { FleetShardsTable } from "./FleetShardsTable";

type FleetEvent = components["schemas"]["FleetEvent"];

/** `agent lost at 12.3 s: agent agent-1 lost: …`, as the CLI says it. */
export function describeFleet(e: FleetEvent): string {
  return `${e.kind.replace(/_/g, " ")} at ${e.t_s.toFixed(1)} s: ${e.detail}`;
}

export function LiveShards({ runId, running }: { runId: string; running: boolean }) {
  const view = useQuery({ queryKey: ["agents"], queryFn: api.agents, refetchInterval: running ? 1000 : false });
  const run = view.data?.run;
  if (!run || run.run_id !== runId) return null;
  const count = run.shards.length;
  return (
    <div className="state" data-testid="live-shards">
      <strong>
        Merged live from {count} agent{count === 1 ? "" : "s"}
      </strong>{" "}
      <span className="muted">
        (histograms added per second; the exact merge of their folders replaces this view at the end ·{" "}
        <Link to="/agents">Agents</Link>)
      </span>
      <FleetShardsTable run={run} going={running} />
      {run.events.length > 0 && (
        <ul className="fleet-events" data-testid="live-fleet-events">
          {run.events_total > run.events.length && (
            <li className="muted">… {run.events_total - run.events.length} earlier</li>
          )}
          {run.events.map((e, i) => (
            <li key={i} data-testid={`fleet-${e.kind}`}>
              {describeFleet(e)}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
