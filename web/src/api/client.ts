// Thin fetch wrappers: JSON in and out with the tab's token (./token), and the API's
// `{error, detail}` turned into an ApiError the pages can show as it is.
import type {
  AgentsView,
  Comparison,
  Distribution,
  EndpointsReport,
  Timeline,
  Heatmap,
  IndexReport,
  IntervalRecord,
  IntegrityReport,
  ListingsReport,
  RunDetail,
  RunInfo,
  Status,
  ValidateResponse,
  WorkloadInfo,
  WorkloadText,
} from "./types";
import { authHeaders, readToken, tokenRefused } from "./token";

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

function unreachable(e: unknown): ApiError {
  return new ApiError(0, "unreachable", `keystorm did not answer (${String(e)}); is \`keystorm serve\` running?`);
}

/**
 * One API call with this tab's token (or `token`, to try one before keeping it). A 401
 * to the tab's own token tells the token prompt, unless `token` was given.
 */
async function call<T>(method: string, path: string, body?: unknown, token?: string): Promise<T> {
  let resp: Response;
  const sent = token ?? readToken();
  const headers: Record<string, string> = {
    ...(body === undefined ? {} : { "content-type": "application/json" }),
    ...authHeaders(sent),
  };
  try {
    resp = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw unreachable(e);
  }
  if (resp.status === 401 && token === undefined) tokenRefused(sent);
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

/**
 * Saves an export with this tab's token: a link cannot send the header, so the file is
 * fetched and handed to the browser as a download.
 */
async function download(path: string, file: string): Promise<void> {
  const sent = readToken();
  let resp: Response;
  try {
    resp = await fetch(path, { headers: authHeaders(sent) });
  } catch (e) {
    throw unreachable(e);
  }
  if (resp.status === 401) tokenRefused(sent);
  if (!resp.ok) {
    const e = ((await resp.json().catch(() => ({}))) ?? {}) as { error?: string; detail?: string };
    throw new ApiError(resp.status, e.error ?? "http_" + resp.status, e.detail ?? resp.statusText);
  }
  const url = URL.createObjectURL(await resp.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = file;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

const enc = encodeURIComponent;

export const api = {
  status: () => call<Status>("GET", "/api/status"),
  /** The status as `token` opens it: how the token prompt checks a token before keeping it. */
  statusWith: (token: string) => call<Status>("GET", "/api/status", undefined, token),
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
  integrity: (id: string) => call<IntegrityReport>("GET", `/api/runs/${enc(id)}/integrity`),
  endpoints: (id: string) => call<EndpointsReport>("GET", `/api/runs/${enc(id)}/endpoints`),
  timeline: (id: string) => call<Timeline>("GET", `/api/runs/${enc(id)}/timeline`),
  /** The runs `news` judged against `base`, changes within ± `noiseFloor` (a share) being no change. */
  compare: (base: string, news: string[], noiseFloor: number) => {
    const q = new URLSearchParams({ base, new: news.join(","), noise_floor: String(noiseFloor) });
    return call<Comparison>("GET", `/api/compare?${q}`);
  },
  exportUrl: (id: string, file: string) => `/api/runs/${enc(id)}/export/${file}`,
  downloadExport: (id: string, file: string) => download(`/api/runs/${enc(id)}/export/${file}`, file),
};
