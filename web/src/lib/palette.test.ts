// The list-scaling chart's colours: serial and parallel are not read as PUT and DELETE.
import { describe, expect, it } from "vitest";
import { OP_COLOURS, SCALING_COLOURS, scalingColour } from "./palette";

describe("list-scaling colours", () => {
  const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  const distance = (a: string, b: string) => Math.hypot(...rgb(a).map((v, i) => v - rgb(b)[i]));
  it("are no operation's colour, nor near one, nor near each other", () => {
    for (const c of SCALING_COLOURS) {
      for (const [op, oc] of Object.entries(OP_COLOURS)) expect(distance(c, oc), `${c} against ${op} ${oc}`).toBeGreaterThanOrEqual(80);
    }
    for (let i = 0; i < SCALING_COLOURS.length; i++)
      for (let j = i + 1; j < SCALING_COLOURS.length; j++) expect(distance(SCALING_COLOURS[i], SCALING_COLOURS[j])).toBeGreaterThanOrEqual(80);
    // Serial and parallel, the first two lines, differ; more lines go round.
    expect(scalingColour(0)).not.toBe(scalingColour(1));
    expect(scalingColour(SCALING_COLOURS.length)).toBe(scalingColour(0));
  });
});
