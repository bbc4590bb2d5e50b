// The shards of a run across agents: a lost shard says how long it has waited for an
// agent to take it over; a shard taken over says from whom, and after how long.
import { cleanup, render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import type { FleetRunView, ShardView } from "../api/types";
import { FleetShardsTable } from "./FleetShardsTable";

afterEach(cleanup);

function shard(index: number, agent: string, state: string, extra: Partial<ShardView> = {}): ShardView {
  return {
    index,
    agent,
    state,
    phase: "before · fill",
    operations: 1000,
    local_run_id: null,
    waiting_s: null,
    taken_over_from: null,
    waited_s: null,
    ...extra,
  } as ShardView;
}

function run(shards: ShardView[]): FleetRunView {
  return {
    run_id: "r",
    workload: "w",
    state: "running",
    merged_run: null,
    error: null,
    warnings: [],
    started_s_ago: 30,
    shards,
    events: [],
    events_total: 0,
  } as FleetRunView;
}

describe("FleetShardsTable", () => {
  it("says how long a lost shard waits, and whom a shard was taken over from", () => {
    render(
      <FleetShardsTable
        run={run([
          shard(0, "agent-0", "running"),
          shard(1, "agent-1", "lost", { waiting_s: 12.4 }),
          shard(2, "agent-0", "running", { taken_over_from: "agent-2", waited_s: 19.8 }),
          shard(3, "agent-3", "running", { taken_over_from: "agent-4", waited_s: 0.2 }),
        ])}
        going
      />,
    );
    expect(screen.getByTestId("shard-waiting").textContent).toContain("waiting 12.4 s for an idle agent");
    const taken = screen.getAllByTestId("shard-taken-over").map((e) => e.textContent);
    expect(taken[0]).toContain("taken over from agent-2 after waiting 19.8 s");
    // Taken at once by a spare: no wait to speak of.
    expect(taken[1]).toContain("taken over from agent-4");
    expect(taken[1]).not.toContain("waiting");
  });
});
