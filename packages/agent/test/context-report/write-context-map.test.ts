import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidOptionError } from "@clew/core";
import { PNG } from "pngjs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  contextMapCaption,
  contextMapData,
  contextMapSubtitle,
  contextMapUnavailableText,
  writeContextMap,
} from "../../src/context-report/index.js";
import { sampleEstimateReport, sampleRunReport } from "./fixtures.js";

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "clew-context-map-"));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe("writeContextMap", () => {
  it("writes a PNG of the run report into a folder it creates", async () => {
    const outDir = join(directory, "maps", "nested");
    const path = await writeContextMap(sampleRunReport(), { format: "png", outDir, createId: () => "fixed" });
    expect(path).toBe(join(outDir, "clew-context-map-fixed.png"));
    const image = PNG.sync.read(await readFile(path));
    expect([image.width, image.height]).toEqual([1280, 860]);
  });

  it("writes the SVG with --format svg, titled with the run's source, model and session", async () => {
    const path = await writeContextMap(sampleRunReport(), {
      format: "svg",
      outDir: directory,
      createId: () => "a",
    });
    const svg = await readFile(path, "utf8");
    expect(svg.startsWith("<svg ")).toBe(true);
    expect(svg).toContain(">Context map<");
    expect(svg).toContain(
      ">run · anthropic/claude-sonnet-4-5 · engine legacy · session agent:main:main · 2026-05-11 20:30 UTC<",
    );
  });

  it("never overwrites an earlier map", async () => {
    const options = { format: "svg" as const, outDir: directory, createId: () => "same" };
    await writeContextMap(sampleRunReport(), options);
    await expect(writeContextMap(sampleRunReport(), options)).rejects.toThrow(/EEXIST/);
  });

  it("refuses to draw an estimate and writes nothing", async () => {
    await expect(
      writeContextMap(sampleEstimateReport(), { format: "png", outDir: directory }),
    ).rejects.toThrow(InvalidOptionError);
    expect(await readdir(directory)).toEqual([]);
  });

  it("refuses an unknown format", async () => {
    const options = { format: "gif" as "png", outDir: directory };
    await expect(writeContextMap(sampleRunReport(), options)).rejects.toThrow(/Invalid format: "gif"/);
  });
});

describe("context map texts", () => {
  it("answers that no run exists yet instead of drawing an estimate", () => {
    expect(contextMapUnavailableText()).toBe(
      "Context map unavailable: no run of this session has been recorded yet. Send a message, then run /context map again.",
    );
  });

  it("captions the image with the source and totals", () => {
    expect(contextMapCaption(contextMapData(sampleRunReport()))).toBe(
      [
        "Context map",
        "Source: run",
        "Tracked: 188,639 chars (~49,311 tok)",
        "History: 94,490 chars (~25,736 tok)",
        "Provider context: 52,418 tok",
      ].join("\n"),
    );
  });

  it("leaves out of the subtitle what the report does not have", () => {
    const {
      provider: _provider,
      model: _model,
      engine: _engine,
      sessionKey: _key,
      ...rest
    } = sampleRunReport();
    expect(contextMapSubtitle(rest)).toBe("run · 2026-05-11 20:30 UTC");
  });
});
