// The token prompt against a stubbed server (fetch replaced here only) that wants its
// token on every call: it says why it asks, refuses a wrong token plainly and asks
// again, and with the right one shows the page, which then reads with the token.
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import { api } from "../api/client";
import { TOKEN_KEY, forgetAndAsk } from "../api/token";
import { REFUSED, TokenGate } from "./TokenGate";

const RIGHT = "0123456789abcdef-right";

function Runs() {
  const runs = useQuery({ queryKey: ["runs"], queryFn: api.runs, retry: false });
  return <div data-testid="runs">{runs.isSuccess ? `${runs.data.length} runs` : "…"}</div>;
}

beforeEach(() => {
  sessionStorage.clear();
  vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
    if (new Headers(init?.headers).get("authorization") !== `Bearer ${RIGHT}`)
      return new Response(JSON.stringify({ error: "unauthorized", detail: "needs its token" }), { status: 401 });
    const path = String(input);
    const json = path === "/api/runs" ? [] : { version: "0.1.0", running: null, token_required: true, access: "write" };
    return new Response(JSON.stringify(json), { status: 200 });
  });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

it("asks for the token, refuses a wrong one plainly, and shows the page with the right one", async () => {
  const client = new QueryClient();
  render(
    <QueryClientProvider client={client}>
      <TokenGate>
        <Runs />
      </TokenGate>
    </QueryClientProvider>,
  );
  const prompt = await screen.findByTestId("token-prompt");
  expect(prompt.textContent).toContain("reachable from the network, so it asks for its token");
  expect(prompt.textContent).toContain("kept for this browser tab only");
  expect(screen.queryByTestId("runs")).toBeNull();

  fireEvent.change(screen.getByTestId("token-input"), { target: { value: "0123456789abcdef-wrong" } });
  fireEvent.click(screen.getByTestId("token-submit"));
  expect((await screen.findByTestId("token-problem")).textContent).toBe(REFUSED);
  expect(sessionStorage.getItem(TOKEN_KEY)).toBeNull();

  fireEvent.change(screen.getByTestId("token-input"), { target: { value: RIGHT } });
  fireEvent.click(screen.getByTestId("token-submit"));
  await waitFor(() => expect(screen.getByTestId("runs").textContent).toBe("0 runs"));
  expect(sessionStorage.getItem(TOKEN_KEY)).toBe(RIGHT);

  // Forgotten, the token is asked for again, and the prompt says why.
  forgetAndAsk();
  expect((await screen.findByTestId("token-why")).textContent).toContain("forgotten");
  expect(screen.queryByTestId("runs")).toBeNull();
});
