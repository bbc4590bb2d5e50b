// Thin fetch wrappers: JSON in and out, and the API's `{error, detail}` turned into an
// ApiError the pages can show as it is.
import type {
  AgentsView,
  Distribution,
  Heatmap,
  IndexReport,
  IntervalRecord,
  ListingsReport,
  RunDetail,
  RunInfo,
  Status,
  ValidateResponse,
  WorkloadInfo,
  WorkloadText,
} from "./types";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(detail);
  }
}

/** The bearer token of a server bound beyond loopback, kept for this browser tab. */
export const TOKEN_KEY = "keystorm-token";

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  let resp: Response;
  const headers: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
  const token = typeof sessionStorage === "undefined" ? null : sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    resp = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, "unreachable", `keystorm did not answer (${String(e)}); is \`keystorm serve\` running?`);
  }
  if (resp.status === 204) return undefined as T;
  const text = await resp.text();
  let json: unknown = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: handled below
  }
  if (!resp.ok) {
    const e = (json ?? {}) as { error?: string; detail?: string; line?: number; column?: number };
    throw new ApiError(resp.status, e.error ?? "http_" + resp.status, e.detail ?? (text || resp.statusText), e.line, e.column);
  }
  return json as T;
}

const enc = encodeURIComponent;

export const api = {
  status: () => call<Status>("GET", "/api/status"),
  workloads: () => call<WorkloadInfo[]>("GET", "/api/workloads"),
  workload: (name: string) => call<WorkloadText>("GET", `/api/workloads/${enc(name)}`),
  validate: (text: string) => call<ValidateResponse>("POST", "/api/workloads/validate", { text }),
  saveWorkload: (name: string, text: string, overwrite: boolean) =>
    call<WorkloadInfo>("PUT", `/api/workloads/${enc(name)}`, { text, overwrite }),
  runs: () => call<RunInfo[]>("GET", "/api/runs"),
  run: (id: string) => call<RunDetail>("GET", `/api/runs/${enc(id)}`),
  agents: () => call<AgentsView>("GET", "/api/agents"),
  startRun: (req: { workload?: string; yaml?: string; endpoint?: string; labels?: Record<string, string>; agents?: number }) =>
    call<{ run_id: string }>("POST", "/api/runs", req),
  stopRun: (id: string) => call<{ run_id: string }>("POST", `/api/runs/${enc(id)}/stop`),
  editRun: (id: string, edit: { labels?: Record<string, string>; notes?: string }) =>
    call<RunInfo>("PATCH", `/api/runs/${enc(id)}`, edit),
  deleteRun: (id: string) => call<void>("DELETE", `/api/runs/${enc(id)}`),
  intervals: (id: string, f: { section?: string; round?: number | null; phase?: string } = {}) => {
    const q = new URLSearchParams();
    if (f.section) q.set("section", f.section);
    if (f.round != null) q.set("round", String(f.round));
    if (f.phase) q.set("phase", f.phase);
    return call<IntervalRecord[]>("GET", `/api/runs/${enc(id)}/intervals?${q}`);
  },
  distribution: (id: string, f: { section: string; round?: number | null; phase: string; op: string }) => {
    const q = new URLSearchParams({ section: f.section, phase: f.phase, op: f.op });
    if (f.round != null) q.set("round", String(f.round));
    return call<Distribution>("GET", `/api/runs/${enc(id)}/distribution?${q}`);
  },
  /** One operation's heatmap over the whole run, or over one phase. */
  heatmap: (id: string, op: string, phase?: { section: string; round?: number | null; phase: string }) => {
    const q = new URLSearchParams({ op, max_columns: "1200" });
    if (phase) {
      q.set("section", phase.section);
      q.set("phase", phase.phase);
      if (phase.round != null) q.set("round", String(phase.round));
    }
    return call<Heatmap>("GET", `/api/runs/${enc(id)}/heatmap?${q}`);
  },
  index: (id: string) => call<IndexReport>("GET", `/api/runs/${enc(id)}/index`),
  listings: (id: string) => call<ListingsReport>("GET", `/api/runs/${enc(id)}/listings`),
  exportUrl: (id: string, file: string) => `/api/runs/${enc(id)}/export/${file}`,
};
