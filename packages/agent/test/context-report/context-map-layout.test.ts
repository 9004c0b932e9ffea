import { describe, expect, it } from "vitest";
import { contextMapData, layoutContextMap, type Rect } from "../../src/context-report/index.js";
import { sampleRunReport } from "./fixtures.js";

const area: Rect = { x: 24, y: 96, width: 932, height: 708 };

function areaOf(rect: Rect): number {
  return rect.width * rect.height;
}

describe("contextMapData", () => {
  it("makes one group per kind of contributor, largest first, with zero leaves dropped", () => {
    const data = contextMapData(sampleRunReport({ engineAdditionChars: 1_840 }));
    expect(data.groups.map((group) => group.name)).toEqual([
      "History",
      "Tool schemas",
      "Workspace files",
      "System prompt",
      "Summaries",
      "Skills",
    ]);
    const workspace = data.groups.find((group) => group.id === "workspace");
    const fileNames = workspace?.leaves.map((leaf) => leaf.name) ?? [];
    expect(fileNames).toContain("Project context frame");
    expect(fileNames).not.toContain("HEARTBEAT.md");
    expect(fileNames).not.toContain("BOOTSTRAP.md");
    const history = data.groups.find((group) => group.id === "history");
    expect(history?.leaves.map((leaf) => leaf.name)).toEqual(["Tool results", "Assistant", "User"]);
    for (const group of data.groups) {
      expect(group.leaves.every((leaf) => leaf.chars > 0)).toBe(true);
      expect(group.chars).toBe(group.leaves.reduce((total, leaf) => total + leaf.chars, 0));
    }
  });

  it("draws each character of the system prompt once: files and frame, base, tool list, engine addition, skills", () => {
    const report = sampleRunReport({ engineAdditionChars: 1_840 });
    const data = contextMapData(report);
    const promptGroups = data.groups.filter((group) => ["workspace", "system", "skills"].includes(group.id));
    const drawn = promptGroups.reduce((total, group) => total + group.chars, 0);
    const skillEntries = report.skills.entries.reduce((total, entry) => total + entry.blockChars, 0);
    expect(drawn).toBe(report.systemPrompt.chars);
    const system = data.groups.find((group) => group.id === "system");
    expect(system?.leaves.map((leaf) => [leaf.name, leaf.chars])).toEqual([
      ["Tool list", report.tools.listChars],
      [
        "Base instructions",
        report.systemPrompt.nonProjectContextChars - skillEntries - report.tools.listChars - 1_840,
      ],
      ["Engine addition", 1_840],
    ]);
  });

  it("uses the counted history tokens and drops empty groups", () => {
    const report = sampleRunReport({
      history: {
        messages: 2,
        chars: { user: 400, assistant: 800, toolResults: 0, summaries: 0, other: 0 },
        tokens: { user: 90, assistant: 210, toolResults: 0, summaries: 0, other: 0 },
      },
    });
    const data = contextMapData(report);
    expect(data.groups.some((group) => group.id === "summaries")).toBe(false);
    const history = data.groups.find((group) => group.id === "history");
    expect(history?.tokens).toBe(300);
    expect(history?.leaves.map((leaf) => leaf.name)).toEqual(["Assistant", "User"]);
  });
});

describe("layoutContextMap", () => {
  const data = contextMapData(sampleRunReport({ engineAdditionChars: 1_840 }));
  const groups = layoutContextMap(data, area);

  it("gives each group an area proportional to its size, within 1 %", () => {
    for (const laidOut of groups) {
      const expected = (laidOut.group.chars / data.totalChars) * areaOf(area);
      expect(Math.abs(areaOf(laidOut.rect) - expected) / expected).toBeLessThan(0.01);
    }
  });

  it("gives each leaf an area proportional to its share of the group, within 1 %", () => {
    let checked = 0;
    for (const laidOut of groups) {
      for (const { leaf, rect } of laidOut.leaves) {
        const expected = (leaf.chars / laidOut.group.chars) * areaOf(laidOut.inner);
        expect(Math.abs(areaOf(rect) - expected) / expected).toBeLessThan(0.01);
        checked++;
      }
    }
    expect(checked).toBe(data.groups.reduce((total, group) => total + group.leaves.length, 0));
  });

  it("tiles the whole area without overlaps and keeps leaves inside their group", () => {
    const total = groups.reduce((sum, laidOut) => sum + areaOf(laidOut.rect), 0);
    expect(total).toBeCloseTo(areaOf(area), 3);
    for (const laidOut of groups) {
      for (const { rect } of laidOut.leaves) {
        expect(rect.x).toBeGreaterThanOrEqual(laidOut.inner.x - 1e-6);
        expect(rect.y).toBeGreaterThanOrEqual(laidOut.inner.y - 1e-6);
        expect(rect.x + rect.width).toBeLessThanOrEqual(laidOut.inner.x + laidOut.inner.width + 1e-6);
        expect(rect.y + rect.height).toBeLessThanOrEqual(laidOut.inner.y + laidOut.inner.height + 1e-6);
      }
    }
  });

  it("keeps tiles close to square (squarified, not sliced)", () => {
    const largest = groups[0]?.leaves[0]?.rect;
    expect(largest).toBeDefined();
    if (largest === undefined) return;
    const aspect = Math.max(largest.width / largest.height, largest.height / largest.width);
    expect(aspect).toBeLessThan(3);
  });

  it("reserves a name strip only for groups wide and tall enough", () => {
    const history = groups.find((laidOut) => laidOut.group.id === "history");
    const skills = groups.find((laidOut) => laidOut.group.id === "skills");
    expect(history?.hasHeader).toBe(true);
    expect(history?.inner.y).toBe((history?.rect.y ?? 0) + 27);
    expect(skills?.hasHeader).toBe(false);
  });

  it("lays out nothing for an empty map", () => {
    expect(layoutContextMap({ ...data, groups: [], totalChars: 0, totalTokens: 0 }, area)).toEqual([]);
  });
});
