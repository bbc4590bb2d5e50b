// Loading, empty and error states that tell the user what to do next.
import type { ReactNode } from "react";
import { ApiError } from "../api/client";

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
