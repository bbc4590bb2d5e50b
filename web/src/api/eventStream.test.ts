// The fetch-based reader of the live event stream: parsing text/event-stream cut into
// arbitrary chunks, and (against a stubbed fetch, replaced here only) the tab's token
// in a header, a reconnect with Last-Event-ID after the stream drops, and a refusal
// ending it.
import { describe, expect, it, vi } from "vitest";
import { SseParser, type StreamEvent, openEventStream } from "./eventStream";
import { saveToken } from "./token";
import { recordTokenRequests } from "./token-requests.testing";

function parse(chunks: string[]): { events: StreamEvent[]; parser: SseParser } {
  const events: StreamEvent[] = [];
  const parser = new SseParser((e) => events.push(e));
  for (const c of chunks) parser.push(c);
  return { events, parser };
}

describe("SseParser", () => {
  const STREAM =
    ": keep-alive\n\nid: 0\nevent: started\ndata: {\"run_id\":\"r\"}\n\nid: 1\r\nevent: interval\r\ndata: {\"a\":\r\ndata: 1}\r\n\r\nretry: 1500\nid: 2\n\ndata:plain\n\n";
  const EXPECTED: StreamEvent[] = [
    { id: "0", name: "started", data: '{"run_id":"r"}' },
    { id: "1", name: "interval", data: '{"a":\n1}' },
    { id: "2", name: "message", data: "plain" },
  ];

  it("reads events whole, however the stream is cut", () => {
    for (let size = 1; size <= STREAM.length; size++) {
      const chunks: string[] = [];
      for (let i = 0; i < STREAM.length; i += size) chunks.push(STREAM.slice(i, i + size));
      const { events, parser } = parse(chunks);
      expect(events, `chunks of ${size}`).toEqual(EXPECTED);
      expect(parser.lastEventId).toBe("2");
      expect(parser.retryMs).toBe(1500);
    }
  });

  it("keeps an event without its blank line for later", () => {
    const { events } = parse(["id: 5\nevent: x\ndata: 1\n"]);
    expect(events).toEqual([]);
  });
});

/** One answer of the stubbed server: a status and the stream's text. */
type Answer = { status: number; body: string };

function stubStream(answers: Answer[]): Array<Headers> {
  const requests: Headers[] = [];
  vi.stubGlobal("fetch", async (_input: RequestInfo | URL, init?: RequestInit) => {
    requests.push(new Headers(init?.headers));
    const answer = answers.shift() ?? { status: 200, body: "" };
    if (answer.status !== 200)
      return new Response(JSON.stringify({ error: "x", detail: `refused ${answer.status}` }), { status: answer.status });
    return new Response(
      new ReadableStream({
        start(c) {
          c.enqueue(new TextEncoder().encode(answer.body));
          c.close();
        },
      }),
      { status: 200, headers: { "content-type": "text/event-stream" } },
    );
  });
  return requests;
}

const asked = recordTokenRequests();

describe("openEventStream", () => {
  it("sends the token, and after a drop connects again from the last event id", async () => {
    saveToken("0123456789abcdef-token");
    const requests = stubStream([
      { status: 200, body: "id: 0\nevent: started\ndata: {}\n\nid: 1\nevent: interval\ndata: {}\n\n" },
      { status: 200, body: "id: 2\nevent: finished\ndata: {}\n\n" },
    ]);
    const events: StreamEvent[] = [];
    const drops: Array<[boolean, string]> = [];
    let close = () => {};
    await new Promise<void>((done) => {
      close = openEventStream(
        "/api/runs/r/events?recent=10",
        {
          onEvent: (e) => {
            events.push(e);
            if (e.name === "finished") done();
          },
          onError: (final, reason) => drops.push([final, reason]),
        },
        5,
      );
    });
    close();
    expect(events.map((e) => [e.id, e.name])).toEqual([
      ["0", "started"],
      ["1", "interval"],
      ["2", "finished"],
    ]);
    expect(drops).toEqual([[false, "the event stream dropped"]]);
    expect(requests.map((h) => h.get("authorization"))).toEqual(["Bearer 0123456789abcdef-token", "Bearer 0123456789abcdef-token"]);
    expect(requests.map((h) => h.get("last-event-id"))).toEqual([null, "1"]);
    expect(requests[0].get("accept")).toBe("text/event-stream");
  });

  it("ends on a refusal, and a 401 asks for the token", async () => {
    const requests = stubStream([{ status: 401, body: "" }]);
    const drops = await new Promise<Array<[boolean, string]>>((done) => {
      const seen: Array<[boolean, string]> = [];
      openEventStream("/api/runs/r/events", {
        onEvent: () => {},
        onError: (final, reason) => {
          seen.push([final, reason]);
          if (final) done(seen);
        },
      });
    });
    expect(drops).toEqual([[true, "refused 401"]]);
    expect(asked).toEqual(["missing"]);
    expect(requests).toHaveLength(1);
  });
});
