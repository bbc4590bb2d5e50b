// A run's live event stream read with fetch, so that it carries the tab's token in a
// header: EventSource cannot send one, and a token in the URL would end up in server
// logs and the browser's history. It behaves as EventSource does: named events with
// their ids; a connection that drops is made again (after the stream's `retry`, 3 s
// by default) with `Last-Event-ID`, from which the server resumes; a refusal (any
// answer but 200) ends it.
import { authHeaders, readToken, tokenRefused } from "./token";

export interface StreamEvent {
  /** The last `id:` seen (the event's own, or the one before it). */
  id: string;
  /** The `event:` name (`message` without one). */
  name: string;
  data: string;
}

/** Reads text/event-stream as it arrives, in chunks cut anywhere (the WHATWG rules). */
export class SseParser {
  private pending = "";
  private skipLineFeed = false;
  private data: string[] = [];
  private name = "";
  /** The `retry:` the server asked for, in milliseconds. */
  retryMs: number | null = null;

  constructor(
    private readonly emit: (e: StreamEvent) => void,
    /** The last event id, kept across connections. */
    public lastEventId = "",
  ) {}

  push(chunk: string): void {
    let text = chunk;
    // A "\r\n" cut between two chunks ends one line, not two.
    if (this.skipLineFeed && text.startsWith("\n")) text = text.slice(1);
    this.skipLineFeed = text.endsWith("\r");
    const lines = (this.pending + text).split(/\r\n|\r|\n/);
    this.pending = lines.pop() ?? "";
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) return; // a comment: the server's keep-alive
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    switch (field) {
      case "event":
        this.name = value;
        break;
      case "data":
        this.data.push(value);
        break;
      case "id":
        if (!value.includes("\0")) this.lastEventId = value;
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
    }
  }

  private dispatch(): void {
    const data = this.data;
    const name = this.name;
    this.data = [];
    this.name = "";
    if (data.length === 0) return;
    this.emit({ id: this.lastEventId, name: name || "message", data: data.join("\n") });
  }
}

export interface EventStreamHandlers {
  onEvent(e: StreamEvent): void;
  /**
   * The connection dropped (`final` false: it is made again) or the server refused the
   * stream (`final` true, with its reason: the stream is over).
   */
  onError?(final: boolean, reason: string): void;
}

/** Default wait before connecting again, as EventSource's. */
export const RECONNECT_MS = 3000;

/** Opens the stream at `path`; returns what closes it. */
export function openEventStream(path: string, handlers: EventStreamHandlers, reconnectMs = RECONNECT_MS): () => void {
  const abort = new AbortController();
  let lastEventId = "";
  let retry = reconnectMs;
  const closed = () => abort.signal.aborted;

  const connect = async (): Promise<"again" | "over"> => {
    const sent = readToken();
    const resp = await fetch(path, {
      headers: {
        accept: "text/event-stream",
        ...authHeaders(sent),
        ...(lastEventId ? { "last-event-id": lastEventId } : {}),
      },
      cache: "no-store",
      signal: abort.signal,
    });
    if (!resp.ok || !resp.body) {
      if (resp.status === 401) tokenRefused(sent);
      const body = (await resp.json().catch(() => null)) as { detail?: string } | null;
      handlers.onError?.(true, body?.detail ?? `the event stream was refused (HTTP ${resp.status})`);
      return "over";
    }
    const parser = new SseParser((e) => {
      if (!closed()) handlers.onEvent(e);
    }, lastEventId);
    const reader = resp.body.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.push(decoder.decode(value, { stream: true }));
      }
    } finally {
      lastEventId = parser.lastEventId;
      if (parser.retryMs != null) retry = parser.retryMs;
    }
    return "again";
  };

  void (async () => {
    while (!closed()) {
      try {
        if ((await connect()) === "over") return;
      } catch {
        // The connection failed or broke off: made again below.
      }
      if (closed()) return;
      handlers.onError?.(false, "the event stream dropped");
      await pause(retry, abort.signal);
    }
  })();
  return () => abort.abort();
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((done) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        done();
      },
      { once: true },
    );
  });
}
