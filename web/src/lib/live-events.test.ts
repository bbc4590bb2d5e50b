// The live page decides, for every kind of run event the API declares, whether it folds
// it: the kinds of `LIVE_FOLDS` are exactly those of the `RunEvent` union in
// docs/openapi.json, the file the generated API types come from. (Typecheck holds them
// to the generated types; this holds them to the API's own description too, should the
// generated file be stale.)
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { LIVE_EVENTS, LIVE_FOLDS } from "./live";

interface EventVariant {
  properties: { event: { enum: string[] } };
}

/** The `event` of every variant of the API's `RunEvent`. */
function apiEventKinds(): string[] {
  const here = dirname(fileURLToPath(import.meta.url));
  const spec = JSON.parse(readFileSync(join(here, "../../../docs/openapi.json"), "utf8"));
  const variants: EventVariant[] = spec.components.schemas.RunEvent.oneOf;
  return variants.flatMap((v) => v.properties.event.enum);
}

describe("run event kinds on the live page", () => {
  const kinds = apiEventKinds();

  it("reads the kinds from the API description", () => {
    expect(kinds).toContain("interval");
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  it("places every kind the API declares, and no other", () => {
    expect(Object.keys(LIVE_FOLDS).sort()).toEqual([...kinds].sort());
  });

  it("subscribes to the kinds it folds, all of them kinds the API sends", () => {
    const folded = Object.entries(LIVE_FOLDS)
      .filter(([, fold]) => fold !== null)
      .map(([kind]) => kind);
    expect([...LIVE_EVENTS].sort()).toEqual(folded.sort());
    for (const kind of LIVE_EVENTS) expect(kinds).toContain(kind);
  });
});
