import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { TranscriptEntry } from "../../../src/transcript/entries.js";
import {
  type ImportedTranscript,
  importTranscript,
} from "../../../src/transcript/import/import-transcript.js";

// The two real pi sessions are read where they are shared, never copied into the repository.
const PI_SESSIONS_DIR = process.env.CLEW_PI_SESSIONS_DIR ?? "/work/shared/data/pi-sessions";

interface SourceSession {
  text: string;
  lines: string[];
  imported: ImportedTranscript;
}

function loadSession(name: string): SourceSession {
  const file = path.join(PI_SESSIONS_DIR, name);
  const text = readFileSync(file, "utf8");
  return {
    text,
    lines: text.split("\n").filter((line) => line.trim() !== ""),
    imported: importTranscript(text, { sourceName: file }),
  };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The exact bytes of a source line's `message` value (the last field pi writes on the line). */
function rawMessageJson(line: string): string {
  const start = line.indexOf('"message":{');
  return line.slice(start + '"message":'.length, line.length - 1);
}

function countBy(entries: readonly TranscriptEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of entries) {
    const key =
      entry.type === "message" ? `message:${String((entry.message as { role: string }).role)}` : entry.type;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function toolCallIds(entries: readonly TranscriptEntry[]): string[] {
  return entries.flatMap((entry) =>
    entry.type === "message" && (entry.message as { role: string }).role === "assistant"
      ? (entry.message as { content: { type: string; id?: string }[] }).content
          .filter((block) => block.type === "toolCall")
          .map((block) => String(block.id))
      : [],
  );
}

function toolResultPositions(entries: readonly TranscriptEntry[]): Map<string, number> {
  const positions = new Map<string, number>();
  entries.forEach((entry, index) => {
    const message = entry.message as { role?: string; toolCallId?: string } | undefined;
    if (entry.type === "message" && message?.role === "toolResult")
      positions.set(String(message.toolCallId), index);
  });
  return positions;
}

function expectMessagesByteIdentical(session: SourceSession): void {
  const sourceHashes = session.lines
    .filter((line) => line.startsWith('{"type":"message"'))
    .map((line) => sha256(rawMessageJson(line)));
  const importedHashes = session.imported.entries
    .filter((entry) => entry.type === "message")
    .map((entry) => sha256(JSON.stringify(entry.message)));
  expect(importedHashes).toEqual(sourceHashes);
}

function expectEveryAnsweredToolCallStillAnswered(session: SourceSession, expectedUnanswered: number): void {
  const entries = session.imported.entries;
  const results = toolResultPositions(entries);
  const callIds = toolCallIds(entries);
  const unanswered = callIds.filter((id) => !results.has(id));
  // The sources themselves leave these calls unanswered: the assistant turn was aborted or
  // failed, or (once) the session was compacted right after the call.
  expect(unanswered).toHaveLength(expectedUnanswered);
  const sourceText = session.text;
  for (const id of unanswered) expect(sourceText.includes(`"toolCallId":"${id}"`)).toBe(false);
  entries.forEach((entry, index) => {
    if (entry.type !== "message") return;
    for (const id of toolCallIds([entry])) {
      const resultIndex = results.get(id);
      if (resultIndex !== undefined) expect(resultIndex).toBeGreaterThan(index);
    }
  });
}

function expectLinearChainWithUniqueIds(entries: readonly TranscriptEntry[]): void {
  expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);
  entries.forEach((entry, index) => {
    expect(entry.id).toMatch(/^[0-9a-f]{8}$/);
    expect(entry.parentId).toBe(index === 0 ? null : entries[index - 1]?.id);
  });
}

describe("importing the real pi session before-compaction.jsonl (older format without ids)", () => {
  let session: SourceSession;
  beforeAll(() => {
    session = loadSession("before-compaction.jsonl");
  });

  it("keeps every message, model change, thinking level change and compaction", () => {
    const { imported } = session;
    expect(imported.format).toBe("pi-legacy");
    expect(countBy(imported.entries)).toEqual({
      "message:user": 55,
      "message:assistant": 484,
      "message:toolResult": 448,
      "message:bashExecution": 3,
      model_change: 5,
      thinking_level_change: 5,
      compaction: 2,
    });
    expect(imported.stats).toMatchObject({
      lines: 1003,
      messages: 990,
      toolCalls: 454,
      toolResults: 448,
      skipped: {},
    });
    expect(imported.stats.issues).toEqual([]);
  });

  it("keeps every message byte for byte", () => {
    expectMessagesByteIdentical(session);
  });

  it("points each compaction at the user message that starts the first kept turn", () => {
    const { entries } = session.imported;
    const compactions = entries.filter((entry) => entry.type === "compaction");
    expect(compactions).toHaveLength(2);
    const keptMessages = compactions.map((compaction) => {
      expect(compaction).not.toHaveProperty("firstKeptEntryIndex");
      const kept = entries.find((entry) => entry.id === compaction.firstKeptEntryId);
      expect(kept?.type).toBe("message");
      return kept?.message as { role: string; content: { text: string }[] } | undefined;
    });
    expect(keptMessages.map((message) => message?.role)).toEqual(["user", "user"]);
    // firstKeptEntryIndex counts the header as entry 0: file lines 294 and 552 (1-based).
    const keptTexts = keptMessages.map((message) => message?.content[0]?.text);
    expect(keptTexts).toEqual(["i reviwed what we have, it's good. continue", "can leave it"]);
  });

  it("answers every tool call the source answered, after the call", () => {
    expectEveryAnsweredToolCallStillAnswered(session, 6);
  });

  it("assigns unique 8-hex ids chained one after another, the same on every import", () => {
    expectLinearChainWithUniqueIds(session.imported.entries);
    const again = importTranscript(session.text, { sourceName: "elsewhere.jsonl" });
    expect(again.entries.map((entry) => entry.id)).toEqual(session.imported.entries.map((entry) => entry.id));
  });

  it("upgrades the header to version 3 and keeps its fields", () => {
    expect(session.imported.header).toMatchObject({
      type: "session",
      version: 3,
      id: "ffae836b-9420-4060-ac13-7745215f90ff",
      cwd: "/Users/badlogic/workspaces/pi-mono",
      thinkingLevel: "off",
      importedFrom: { format: "pi-legacy", version: 1 },
    });
  });
});

describe("importing the real pi session large-session.jsonl", () => {
  let session: SourceSession;
  beforeAll(() => {
    session = loadSession("large-session.jsonl");
  });

  it("keeps every message, thinking level change and model change", () => {
    expect(countBy(session.imported.entries)).toEqual({
      "message:user": 88,
      "message:assistant": 453,
      "message:toolResult": 373,
      thinking_level_change: 103,
      model_change: 1,
    });
    expect(session.imported.stats).toMatchObject({
      lines: 1019,
      messages: 914,
      toolCalls: 391,
      toolResults: 373,
    });
    expect(session.imported.stats.issues).toEqual([]);
  });

  it("keeps every message byte for byte", () => {
    expectMessagesByteIdentical(session);
  });

  it("answers every tool call the source answered, after the call", () => {
    expectEveryAnsweredToolCallStillAnswered(session, 18);
  });

  it("assigns unique 8-hex ids chained one after another", () => {
    expectLinearChainWithUniqueIds(session.imported.entries);
  });
});
