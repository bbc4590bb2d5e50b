// What the tests of the token handling share: each test starts with an empty
// sessionStorage and its own fetch stub, and sees why the token prompt was asked for.
import { afterEach, beforeEach, vi } from "vitest";
import { type TokenReason, onTokenNeeded } from "./token";

/** The reasons the prompt was asked for during the current test, in order. */
export function recordTokenRequests(): TokenReason[] {
  const asked: TokenReason[] = [];
  let unsubscribe = () => {};
  beforeEach(() => {
    sessionStorage.clear();
    asked.length = 0;
    unsubscribe = onTokenNeeded((r) => asked.push(r));
  });
  afterEach(() => {
    unsubscribe();
    vi.unstubAllGlobals();
  });
  return asked;
}
