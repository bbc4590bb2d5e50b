// Marker shapes drawn on chart points, in legends and beside a run's name, so a series
// that shares its operation's colour and its percentile's dash is still told apart
// (a phase of an operation on a run's page, a run on the compare page).
import { LABEL_COLOUR, type MarkerShape, PAPER_COLOUR } from "../lib/palette";

/** The SVG path of a marker of half-size `r` centred on (cx, cy). */
export function markerPath(shape: MarkerShape, cx: number, cy: number, r: number): string {
  switch (shape) {
    case "square":
      return `M${cx - r},${cy - r}h${2 * r}v${2 * r}h${-2 * r}Z`;
    case "triangle": {
      const h = r * 1.15;
      return `M${cx},${cy - h}L${cx + h},${cy + h * 0.8}L${cx - h},${cy + h * 0.8}Z`;
    }
    case "diamond": {
      const d = r * 1.3;
      return `M${cx},${cy - d}L${cx + d},${cy}L${cx},${cy + d}L${cx - d},${cy}Z`;
    }
    case "cross": {
      const a = r * 1.2;
      return `M${cx - a},${cy - a}L${cx + a},${cy + a}M${cx - a},${cy + a}L${cx + a},${cy - a}`;
    }
    case "star": {
      const points: string[] = [];
      for (let i = 0; i < 10; i++) {
        const radius = i % 2 === 0 ? r * 1.4 : r * 0.6;
        const angle = (Math.PI / 5) * i - Math.PI / 2;
        points.push(`${(cx + radius * Math.cos(angle)).toFixed(2)},${(cy + radius * Math.sin(angle)).toFixed(2)}`);
      }
      return `M${points.join("L")}Z`;
    }
    case "circle":
    default:
      return `M${cx - r},${cy}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
  }
}

/** A hollow marker on a chart (white inside, so the line behind it does not show through). */
export function MarkerMark(props: {
  shape: MarkerShape;
  cx: number;
  cy: number;
  colour: string;
  r?: number;
  testId?: string;
  series?: string;
}) {
  return (
    <path
      d={markerPath(props.shape, props.cx, props.cy, props.r ?? 3.5)}
      fill={PAPER_COLOUR}
      stroke={props.colour}
      strokeWidth={2}
      data-testid={props.testId}
      data-series={props.series}
      data-marker={props.shape}
    />
  );
}

/** A marker on its own, beside a name (a run in the compare page's table). */
export function MarkerGlyph({ shape, colour = LABEL_COLOUR }: { shape: MarkerShape; colour?: string }) {
  return (
    <svg width="12" height="12" aria-label={shape} role="img" data-testid="marker-glyph" data-marker={shape}>
      <MarkerMark shape={shape} cx={6} cy={6} r={3.5} colour={colour} />
    </svg>
  );
}
