// The bearer token of a keystorm server that listens beyond loopback: kept in this
// tab's sessionStorage (never in a URL, never in localStorage), sent on every API call,
// and the signal that a call was refused for the want of it, which the token prompt
// listens to.

/** sessionStorage key of the token: it lasts as long as the browser tab. */
export const TOKEN_KEY = "keystorm-token";

/** Why the prompt asks: no token yet, the one kept was refused, or it was forgotten. */
export type TokenReason = "missing" | "refused" | "forgotten";

function storage(): Storage | null {
  return typeof sessionStorage === "undefined" ? null : sessionStorage;
}

export function readToken(): string | null {
  return storage()?.getItem(TOKEN_KEY) || null;
}

export function saveToken(token: string): void {
  storage()?.setItem(TOKEN_KEY, token.trim());
}

export function forgetToken(): void {
  storage()?.removeItem(TOKEN_KEY);
}

/** `Authorization: Bearer <token>` when this tab holds a token. */
export function authHeaders(token: string | null = readToken()): Record<string, string> {
  return token ? { authorization: `Bearer ${token}` } : {};
}

type Listener = (reason: TokenReason) => void;
const listeners = new Set<Listener>();

/** Calls `listener` whenever the server refuses a call for its token; returns the unsubscribe. */
export function onTokenNeeded(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * A call was answered 401: with a token sent, that token is wrong (and dropped, so the
 * next calls do not repeat it); without one, the server wants one. A call sent before
 * the tab's current token was entered (without one, or with one since replaced) says
 * nothing of that token: its late answer neither drops it nor raises the prompt again.
 */
export function tokenRefused(sentToken: string | null): void {
  const held = readToken();
  if (held && held !== sentToken) return;
  const reason: TokenReason = sentToken ? "refused" : "missing";
  if (sentToken) forgetToken();
  for (const l of [...listeners]) l(reason);
}

/** Drops the tab's token and asks for it again. */
export function forgetAndAsk(): void {
  forgetToken();
  for (const l of [...listeners]) l("forgotten");
}
