// The UI's colours have two homes: the page's are CSS variables in the `:root` block of
// styles.css (named by what they colour), the charts' are in lib/palette.ts. These
// tests fail on a colour written out anywhere else, so a new rule or component takes its
// colour from one of them and a colour is changed in one place.
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { GRID_COLOUR, LABEL_COLOUR, PAPER_COLOUR, PHASE_MARK_COLOUR } from "./lib/palette";

const SRC = dirname(fileURLToPath(import.meta.url));

/** CSS's named colours. (`transparent` and `currentColor` are left out: they name no
 * colour of their own.) */
const NAMED_COLOURS = new Set(
  `aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown
  burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue darkcyan
  darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange darkorchid darkred
  darksalmon darkseagreen darkslateblue darkslategray darkslategrey darkturquoise darkviolet deeppink
  deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia gainsboro ghostwhite gold
  goldenrod gray green greenyellow grey honeydew hotpink indianred indigo ivory khaki lavender lavenderblush
  lawngreen lemonchiffon lightblue lightcoral lightcyan lightgoldenrodyellow lightgray lightgreen lightgrey
  lightpink lightsalmon lightseagreen lightskyblue lightslategray lightslategrey lightsteelblue lightyellow lime
  limegreen linen magenta maroon mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen
  mediumslateblue mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream mistyrose moccasin
  navajowhite navy oldlace olive olivedrab orange orangered orchid palegoldenrod palegreen paleturquoise
  palevioletred papayawhip peachpuff peru pink plum powderblue purple rebeccapurple red rosybrown royalblue
  saddlebrown salmon sandybrown seagreen seashell sienna silver skyblue slateblue slategray slategrey snow
  springgreen steelblue tan teal thistle tomato turquoise violet wheat white whitesmoke yellow yellowgreen`.split(/\s+/),
);

const HEX = /#(?:[0-9a-f]{8}|[0-9a-f]{6}|[0-9a-f]{3,4})\b/gi;
const CSS_COLOUR_FUNCTION = /\b(?:rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)\(/gi;
/** A colour function written out with numbers (not one built from the palette's). */
const CODE_COLOUR_FUNCTION = /\b(?:rgba?|hsla?)\(\s*[\d.]/gi;

/** The stylesheet without its comments, split into its `:root` block and the rest. */
function splitStylesheet(css: string): { root: string; rules: string } {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, "");
  const root = text.match(/:root\s*\{[^}]*\}/)?.[0] ?? "";
  return { root, rules: text.replace(root, "") };
}

/** Every colour written out in CSS rules: hex, colour functions, and named colours in
 * the declarations' values. */
function rawCssColours(rules: string): string[] {
  const found = [...(rules.match(HEX) ?? []), ...(rules.match(CSS_COLOUR_FUNCTION) ?? [])];
  for (const body of rules.match(/\{[^}]*\}/g) ?? []) {
    for (const declaration of body.slice(1, -1).split(";")) {
      const value = declaration.slice(declaration.indexOf(":") + 1);
      for (const word of value.match(/(?<![\w-])[a-z]+(?![\w-])/gi) ?? []) {
        if (NAMED_COLOURS.has(word.toLowerCase())) found.push(word);
      }
    }
  }
  return found;
}

/** Every colour written out in TypeScript: hex, and colour functions with numbers. */
function rawCodeColours(code: string): string[] {
  return [...(code.match(HEX) ?? []), ...(code.match(CODE_COLOUR_FUNCTION) ?? [])];
}

/** The `--name: value` pairs of a `:root` block, each definition in order. */
function definitions(root: string): Array<[string, string]> {
  return [...root.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)].map((m) => [m[1], m[2].trim()]);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : /\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

describe("colour checks", () => {
  it("find colours written out, and nothing else", () => {
    expect(rawCssColours(".a { color: red; border: 1px solid #ABCDEF; background: rgba(0, 0, 0, 0.5); }")).toEqual([
      "#ABCDEF",
      "rgba(",
      "red",
    ]);
    expect(rawCssColours(".a { white-space: nowrap; text-decoration: line-through; background: var(--bg); }")).toEqual([]);
    expect(rawCssColours(".tan-box { background: transparent; }")).toEqual([]);
    expect(rawCodeColours('stroke="#fff" fill={`rgb(255, 0, 0)`}')).toEqual(["#fff", "rgb(2"]);
    expect(rawCodeColours("`rgb(${r}, ${g}, ${b})` `#${i + 1}`")).toEqual([]);
  });
});

describe("styles.css", () => {
  const { root, rules } = splitStylesheet(readFileSync(join(SRC, "styles.css"), "utf8"));
  const vars = new Map(definitions(root));

  it("has its colours in :root only", () => {
    expect(root).not.toBe("");
    expect(rawCssColours(rules)).toEqual([]);
  });

  it("defines each variable once, and uses every one it defines and no other", () => {
    const names = definitions(root).map(([name]) => name);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
    const used = new Set([...(root + rules).matchAll(/var\((--[\w-]+)\)/g)].map((m) => m[1]));
    expect([...used].filter((n) => !vars.has(n))).toEqual([]);
    expect(names.filter((n) => !used.has(n))).toEqual([]);
  });

  it("gives the charts' own lines and labels the page's colours for the same things", () => {
    expect(GRID_COLOUR).toBe(vars.get("--line"));
    expect(PHASE_MARK_COLOUR).toBe(vars.get("--phase-mark"));
    expect(LABEL_COLOUR).toBe(vars.get("--fg-secondary"));
    expect(PAPER_COLOUR).toBe(vars.get("--card"));
  });
});

describe("TypeScript sources", () => {
  it("take their colours from the palette", () => {
    const offenders = sourceFiles(SRC)
      .filter((path) => !/\.test\.tsx?$|\.testing\.tsx?$/.test(path) && relative(SRC, path) !== join("lib", "palette.ts"))
      .flatMap((path) =>
        readFileSync(path, "utf8")
          .split("\n")
          .flatMap((line, i) => rawCodeColours(line).map((c) => `${relative(SRC, path)}:${i + 1}: ${c}`)),
      );
    expect(offenders).toEqual([]);
  });
});
