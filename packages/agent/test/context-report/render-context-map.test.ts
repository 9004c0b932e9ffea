import { InvalidOptionError } from "@clew/core";
import { Resvg } from "@resvg/resvg-js";
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import {
  CONTEXT_MAP_GROUPS,
  contextMapData,
  contextMapFrame,
  type LaidOutLeaf,
  layoutContextMap,
  leafFillColor,
  leafLabelLines,
  renderContextMapPng,
  renderContextMapSvg,
} from "../../src/context-report/index.js";
import {
  contrastRatio,
  groupFillColor,
  textColorOn,
  textWidth,
} from "../../src/context-report/svg-primitives.js";
import { sampleRunReport } from "./fixtures.js";

const data = contextMapData(sampleRunReport({ engineAdditionChars: 1_840 }));
const frame = contextMapFrame();
const laidOut = layoutContextMap(data, frame.treemap);
const svg = renderContextMapSvg(data, {
  title: "Context map",
  subtitle: "run · anthropic/claude-sonnet-4-5",
});
const allLeaves = laidOut.flatMap((group) => group.leaves.map((leaf) => ({ group, ...leaf })));

function leafNamed(name: string): LaidOutLeaf & { group: (typeof laidOut)[number] } {
  const found = allLeaves.find((entry) => entry.leaf.name === name);
  if (found === undefined) throw new Error(`no leaf ${name}`);
  return found;
}

function labelledNames(document: string): string[] {
  return [...document.matchAll(/class="leaf-name"[^>]*>([^<]*)</g)].map((match) => match[1] ?? "");
}

describe("renderContextMapSvg", () => {
  it("labels large tiles with name and size and leaves tiny tiles blank", () => {
    const names = labelledNames(svg);
    expect(names).toEqual(expect.arrayContaining(["Tool results", "Assistant", "browser", "TOOLS.md"]));
    expect(svg).toContain(">64,310 chars · ~17,944 tok<");
    expect(svg).toContain(">9,812 chars · ~2,453 tok<");
    for (const tiny of ["haiku", "IDENTITY.md", "USER.md", "agents_list"]) {
      const { rect } = leafNamed(tiny);
      expect(rect.width * rect.height).toBeLessThan(2_000);
      expect(names).not.toContain(tiny);
    }
  });

  it("keeps every label's estimated width inside its tile", () => {
    for (const entry of allLeaves) {
      const label = leafLabelLines(entry);
      const room = entry.rect.width - 12;
      if (label.name !== undefined) expect(textWidth(label.name, 13, "bold")).toBeLessThanOrEqual(room);
      for (const line of label.size) expect(textWidth(line, 11)).toBeLessThanOrEqual(room);
    }
  });

  it("picks label colours that contrast at least 4:1 with every tile shade", () => {
    const hexToRgb = (hex: string) =>
      [1, 3, 5].map((start) => Number.parseInt(hex.slice(start, start + 2), 16));
    for (const { color } of Object.values(CONTEXT_MAP_GROUPS)) {
      const fills = [
        groupFillColor(color),
        ...[0, 1, 2, 3, 4, 5].map((index) => leafFillColor(color, index)),
      ];
      for (const fill of fills) {
        const [red = 0, green = 0, blue = 0] = hexToRgb(textColorOn(fill));
        expect(contrastRatio(fill, [red, green, blue]), fill.join(",")).toBeGreaterThanOrEqual(4);
      }
    }
  });

  it("draws a header, a legend row with the share of every group, and the totals", () => {
    expect(svg).toContain(">Context map<");
    expect(svg).toContain(">run · anthropic/claude-sonnet-4-5<");
    const legendNames = [...svg.matchAll(/class="legend-name"[^>]*>([^<]*)</g)].map((match) => match[1]);
    expect(legendNames).toEqual(data.groups.map((group) => group.name));
    for (const group of data.groups) {
      expect(svg).toContain(`>${((group.chars / data.totalChars) * 100).toFixed(1)}%<`);
    }
    expect(svg).toContain(">49.6%<");
    expect(svg).toContain(
      "Tracked: 190,479 chars (~49,771 tok) · Provider context: 52,418 tok · Window: 200,000 tok",
    );
  });

  it("escapes names that are not valid XML text", () => {
    const report = sampleRunReport({
      files: [
        {
          name: '<notes> & "todo".md',
          path: "/w/x.md",
          status: "OK",
          rawChars: 90_000,
          injectedChars: 90_000,
        },
      ],
    });
    const document = renderContextMapSvg(contextMapData(report), { title: "A & B" });
    expect(document).toContain("&lt;notes&gt; &amp; &quot;todo&quot;.md");
    expect(document).toContain(">A &amp; B<");
    expect(() => renderContextMapPng(document)).not.toThrow();
  });

  it("says so instead of drawing tiles when nothing was tracked", () => {
    const document = renderContextMapSvg(
      { ...data, groups: [], totalChars: 0, totalTokens: 0 },
      { title: "x" },
    );
    expect(document).toContain("Nothing tracked in this run.");
    expect(document).not.toContain('class="leaf"');
  });

  it("refuses a canvas too small to read", () => {
    expect(() => renderContextMapSvg(data, { title: "x", width: 320 })).toThrow(InvalidOptionError);
    expect(() => renderContextMapSvg(data, { title: "x", height: Number.NaN })).toThrow(/Invalid height/);
  });
});

describe("renderContextMapPng", () => {
  const image = PNG.sync.read(renderContextMapPng(svg));

  function pixel(x: number, y: number): [number, number, number] {
    const offset = (y * image.width + x) * 4;
    return [image.data[offset] ?? -1, image.data[offset + 1] ?? -1, image.data[offset + 2] ?? -1];
  }

  it("renders the canvas at its own size", () => {
    expect([image.width, image.height]).toEqual([1280, 860]);
  });

  it("fills every leaf tile with its shade of the group colour", () => {
    let sampled = 0;
    for (const entry of allLeaves) {
      const { rect } = entry;
      if (rect.width < 8 || rect.height < 8) continue;
      // Bottom right: inside the stroke and clear of the label, which starts top left.
      const x = Math.floor(rect.x + rect.width - 3);
      const y = Math.floor(rect.y + rect.height - 3);
      expect(pixel(x, y), entry.leaf.name).toEqual([...leafFillColor(entry.group.group.color, entry.index)]);
      sampled++;
    }
    expect(sampled).toBeGreaterThan(40);
  });

  it("paints each large tile's colour over an area proportional to its size", () => {
    const large = allLeaves.filter((entry) => entry.rect.width * entry.rect.height > 20_000);
    expect(large.length).toBeGreaterThanOrEqual(4);
    for (const entry of large) {
      const color = leafFillColor(entry.group.group.color, entry.index);
      let painted = 0;
      for (let y = Math.floor(entry.rect.y); y < Math.ceil(entry.rect.y + entry.rect.height); y++) {
        for (let x = Math.floor(entry.rect.x); x < Math.ceil(entry.rect.x + entry.rect.width); x++) {
          const [red, green, blue] = pixel(x, y);
          if (red === color[0] && green === color[1] && blue === color[2]) painted++;
        }
      }
      const inner = entry.group.inner;
      const expected = (entry.leaf.chars / entry.group.group.chars) * inner.width * inner.height;
      // The label's glyphs and the 1-px border take a few percent; nothing else covers a tile.
      expect(painted / expected, entry.leaf.name).toBeGreaterThan(0.9);
      expect(painted / expected, entry.leaf.name).toBeLessThanOrEqual(1);
    }
  });
});

/** Width resvg gives `text` in the system's DejaVu Sans; undefined when no such font is installed. */
function renderedWidth(text: string, fontSize: number, weight: "normal" | "bold"): number | undefined {
  const document =
    `<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="100"><text x="0" y="60" ` +
    `font-family="DejaVu Sans" font-size="${fontSize}" font-weight="${weight}">${text}</text></svg>`;
  return new Resvg(document, { font: { loadSystemFonts: true } }).getBBox()?.width;
}

const fontAvailable = (renderedWidth("M", 20, "normal") ?? 0) > 0;

describe.skipIf(!fontAvailable)("label width estimate", () => {
  it("is never narrower than the rendered text, for capitals, digits and wide letters", () => {
    const samples = [
      "MEMORY.md",
      "HEARTBEAT.md",
      "64,310 chars · ~17,944 tok",
      "mmmmwwww",
      "sessions_history",
      "Base instructions",
    ];
    for (const sample of samples) {
      for (const weight of ["normal", "bold"] as const) {
        const rendered = renderedWidth(sample, 13, weight) ?? 0;
        const estimated = textWidth(sample, 13, weight === "bold" ? "bold" : "regular");
        expect(estimated, `${sample} ${weight}`).toBeGreaterThanOrEqual(rendered);
        expect(estimated, `${sample} ${weight}`).toBeLessThan(rendered * 1.3);
      }
    }
  });
});
