import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  charEstimateTokenCounter,
  createContextEngineRegistry,
  importTranscript,
  MemoryLogger,
  withTokenCache,
} from "@clew/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateDemoSession } from "../../src/replay/demo-session.js";
import { recordedTurns } from "../../src/replay/recorded-turns.js";
import { replaySession } from "../../src/replay/replay-session.js";

const PI_SESSIONS_DIR =
  process.env.CLEW_PI_SESSIONS_DIR ?? join(import.meta.dirname, "../../../../../shared/data/pi-sessions");

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-replay-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function replay(turns: ReturnType<typeof generateDemoSession>, window: number) {
  return replaySession({
    turns,
    home,
    registry: createContextEngineRegistry(),
    config: {},
    window,
    counter: withTokenCache(charEstimateTokenCounter),
    logger: new MemoryLogger(),
    systemPrompt: "You are a coding agent.",
  });
}

describe("the demo session", () => {
  it("is the same on every run", () => {
    expect(JSON.stringify(generateDemoSession())).toBe(JSON.stringify(generateDemoSession()));
  });

  it("replays through the legacy engine with compactions, staying within the window", async () => {
    const result = await replay(generateDemoSession(), 64_000);
    expect(result.turns).toBe(36);
    expect(result.compactions.length).toBeGreaterThanOrEqual(1);
    for (const point of result.fill) expect(point.contextTokens).toBeLessThan(64_000);
  });
});

describe("replaying recorded pi sessions", () => {
  for (const file of ["before-compaction.jsonl", "large-session.jsonl"]) {
    it(`replays ${file} turn by turn with at least one compaction`, async () => {
      const imported = importTranscript(await readFile(join(PI_SESSIONS_DIR, file), "utf8"), {
        sourceName: file,
      });
      const turns = recordedTurns(imported.entries);
      const result = await replay(turns, 100_000);
      expect(result.turns).toBe(turns.length);
      expect(result.compactions.length).toBeGreaterThanOrEqual(1);
      expect(result.lastRequestMessages.length).toBeGreaterThan(0);
    });
  }
});
