import { readFileSync } from "node:fs";
import { beforeAll, describe, expect, it } from "vitest";
import type { AssistantMessage, ToolResultMessage, UserMessage } from "../../../src/messages.js";
import type { CompactionEntry, TranscriptEntry } from "../../../src/transcript/entries.js";
import { MISSING_COMPACT_SUMMARY } from "../../../src/transcript/import/claude-code.js";
import { activeBranch } from "../../../src/transcript/import/export-transcript.js";
import {
  type ImportedTranscript,
  importTranscript,
} from "../../../src/transcript/import/import-transcript.js";

const FIXTURES = new URL("./fixtures/", import.meta.url);
const uuid = (suffix: string) => `4f0c2e7a-1d3b-4c5e-9a8f-${suffix.padStart(12, "0")}`;

function importFixture(name: string): ImportedTranscript {
  return importTranscript(readFileSync(new URL(name, FIXTURES), "utf8"), { sourceName: name, now: () => 0 });
}

function entry(imported: ImportedTranscript, id: string): TranscriptEntry {
  const found = imported.entries.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no entry ${id}`);
  return found;
}

describe("importing a Claude Code session", () => {
  let imported: ImportedTranscript;
  beforeAll(() => {
    imported = importFixture("claude-code-session.jsonl");
  });

  it("counts what it kept and what it skipped, by reason", () => {
    expect(imported.format).toBe("claude-code");
    expect(imported.stats).toEqual({
      lines: 36,
      messages: 23,
      toolCalls: 7,
      toolResults: 7,
      skipped: {
        "file-history-snapshot": 1,
        progress: 1,
        "system:stop_hook_summary": 1,
        sidechain: 2,
        "duplicate-uuid": 1,
        "queue-operation": 1,
      },
      issues: [],
    });
  });

  it("merges the lines of one streamed response into one assistant message", () => {
    const message = entry(imported, uuid("3")).message as AssistantMessage;
    expect(message.content.map((block) => block.type)).toEqual(["thinking", "text", "toolCall"]);
    expect(message.content[0]).toEqual({
      type: "thinking",
      thinking: expect.stringContaining("percentage discounts"),
      thinkingSignature: "EpcCCkYIBxgCKkBq3vJ0sWb1",
    });
    expect(message).toMatchObject({
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5-20250929",
      responseId: "msg_01XaQm3Lr7",
      stopReason: "toolUse",
      timestamp: Date.parse("2025-10-14T09:12:06.201Z"),
    });
    expect(message.usage).toEqual({
      input: 9,
      output: 112,
      cacheRead: 11832,
      cacheWrite: 4210,
      totalTokens: 16163,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
    expect(
      imported.entries.some((candidate) => candidate.id === uuid("4") || candidate.id === uuid("5")),
    ).toBe(false);
  });

  it("merges a response whose tool calls are interleaved with their results, keeping results after it", () => {
    const message = entry(imported, uuid("8")).message as AssistantMessage;
    expect(message.content.map((block) => (block.type === "toolCall" ? block.name : block.type))).toEqual([
      "text",
      "Grep",
      "Glob",
    ]);
    expect(entry(imported, uuid("10")).parentId).toBe(uuid("8"));
    expect(entry(imported, uuid("12")).parentId).toBe(uuid("10"));
  });

  it("turns tool_result blocks into toolResult messages named after their tool_use", () => {
    const grep = entry(imported, uuid("10")).message as ToolResultMessage;
    expect(grep).toEqual({
      role: "toolResult",
      toolCallId: "toolu_02GrepKind",
      toolName: "Grep",
      content: [{ type: "text", text: 'src/discounts.ts:4:  | { kind: "percent"; rate: number }' }],
      isError: false,
      timestamp: Date.parse("2025-10-14T09:12:10.733Z"),
    });
    expect(entry(imported, uuid("14")).message).toMatchObject({ toolName: "Edit", isError: true });
    expect((entry(imported, uuid("19")).message as ToolResultMessage).content).toEqual([
      { type: "image", mimeType: "image/png", data: expect.stringMatching(/^iVBOR/) },
    ]);
  });

  it("splits a line holding a tool result and user text into two chained entries", () => {
    const result = entry(imported, uuid("21"));
    const interruption = entry(imported, `${uuid("21")}-1`);
    expect(result.message).toMatchObject({ role: "toolResult", toolName: "Bash", isError: true });
    expect(interruption.parentId).toBe(uuid("21"));
    expect((interruption.message as UserMessage).content).toEqual([
      { type: "text", text: "[Request interrupted by user for tool use]" },
    ]);
    expect(entry(imported, uuid("22")).parentId).toBe(`${uuid("21")}-1`);
  });

  it("re-chains children of skipped progress and system lines onto the entry before them", () => {
    expect(entry(imported, uuid("7")).parentId).toBe(uuid("3"));
    expect(entry(imported, uuid("16")).parentId).toBe(uuid("14"));
  });

  it("keeps user text, images and meta lines as user messages", () => {
    expect(entry(imported, uuid("1"))).toMatchObject({ isMeta: true, parentId: null });
    expect((entry(imported, uuid("22")).message as UserMessage).content).toEqual([
      { type: "text", text: "Don't run the whole suite. Here is what checkout shows now:" },
      { type: "image", mimeType: "image/png", data: expect.stringMatching(/^iVBOR/) },
    ]);
  });

  it("maps stop reasons, including max_tokens and synthetic API errors", () => {
    expect((entry(imported, uuid("23")).message as AssistantMessage).stopReason).toBe("stop");
    expect((entry(imported, uuid("27")).message as AssistantMessage).stopReason).toBe("length");
    expect(entry(imported, uuid("28")).message).toMatchObject({
      stopReason: "error",
      model: "<synthetic>",
      errorMessage: expect.stringContaining("overloaded_error"),
    });
  });

  it("turns a compact boundary into a compaction summarized by the continuation message", () => {
    const compaction = entry(imported, uuid("24")) as CompactionEntry;
    expect(compaction.type).toBe("compaction");
    expect(compaction.parentId).toBe(uuid("23"));
    expect(compaction.summary).toMatch(/^This session is being continued/);
    expect(compaction.tokensBefore).toBe(167342);
    expect(compaction.firstKeptEntryId).toBe(uuid("26"));
    expect(imported.entries.some((candidate) => candidate.id === uuid("25"))).toBe(false);
    expect(entry(imported, uuid("26")).parentId).toBe(uuid("24"));
  });

  it("keeps the edited prompt as a branch; the newest entry ends the active branch", () => {
    expect(entry(imported, uuid("30")).parentId).toBe(uuid("24"));
    const branchIds = activeBranch(imported.entries).map((candidate) => candidate.id);
    expect(branchIds.at(-1)).toBe(uuid("31"));
    expect(branchIds).toContain(uuid("24"));
    expect(branchIds).not.toContain(uuid("26"));
  });

  it("builds the header from the session's first line and keeps titles", () => {
    expect(imported.header).toEqual({
      type: "session",
      version: 3,
      id: "7f3e9c2a-5b1d-4e8f-a6c4-2d9b0e1f3a57",
      timestamp: "2025-10-14T09:12:03.100Z",
      cwd: "/home/dev/shop",
      importedFrom: {
        format: "claude-code",
        sourceName: "claude-code-session.jsonl",
        sessionId: "7f3e9c2a-5b1d-4e8f-a6c4-2d9b0e1f3a57",
        summaries: [{ summary: "Fix cart total ignoring percentage discounts", leafUuid: uuid("31") }],
      },
    });
  });
});

describe("importing a Claude Code session with damaged and unusual lines", () => {
  let imported: ImportedTranscript;
  beforeAll(() => {
    imported = importFixture("claude-code-edge.jsonl");
  });

  it("reports each problem with its line and never drops content silently", () => {
    expect(imported.stats.skipped).toEqual({ "invalid-json": 1, "block:server_tool_use": 1 });
    expect(imported.stats.issues.map((issue) => [issue.location, issue.reason])).toEqual([
      ["claude-code-edge.jsonl:1", expect.stringContaining("is not in the file")],
      ["claude-code-edge.jsonl:2", expect.stringContaining('"server_tool_use"')],
      ["claude-code-edge.jsonl:3", expect.stringContaining('tool name "unknown"')],
      ["claude-code-edge.jsonl:7", expect.stringContaining("not valid JSON")],
    ]);
  });

  it('names a tool result whose tool_use is not in the file "unknown"', () => {
    const result = imported.entries.find(
      (candidate) => (candidate.message as { role?: string })?.role === "toolResult",
    );
    expect(result?.message).toMatchObject({ toolCallId: "toolu_01FromEarlierFile", toolName: "unknown" });
  });

  it("writes a note when no summary follows a boundary and keeps from the next entry, or itself at the end", () => {
    const compactions = imported.entries.filter(
      (candidate) => candidate.type === "compaction",
    ) as CompactionEntry[];
    expect(compactions.map((compaction) => compaction.summary)).toEqual([
      MISSING_COMPACT_SUMMARY,
      MISSING_COMPACT_SUMMARY,
    ]);
    expect(compactions[0]?.firstKeptEntryId).toBe("9b1e4d70-0000-4000-8000-000000000005");
    expect(compactions[1]?.firstKeptEntryId).toBe(compactions[1]?.id);
    expect(compactions[1]?.parentId).toBe("9b1e4d70-0000-4000-8000-000000000005");
  });
});
