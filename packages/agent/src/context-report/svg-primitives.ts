/**
 * Small SVG helpers for the context map: colours, text measurement by a fixed per-character
 * width, label fitting, escaping. All pure; none throws.
 */

export type Rgb = readonly [number, number, number];

/** `#rrggbb`. */
export function hexColor(color: Rgb): string {
  return `#${color.map((channel) => Math.round(channel).toString(16).padStart(2, "0")).join("")}`;
}

/** `amount` 0 keeps `from`, 1 gives `to`; channels rounded so the PNG holds the exact colour. */
export function mixColor(from: Rgb, to: Rgb, amount: number): Rgb {
  return [0, 1, 2].map((channel) => {
    const start = from[channel] ?? 0;
    const end = to[channel] ?? 0;
    return Math.round(start + (end - start) * amount);
  }) as unknown as Rgb;
}

/** WCAG relative luminance, 0 (black) to 1 (white). */
export function relativeLuminance(color: Rgb): number {
  const linear = (channel: number) => {
    const value = channel / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(color[0]) + 0.7152 * linear(color[1]) + 0.0722 * linear(color[2]);
}

/** WCAG contrast ratio of two colours, 1 to 21. */
export function contrastRatio(first: Rgb, second: Rgb): number {
  const [lighter, darker] = [relativeLuminance(first), relativeLuminance(second)].sort((a, b) => b - a);
  return ((lighter ?? 0) + 0.05) / ((darker ?? 0) + 0.05);
}

const WHITE: Rgb = [255, 255, 255];
const DARK_TEXT: Rgb = [16, 23, 31];
const LIGHT_TEXT: Rgb = [248, 250, 252];

/** Leaf `index` of a group: lighter shades for smaller leaves, cycling so neighbours differ. */
export function leafFillColor(groupColor: Rgb, index: number): Rgb {
  return mixColor(groupColor, WHITE, 0.06 + (index % 6) * 0.09);
}

/** The group tile (its border and header strip): the group colour darkened. */
export function groupFillColor(groupColor: Rgb): Rgb {
  return mixColor(groupColor, [18, 22, 27], 0.38);
}

/** Dark or light text, whichever contrasts more with `background`. */
export function textColorOn(background: Rgb): string {
  const dark = contrastRatio(background, DARK_TEXT) >= contrastRatio(background, LIGHT_TEXT);
  return hexColor(dark ? DARK_TEXT : LIGHT_TEXT);
}

/**
 * Advance widths by character class, as a share of the font size, for DejaVu Sans (the font the
 * PNG is rendered with here) rounded up, so an estimate errs on the wide side and a label never
 * spills out of its tile. One average for all characters would under-measure capitals (`MEMORY.md`
 * is 0.75 em a character in bold) and over-measure everything else.
 */
const CHARACTER_WIDTHS = {
  regular: { upper: 0.72, digit: 0.64, wide: 0.98, slim: 0.42, lower: 0.62, thin: 0.34, other: 1 },
  bold: { upper: 0.8, digit: 0.7, wide: 1.06, slim: 0.5, lower: 0.7, thin: 0.4, other: 1.06 },
} as const;

export type FontWeight = keyof typeof CHARACTER_WIDTHS;

type CharacterClass = keyof (typeof CHARACTER_WIDTHS)["regular"];

function characterClass(character: string): CharacterClass {
  if (/[A-Z]/.test(character)) return "upper";
  if (/[0-9]/.test(character)) return "digit";
  if (character === "m" || character === "w") return "wide";
  if (/[fijlrt]/.test(character)) return "slim";
  if (/[a-z_]/.test(character)) return "lower";
  if (/[ .,:;'·|!()[\]/-]/.test(character)) return "thin";
  return "other";
}

/** Estimated width in pixels of `text` at `fontSize`. */
export function textWidth(text: string, fontSize: number, weight: FontWeight = "regular"): number {
  const widths = CHARACTER_WIDTHS[weight];
  let total = 0;
  for (const character of text) total += widths[characterClass(character)];
  return total * fontSize;
}

/**
 * `text` cut to fit `width` with `…`, keeping at least `minChars` characters of it; undefined
 * when even that does not fit.
 */
export function fitText(
  text: string,
  width: number,
  fontSize: number,
  weight: FontWeight = "regular",
  minChars = 4,
): string | undefined {
  if (textWidth(text, fontSize, weight) <= width) return text;
  const characters = [...text];
  for (let keep = characters.length - 1; keep >= minChars; keep--) {
    const candidate = `${characters.slice(0, keep).join("").trimEnd()}…`;
    if (textWidth(candidate, fontSize, weight) <= width) return candidate;
  }
  return undefined;
}

export function escapeXml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;");
}

/** Coordinates with at most two decimals, so the SVG stays short and stable. */
export function coordinate(value: number): string {
  return String(Math.round(value * 100) / 100);
}

export interface TextOptions {
  x: number;
  y: number;
  fontSize: number;
  fill: string;
  weight?: FontWeight;
  anchor?: "start" | "end" | "middle";
  className?: string;
}

export function svgText(content: string, options: TextOptions): string {
  const weight = options.weight === "bold" ? ' font-weight="bold"' : "";
  const anchor = options.anchor === undefined ? "" : ` text-anchor="${options.anchor}"`;
  const className = options.className === undefined ? "" : ` class="${options.className}"`;
  return (
    `<text${className} x="${coordinate(options.x)}" y="${coordinate(options.y)}" font-size="${options.fontSize}"` +
    `${weight}${anchor} fill="${options.fill}">${escapeXml(content)}</text>`
  );
}

export function svgRect(
  rect: { x: number; y: number; width: number; height: number },
  attributes: string,
): string {
  return (
    `<rect x="${coordinate(rect.x)}" y="${coordinate(rect.y)}" width="${coordinate(rect.width)}" ` +
    `height="${coordinate(rect.height)}" ${attributes}/>`
  );
}
