// The heatmap's colour scale and its labels: rates (operations per second) at 1, 10,
// 100… and at the fullest cell, each where `cellColour` gives it its colour, laid out so
// that no label is drawn over another (a "1,000" over the maximum "3,192" read "8,192").
// The fullest cell's label always stays; a power of ten too close to a neighbour goes.
import { fmtCount } from "./format";

/** The colour scale's width on the page (px). */
export const SCALE_PX = 180;

/** Room a label's character takes at the scale's font size (px), a little more than a
 * digit needs, and the least space between two labels. */
const CHAR_PX = 6;
const GAP_PX = 4;

/** The colour scale's labelled rates (1, 10, 100…, and the fullest cell) and where each
 * sits on it (0..1), as `cellColour` colours them. */
export function scaleTicks(max: number): Array<{ count: number; at: number }> {
  if (max <= 0) return [];
  const at = (n: number) => (max <= 1 ? 1 : Math.log1p(n) / Math.log1p(max));
  const out: Array<{ count: number; at: number }> = [];
  for (let n = 1; n < max; n *= 10) out.push({ count: n, at: at(n) });
  out.push({ count: max, at: 1 });
  return out;
}

/** A rate on the colour scale: whole above ten, a decimal or two below. */
export function fmtScaleRate(rate: number): string {
  return rate >= 10 ? fmtCount(Math.round(rate)) : rate.toFixed(rate < 1 ? 2 : 1).replace(/\.?0+$/, "");
}

/** A label of the colour scale as drawn: its text and its box (px from the scale's left). */
export interface ScaleLabel {
  count: number;
  text: string;
  left: number;
  width: number;
}

/**
 * The labels of a colour scale `widthPx` wide whose fullest cell has `max` operations a
 * second: each centred on its rate's place and kept inside the scale; the fullest
 * cell's is always drawn, any other only where its box clears the labels already drawn
 * by `GAP_PX`.
 */
export function scaleLabels(max: number, widthPx = SCALE_PX): ScaleLabel[] {
  const boxes = scaleTicks(max).map((t) => {
    const text = fmtScaleRate(t.count);
    const width = text.length * CHAR_PX;
    const centre = Math.min(Math.max(t.at * widthPx, width / 2), widthPx - width / 2);
    return { count: t.count, text, left: centre - width / 2, width };
  });
  const fullest = boxes.pop();
  if (!fullest) return [];
  const clear = (a: ScaleLabel, b: ScaleLabel) => a.left + a.width + GAP_PX <= b.left || b.left + b.width + GAP_PX <= a.left;
  const kept: ScaleLabel[] = [];
  for (const box of boxes) {
    if (clear(box, fullest) && kept.every((k) => clear(k, box))) kept.push(box);
  }
  return [...kept, fullest];
}
