import { type AgentMessage, InvalidOptionError, isHousekeepingMessage } from "@clew/core";
import { describe, expect, it } from "vitest";
import {
  isSilentFlushReply,
  type MemoryFlushGateInput,
  memoryFlushPrompt,
  memoryFlushThreshold,
  shouldRunMemoryFlush,
} from "../src/index.js";

// window 128k − reserve floor 20k − soft threshold 4k: the flush threshold is 104,000 tokens.
const due: MemoryFlushGateInput = {
  contextTokens: 104_000,
  window: 128_000,
  compactionCount: 2,
  lastFlushCompactionCount: 1,
};

describe("shouldRunMemoryFlush", () => {
  it("flushes once the context reaches window − reserveFloor − softThreshold", () => {
    expect(memoryFlushThreshold(due)).toBe(104_000);
    expect(shouldRunMemoryFlush(due)).toBe(true);
    expect(shouldRunMemoryFlush({ ...due, contextTokens: 103_999 })).toBe(false);
  });

  it("uses the given reserve floor and soft threshold", () => {
    const custom = { ...due, reserveFloor: 10_000, softThreshold: 8_000 };
    expect(memoryFlushThreshold(custom)).toBe(110_000);
    expect(shouldRunMemoryFlush({ ...custom, contextTokens: 109_999 })).toBe(false);
    expect(shouldRunMemoryFlush({ ...custom, contextTokens: 110_000 })).toBe(true);
  });

  it("flushes only once per compaction cycle", () => {
    expect(shouldRunMemoryFlush({ ...due, lastFlushCompactionCount: 2 })).toBe(false);
    expect(shouldRunMemoryFlush({ ...due, lastFlushCompactionCount: undefined })).toBe(true);
    expect(shouldRunMemoryFlush({ ...due, compactionCount: 0, lastFlushCompactionCount: undefined })).toBe(
      true,
    );
  });

  it("never flushes on a heartbeat", () => {
    expect(shouldRunMemoryFlush({ ...due, isHeartbeat: true })).toBe(false);
  });

  it("never flushes when the window leaves no positive threshold, or on non-finite counts", () => {
    expect(memoryFlushThreshold({ window: 16_000 })).toBe(0);
    expect(shouldRunMemoryFlush({ ...due, window: 16_000, contextTokens: 15_000 })).toBe(false);
    expect(shouldRunMemoryFlush({ ...due, window: 24_000, contextTokens: 50_000 })).toBe(false);
    expect(shouldRunMemoryFlush({ ...due, contextTokens: Number.NaN })).toBe(false);
  });
});

describe("memoryFlushPrompt", () => {
  // 2025-01-02T23:30:00Z is already January 3rd in Tokyo.
  const now = Date.UTC(2025, 0, 2, 23, 30);

  it("names today's note in the user's time zone and the silent token", () => {
    const flush = memoryFlushPrompt({ now, timeZone: "Asia/Tokyo" });
    expect(flush.notePath).toBe("memory/2025-01-03.md");
    expect(flush.silentToken).toBe("NO_REPLY");
    expect(flush.prompt).toMatch(/^Pre-compaction memory flush, a silent housekeeping turn/);
    expect(flush.prompt).toContain(
      "to memory/2025-01-03.md only: create it if missing, never rewrite or delete",
    );
    expect(flush.prompt).toContain("(not memory/2025-01-03-1.md)");
    expect(flush.prompt).toContain("MEMORY.md, DREAMS.md, SOUL.md, TOOLS.md, AGENTS.md are read-only");
    expect(flush.prompt).toContain("reply with exactly NO_REPLY and nothing else");
    expect(flush.prompt).toContain("Current time: 2025-01-03 08:30 Friday (GMT+9)");
    // It stays in the history: one short paragraph.
    expect(flush.prompt).not.toContain("\n");
    expect(flush.prompt.length).toBeLessThan(700);
    expect(memoryFlushPrompt({ now, timeZone: "UTC" }).notePath).toBe("memory/2025-01-02.md");
  });

  it("is a message engines recognize as housekeeping, and so is its silent reply", () => {
    const flush = memoryFlushPrompt({ now, timeZone: "UTC" });
    expect(isHousekeepingMessage({ role: "user", content: flush.prompt, timestamp: now })).toBe(true);
    const reply = { role: "assistant", content: [{ type: "text", text: flush.silentToken }], timestamp: now };
    expect(isHousekeepingMessage(reply as unknown as AgentMessage)).toBe(true);
  });

  it("rejects an unknown time zone", () => {
    expect(() => memoryFlushPrompt({ now, timeZone: "Mars/Olympus" })).toThrow(InvalidOptionError);
  });

  it("recognizes the silent reply", () => {
    expect(isSilentFlushReply("  NO_REPLY\n")).toBe(true);
    expect(isSilentFlushReply("NO_REPLY, stored two notes")).toBe(false);
  });
});
