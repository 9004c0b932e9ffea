import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { isClewError, TranscriptReadError } from "../../../src/errors.js";
import { importTranscript } from "../../../src/transcript/import/import-transcript.js";

const FIXTURES = new URL("./fixtures/", import.meta.url);

function fixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), "utf8");
}

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

describe("importTranscript on pi and OpenClaw files", () => {
  it("passes a version-3 file through unchanged", () => {
    const text = fixture("pi-v3-session.jsonl");
    const imported = importTranscript(text, { sourceName: "pi-v3-session.jsonl" });
    const lines = text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(imported.format).toBe("pi-v3");
    expect(imported.header).toEqual(lines[0]);
    expect(imported.entries).toEqual(lines.slice(1));
    expect(imported.stats).toMatchObject({
      lines: 13,
      messages: 6,
      toolCalls: 1,
      toolResults: 1,
      issues: [],
    });
  });

  it("migrates an OpenClaw version-2 file: ids kept, hookMessage renamed custom, custom entries kept", () => {
    const imported = importTranscript(fixture("openclaw-v2-session.jsonl"), { sourceName: "ops.jsonl" });
    expect(imported.format).toBe("openclaw");
    expect(imported.header).toMatchObject({
      version: 3,
      id: "ops-bot-main",
      importedFrom: { format: "openclaw", version: 2 },
    });
    expect(imported.entries.map((entry) => entry.id)).toEqual([
      "b2000001",
      "b2000002",
      "b2000003",
      "b2000004",
      "b2000005",
    ]);
    expect(imported.entries[1]?.message).toMatchObject({
      role: "custom",
      customType: "openclaw:bootstrap-context:full",
    });
    expect(
      imported.entries.filter((entry) => entry.type === "custom").map((entry) => entry.customType),
    ).toEqual(["model-snapshot", "openclaw.cache-ttl"]);
  });

  it("reports a line that is not JSON with its file and line and keeps the rest", () => {
    const lines = fixture("pi-v3-session.jsonl").trim().split("\n");
    lines.splice(4, 0, '{"type":"message","id":"torn"');
    const imported = importTranscript(lines.join("\n"), { sourceName: "notes.jsonl" });
    expect(imported.entries).toHaveLength(12);
    expect(imported.stats.skipped).toEqual({ "invalid-json": 1 });
    expect(imported.stats.issues).toEqual([
      { line: 5, location: "notes.jsonl:5", reason: expect.stringContaining("not valid JSON") },
    ]);
  });

  it("gives an entry without id or parentId a stable id chained to the entry before, and says so", () => {
    const text = [
      '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z"}',
      '{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}',
      '{"type":"message","message":{"role":"user","content":"b","timestamp":2}}',
      '{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"c","timestamp":3}}',
      '{"type":"message","id":"e4","parentId":"e1","timestamp":"2026-01-01T00:00:04.000Z"}',
    ].join("\n");
    const imported = importTranscript(text, {
      sourceName: "s1.jsonl",
      now: () => Date.parse("2026-05-05T00:00:00.000Z"),
    });
    const second = imported.entries[1];
    expect(imported.entries).toHaveLength(2);
    expect(second).toMatchObject({
      parentId: "e1",
      timestamp: "2026-05-05T00:00:00.000Z",
      message: { content: "b" },
    });
    expect(second?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(imported.stats.skipped).toEqual({ "duplicate-id": 1, "invalid-entry": 1 });
    expect(imported.stats.issues.map((issue) => issue.line)).toEqual([3, 3, 3, 4, 5]);
  });

  it("resolves a legacy firstKeptEntryIndex that names no entry to the compaction itself, with an issue", () => {
    const text = [
      '{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z"}',
      '{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"a","timestamp":1}}',
      '{"type":"compaction","timestamp":"2025-01-01T00:00:02.000Z","summary":"s","firstKeptEntryIndex":40,"tokensBefore":9}',
      '{"type":"compaction","timestamp":"2025-01-01T00:00:03.000Z","summary":"s","firstKeptEntryIndex":1,"tokensBefore":9}',
    ].join("\n");
    const imported = importTranscript(text, { sourceName: "old.jsonl" });
    const [message, broken, good] = imported.entries;
    expect(imported.format).toBe("pi-legacy");
    expect(broken).toMatchObject({ type: "compaction", firstKeptEntryId: broken?.id });
    expect(good).toMatchObject({ type: "compaction", firstKeptEntryId: message?.id });
    expect(imported.stats.issues).toEqual([
      {
        line: 3,
        location: "old.jsonl:3",
        reason: expect.stringContaining("firstKeptEntryIndex 40 names no entry"),
      },
    ]);
  });

  it("uses the given session id for the header", () => {
    const imported = importTranscript(fixture("clew-session.jsonl"), {
      sourceName: "c.jsonl",
      sessionId: "renamed",
    });
    expect(imported.format).toBe("clew");
    expect(imported.header.id).toBe("renamed");
  });
});

describe("importTranscript on unreadable input", () => {
  it("throws a TranscriptReadError naming the file and the first bad line when no line is JSON", () => {
    const error = catchError(() => importTranscript("\nnot json\nstill not\n", { sourceName: "junk.txt" }));
    expect(error).toBeInstanceOf(TranscriptReadError);
    expect(isClewError(error)).toBe(true);
    expect(error).toMatchObject({ location: "junk.txt", line: 2, code: "transcript_unreadable" });
    expect((error as Error).message).toMatch(/^junk\.txt:2: no line is a JSON object/);
  });

  it("throws naming the line whose shape matches no known format", () => {
    const error = catchError(() =>
      importTranscript('{"role":"user","content":"hi"}\n', { sourceName: "chat.jsonl" }),
    );
    expect(error).toMatchObject({ location: "chat.jsonl", line: 1 });
    expect((error as Error).message).toContain("unrecognized transcript format");
  });

  it("throws for an empty input", () => {
    expect(() => importTranscript("  \n", { sourceName: "empty.jsonl" })).toThrow(
      "empty.jsonl:1: the transcript is empty",
    );
  });
});
