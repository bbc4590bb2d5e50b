// Loading, empty and error states that tell the user what to do next.
import { type ReactNode, useState } from "react";
import { ApiError, TOKEN_KEY } from "../api/client";

/** Asks for the server's token (it is needed when the server listens beyond loopback). */
function TokenPrompt() {
  const [token, setToken] = useState("");
  return (
    <div className="form-row">
      <input type="password" placeholder="server token" value={token} onChange={(e) => setToken(e.target.value)} aria-label="server token" />
      <button onClick={() => sessionStorage.setItem(TOKEN_KEY, token.trim())} disabled={!token.trim()}>
        Use this token, then retry
      </button>
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return <div className="state loading">Loading {what}…</div>;
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state empty" data-testid="empty-state">
      <strong>{title}</strong>
      {children && <div>{children}</div>}
    </div>
  );
}

export function ErrorBox({ error, hint }: { error: unknown; hint?: ReactNode }) {
  const e = error instanceof ApiError ? error : null;
  return (
    <div className="state error" role="alert">
      <strong>{e ? `${e.detail}` : String(error)}</strong>
      {e && e.status > 0 && <span className="muted"> ({e.status} {e.code})</span>}
      {hint && <div>{hint}</div>}
      {e?.code === "unauthorized" && <TokenPrompt />}
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}

export function Labels({ labels }: { labels: Record<string, string> }) {
  const entries = Object.entries(labels);
  if (!entries.length) return <span className="muted">–</span>;
  return (
    <span className="labels">
      {entries.map(([k, v]) => (
        <span className="chip" key={k}>
          {k}={v}
        </span>
      ))}
    </span>
  );
}
