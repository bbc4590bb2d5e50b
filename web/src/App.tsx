// The shell: top navigation with a badge for the run in progress (and, with a token,
// the tab's access and a way to forget the token), and the routes behind the token
// prompt.
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { BrowserRouter, Link, NavLink, Navigate, Route, Routes } from "react-router-dom";
import { READ_ONLY_REASON } from "./api/access";
import { ApiError, api } from "./api/client";
import { forgetAndAsk, readToken } from "./api/token";
import { TokenGate } from "./components/TokenGate";
import { AgentsPage } from "./pages/AgentsPage";
import { ComparePage } from "./pages/ComparePage";
import { LiveRunPage } from "./pages/LiveRunPage";
import { RunDetailPage } from "./pages/RunDetailPage";
import { RunsPage } from "./pages/RunsPage";
import { WorkloadsPage } from "./pages/WorkloadsPage";

function Nav() {
  const status = useQuery({ queryKey: ["status"], queryFn: api.status, refetchInterval: 3000 });
  const running = status.data?.running;
  return (
    <header className="nav">
      <Link to="/runs" className="brand">
        keystorm
      </Link>
      <NavLink to="/runs">Runs</NavLink>
      <NavLink to="/compare" title="Tick two or more runs on the Runs page, then press Compare">
        Compare
      </NavLink>
      <NavLink to="/workloads">Workloads</NavLink>
      <NavLink to="/agents">Agents</NavLink>
      <span className="spacer" />
      {running && (
        <Link to={`/runs/${running}/live`} className="live-badge" data-testid="live-badge">
          ● live: {running}
        </Link>
      )}
      {status.isError && <span className="bad">server unreachable</span>}
      {status.data?.access === "read" && (
        <span className="access" title={READ_ONLY_REASON} data-testid="read-only-badge">
          read-only token
        </span>
      )}
      {readToken() && (
        <button className="forget" onClick={forgetAndAsk} title="Drop the token this tab keeps; the server asks for it again" data-testid="forget-token">
          Forget token
        </button>
      )}
    </header>
  );
}

/** One retry, but not of a refused token: the token prompt takes over. */
const retry = (failures: number, error: Error) => failures < 1 && !(error instanceof ApiError && error.status === 401);
const client = new QueryClient({ defaultOptions: { queries: { retry, refetchOnWindowFocus: false } } });

export function App() {
  return (
    <QueryClientProvider client={client}>
      <TokenGate>
        <BrowserRouter>
          <Nav />
          <main>
            <Routes>
              <Route path="/" element={<Navigate to="/runs" replace />} />
              <Route path="/runs" element={<RunsPage />} />
              <Route path="/runs/:id" element={<RunDetailPage />} />
              <Route path="/runs/:id/live" element={<LiveRunPage />} />
              <Route path="/compare" element={<ComparePage />} />
              <Route path="/workloads" element={<WorkloadsPage />} />
              <Route path="/workloads/:name" element={<WorkloadsPage />} />
              <Route path="/agents" element={<AgentsPage />} />
              <Route path="*" element={<div className="state">No such page. <Link to="/runs">Go to the runs</Link>.</div>} />
            </Routes>
          </main>
        </BrowserRouter>
      </TokenGate>
    </QueryClientProvider>
  );
}
