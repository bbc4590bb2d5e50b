// On the live page of a run split over agents: its shards as the controller sees them
// (agent, state, phase, operations in the phase). The charts beside it are the shards'
// intervals merged per second by the controller.
import { useQuery } from "@tanstack/react-query";
import { Link } from "react-router-dom";
import { api } from "../api/client";
import { FleetShardsTable } from "./FleetShardsTable";

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
    </div>
  );
}
