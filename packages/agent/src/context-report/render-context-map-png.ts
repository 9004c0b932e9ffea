import { Resvg } from "@resvg/resvg-js";

export interface ContextMapPngOptions {
  /** Font files to load besides (or instead of) the system fonts. */
  fontFiles?: string[];
  /** Default true: use the fonts installed on the machine (fontconfig's folders). */
  loadSystemFonts?: boolean;
}

/**
 * Rasterises a context map SVG to PNG with resvg (a real 2D renderer with anti-aliasing and
 * font shaping), at the SVG's own size. Text falls back to the first available system font when
 * none of the SVG's families is installed; with no font at all, tiles still render and text is
 * left out (resvg skips glyphs it cannot find). Throws resvg's error for SVG it cannot parse.
 */
export function renderContextMapPng(svg: string, options: ContextMapPngOptions = {}): Buffer {
  const renderer = new Resvg(svg, {
    fitTo: { mode: "original" },
    font: {
      loadSystemFonts: options.loadSystemFonts ?? true,
      fontFiles: options.fontFiles ?? [],
      defaultFontFamily: "DejaVu Sans",
    },
  });
  return renderer.render().asPng();
}
