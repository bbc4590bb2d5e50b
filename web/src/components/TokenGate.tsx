// The token prompt: when the server refuses a call for want of its token (it listens
// beyond loopback), the app gives way to a page that says why it asks, checks the token
// against the server before keeping it (in this tab's sessionStorage), and says so
// plainly when the server refuses it. Nothing is shown of the app until then.
import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useEffect, useState } from "react";
import { ApiError, api } from "../api/client";
import { type TokenReason, onTokenNeeded, saveToken } from "../api/token";

export const REFUSED =
  "The server refused this token: it is neither its token nor its read-only token. Check it and try again.";

const WHY: Record<TokenReason, string | null> = {
  missing: null,
  refused: "The token this tab held was refused (the server may have been started again with another token).",
  forgotten: "The token was forgotten: enter it again to go on.",
};

export function TokenPrompt({ reason, onAccepted }: { reason: TokenReason; onAccepted: (token: string) => void }) {
  const [token, setToken] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const candidate = token.trim();
    if (!candidate) return;
    setChecking(true);
    setProblem(null);
    try {
      await api.statusWith(candidate);
      onAccepted(candidate);
    } catch (err) {
      setProblem(err instanceof ApiError && err.status === 401 ? REFUSED : err instanceof ApiError ? err.detail : String(err));
      setChecking(false);
    }
  };
  return (
    <>
      <header className="nav">
        <span className="brand">keystorm</span>
      </header>
      <main>
        <form className="token-prompt" onSubmit={submit} data-testid="token-prompt">
          <h1>This keystorm server asks for its token</h1>
          <p>
            This keystorm server is reachable from the network, so it asks for its token before it shows or starts
            anything. The token is kept for this browser tab only: closing the tab forgets it.
          </p>
          <p className="muted">
            It is the token <code>keystorm serve</code> was started with (<code>KEYSTORM_TOKEN</code> or{" "}
            <code>--token-file</code>), or its read-only token (<code>KEYSTORM_READ_TOKEN</code> or{" "}
            <code>--read-token-file</code>) to watch runs without changing anything.
          </p>
          {WHY[reason] && (
            <p className="warn-text" data-testid="token-why">
              {WHY[reason]}
            </p>
          )}
          <div className="form-row">
            <input
              type="password"
              autoFocus
              autoComplete="off"
              placeholder="token"
              aria-label="server token"
              value={token}
              onChange={(e) => setToken(e.target.value)}
              data-testid="token-input"
            />
            <button className="primary" type="submit" disabled={!token.trim() || checking} data-testid="token-submit">
              {checking ? "Checking…" : "Use this token"}
            </button>
          </div>
          {problem && (
            <div className="state error" role="alert" data-testid="token-problem">
              {problem}
            </div>
          )}
        </form>
      </main>
    </>
  );
}

/** Shows `children`, or the token prompt while the server wants a token. */
export function TokenGate({ children }: { children: ReactNode }) {
  const queries = useQueryClient();
  const [reason, setReason] = useState<TokenReason | null>(null);
  useEffect(() => onTokenNeeded((r) => setReason((shown) => (r === "forgotten" ? r : (shown ?? r)))), []);
  if (reason == null) return <>{children}</>;
  const accepted = (token: string) => {
    saveToken(token);
    // Everything read without the token (refused) is read again with it.
    queries.clear();
    setReason(null);
  };
  return <TokenPrompt reason={reason} onAccepted={accepted} />;
}
