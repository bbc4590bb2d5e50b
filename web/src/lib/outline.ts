// A workload's shape in words, as a storage engineer would say it: "fill, then 3 rounds
// of write · read · mixed, then list".
import type { components } from "../api/schema.gen";

type Outline = components["schemas"]["Outline"];

export function outlineText(outline: Outline): string {
  const names = (section: string) => outline.phases.filter((p) => p.section === section).map((p) => p.name);
  const parts: string[] = [];
  const before = names("before");
  if (before.length) parts.push(before.join(", "));
  const round = names("round");
  if (round.length && outline.rounds > 0) {
    parts.push(`${outline.rounds} round${outline.rounds === 1 ? "" : "s"} of ${round.join(" · ")}`);
  }
  const after = names("after");
  if (after.length) parts.push(after.join(", "));
  return parts.length ? parts.join(", then ") : "no phases";
}
