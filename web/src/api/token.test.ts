// The client's token handling against a stubbed fetch (replaced here only): the tab's
// token on every call, a 401 raising the token prompt (and dropping a refused token),
// a token tried before it is kept, and forgetting it.
import { describe, expect, it, vi } from "vitest";
import { ApiError, api } from "./client";
import { TOKEN_KEY, forgetAndAsk, readToken, saveToken } from "./token";
import { recordTokenRequests } from "./token-requests.testing";

const RIGHT = "0123456789abcdef-right";

/** A server wanting RIGHT on every call; returns the Authorization headers it saw. */
function stubServer(): Array<string | null> {
  const seen: Array<string | null> = [];
  vi.stubGlobal("fetch", async (_input: RequestInfo | URL, init?: RequestInit) => {
    const auth = new Headers(init?.headers).get("authorization");
    seen.push(auth);
    if (auth !== `Bearer ${RIGHT}`)
      return new Response(JSON.stringify({ error: "unauthorized", detail: "needs its token" }), {
        status: 401,
        headers: { "content-type": "application/json", "www-authenticate": "Bearer" },
      });
    return new Response(JSON.stringify({ version: "0.1.0", running: null, token_required: true, access: "write" }), { status: 200 });
  });
  return seen;
}

const asked = recordTokenRequests();

describe("the tab's token", () => {
  it("is sent as a bearer token on every call once kept, and not before", async () => {
    const seen = stubServer();
    await expect(api.runs()).rejects.toBeInstanceOf(ApiError);
    expect(seen).toEqual([null]);
    expect(asked).toEqual(["missing"]);

    saveToken(` ${RIGHT} `);
    expect(sessionStorage.getItem(TOKEN_KEY)).toBe(RIGHT);
    await api.status();
    await api.runs();
    expect(seen.slice(1)).toEqual([`Bearer ${RIGHT}`, `Bearer ${RIGHT}`]);
    expect(asked).toEqual(["missing"]);
  });

  it("is dropped when the server refuses it, and the prompt says it was refused", async () => {
    stubServer();
    saveToken("0123456789abcdef-wrong");
    const e = await api.runs().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(401);
    expect((e as ApiError).code).toBe("unauthorized");
    expect(asked).toEqual(["refused"]);
    expect(readToken()).toBeNull();
  });

  it("is tried before it is kept, without raising the prompt", async () => {
    const seen = stubServer();
    await expect(api.statusWith("0123456789abcdef-wrong")).rejects.toMatchObject({ status: 401 });
    expect((await api.statusWith(RIGHT)).access).toBe("write");
    expect(seen).toEqual(["Bearer 0123456789abcdef-wrong", `Bearer ${RIGHT}`]);
    expect(asked).toEqual([]);
    expect(readToken()).toBeNull();
  });

  it("is kept when a call sent before it was entered comes back refused late", async () => {
    let answer: (r: Response) => void = () => {};
    vi.stubGlobal("fetch", () => new Promise<Response>((resolve) => (answer = resolve)));
    // A call goes out without a token; the token is entered while it is on its way.
    const early = api.runs().catch((err: unknown) => err);
    saveToken(RIGHT);
    answer(new Response(JSON.stringify({ error: "unauthorized", detail: "needs its token" }), { status: 401 }));
    expect(await early).toBeInstanceOf(ApiError);
    expect(readToken()).toBe(RIGHT);
    expect(asked).toEqual([]);
  });

  it("can be forgotten, which asks for it again", () => {
    saveToken(RIGHT);
    forgetAndAsk();
    expect(readToken()).toBeNull();
    expect(sessionStorage.getItem(TOKEN_KEY)).toBeNull();
    expect(asked).toEqual(["forgotten"]);
  });
});
