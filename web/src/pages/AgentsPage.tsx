// Agents: the `keystorm agent` processes connected to this server (state, clock
// offset, version, the shard each runs), the run split over them with each shard's
// progress, and a form to start a workload on N of them.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { Link } from "react-router-dom";
import { useAccess } from "../api/access";
import { api } from "../api/client";
import type { AgentView, FleetRunView } from "../api/types";
import { FleetShardsTable } from "../components/FleetShardsTable";
import { Empty, ErrorBox, Loading, StatusBadge } from "../components/states";
import { fmtDuration } from "../lib/format";

/** "+12 ms" / "-3 ms" / "–"; past `warnPast` ms (250: intervals are 1 s) it is a warning. */
export function fmtOffset(ms: number | null | undefined, warnPast = 250): { text: string; warn: boolean } {
  if (ms == null) return { text: "–", warn: false };
  return { text: `${ms > 0 ? "+" : ms < 0 ? "−" : "±"}${Math.abs(ms)} ms`, warn: Math.abs(ms) > warnPast };
}

function AgentsTable({ agents }: { agents: AgentView[] }) {
  return (
    <table className="grid" data-testid="agents-table">
      <thead>
        <tr>
          <th>agent</th>
          <th>host</th>
          <th>state</th>
          <th>shard</th>
          <th>phase</th>
          <th title="the endpoint the agent drives: its own (keystorm agent --endpoint), else the run's">endpoint</th>
          <th className="num">clock offset</th>
          <th className="num">target clock</th>
          <th>version</th>
          <th className="num">cores</th>
          <th className="num">last heard</th>
          <th className="num">connected</th>
        </tr>
      </thead>
      <tbody>
        {agents.map((a) => {
          const offset = fmtOffset(a.clock_offset_ms);
          // HTTP dates are whole seconds: only a skew past 2 s says something.
          const skew = fmtOffset(a.target_skew_ms, 2000);
          return (
            <tr key={a.id} data-testid="agent-row" data-state={a.state}>
              <td title={a.id}>{a.name}</td>
              <td>{a.host}</td>
              <td>
                <span className={`badge agent-${a.state}`}>{a.state}</span>
              </td>
              <td>{a.shard ?? "–"}</td>
              <td>{a.phase ?? "–"}</td>
              <td data-testid="agent-endpoint">
                {a.endpoint ? <span className="mono">{a.endpoint}</span> : <span className="muted">workload's</span>}
              </td>
              <td className={`num${offset.warn ? " bad" : ""}`} title="the controller's clock minus the agent's, from heartbeat round trips">
                {offset.text}
              </td>
              <td
                className={`num${skew.warn ? " bad" : ""}`}
                data-testid="target-skew"
                title="the target's Date header minus the agent's clock (to about a second)"
              >
                {skew.text}
              </td>
              <td>{a.version}</td>
              <td className="num">{a.cores}</td>
              <td className="num">{(a.seen_ms_ago / 1000).toFixed(1)} s ago</td>
              <td className="num">{fmtDuration(a.connected_s)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function RunCard({ run }: { run: FleetRunView }) {
  const stop = useMutation({ mutationFn: () => api.stopRun(run.run_id) });
  const access = useAccess();
  const going = ["running", "stopping", "merging"].includes(run.state);
  return (
    <div className="card" data-testid="fleet-run">
      <div className="toolbar">
        <strong>{run.workload}</strong>
        <span className="muted">{run.run_id}</span>
        <StatusBadge status={run.state} />
        <span className="muted">started {fmtDuration(run.started_s_ago)} ago</span>
        <span className="spacer" />
        {run.merged_run && (
          <Link to={`/runs/${encodeURIComponent(run.merged_run)}`} data-testid="merged-run-link">
            merged results →
          </Link>
        )}
        {run.state === "running" && (
          <button onClick={() => stop.mutate()} disabled={!access.canChange || stop.isPending} title={access.why} data-testid="stop-fleet-run">
            Stop
          </button>
        )}
      </div>
      {run.error && <div className="bad">{run.error}</div>}
      {run.warnings.map((w) => (
        <div className="warn-text" key={w}>
          {w}
        </div>
      ))}
      {stop.isError && <ErrorBox error={stop.error} />}
      <FleetShardsTable run={run} going={going} />
    </div>
  );
}

function StartForm({ idle }: { idle: number }) {
  const workloads = useQuery({ queryKey: ["workloads"], queryFn: api.workloads });
  const [workload, setWorkload] = useState("");
  const [agents, setAgents] = useState(1);
  const [endpoint, setEndpoint] = useState("");
  const access = useAccess();
  const start = useMutation({
    mutationFn: () =>
      api.startRun({ workload: workload || workloads.data?.[0]?.name, agents, endpoint: endpoint.trim() || undefined }),
  });
  return (
    <div className="form-row" data-testid="fleet-start">
      <select value={workload} onChange={(e) => setWorkload(e.target.value)} aria-label="workload">
        {(workloads.data ?? []).map((w) => (
          <option key={w.name}>{w.name}</option>
        ))}
      </select>
      <span className="inline-field">
        on
        <input
          type="number"
          min={1}
          max={Math.max(1, idle)}
          value={agents}
          onChange={(e) => setAgents(Math.max(1, Number(e.target.value)))}
          aria-label="agents"
        />
        agents
      </span>
      <input placeholder="endpoint (http://…), if not the workload's" value={endpoint} onChange={(e) => setEndpoint(e.target.value)} aria-label="endpoint" />
      <button
        onClick={() => start.mutate()}
        disabled={!access.canChange || start.isPending || idle < 1}
        title={access.why}
        data-testid="fleet-start-button"
      >
        Start on {agents} of {idle} idle agents
      </button>
      {start.isError && <ErrorBox error={start.error} />}
    </div>
  );
}

export function AgentsPage() {
  const view = useQuery({ queryKey: ["agents"], queryFn: api.agents, refetchInterval: 1000 });
  if (view.isPending) return <Loading what="agents" />;
  if (view.isError) return <ErrorBox error={view.error} />;
  const { agents, run } = view.data;
  const idle = agents.filter((a) => a.state === "idle").length;
  const going = run != null && ["running", "stopping", "merging"].includes(run.state);
  return (
    <section>
      <h1>Agents</h1>
      {agents.length === 0 ? (
        <Empty title="No agent is connected.">
          Start one on each client host:{" "}
          <code>
            keystorm agent --controller {window.location.protocol}//THIS-SERVER:PORT
            {window.location.protocol === "https:" ? " --ca-file CA.pem" : ""} --name NAME
          </code>{" "}
          (with the server's token in <code>KEYSTORM_TOKEN</code> or <code>--token-file</code> when it has one). See
          docs/many-hosts.md.
        </Empty>
      ) : (
        <>
          <AgentsTable agents={agents} />
          {!going && (
            <>
              <h2>Start a workload on agents</h2>
              <StartForm idle={idle} />
            </>
          )}
        </>
      )}
      {run && (
        <>
          <h2>{going ? "Run across agents" : "Last run across agents"}</h2>
          <RunCard run={run} />
        </>
      )}
    </section>
  );
}
