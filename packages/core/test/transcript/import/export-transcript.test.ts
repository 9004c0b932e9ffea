import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionHeader, TranscriptEntry } from "../../../src/transcript/entries.js";
import {
  exportTranscript,
  isTranscriptExportFormat,
  type OpenAIChatMessage,
  type TranscriptExportFormat,
} from "../../../src/transcript/import/export-transcript.js";
import { importTranscript } from "../../../src/transcript/import/import-transcript.js";

const FIXTURES = new URL("./fixtures/", import.meta.url);
const PI_SESSIONS_DIR = process.env.CLEW_PI_SESSIONS_DIR ?? "/work/shared/data/pi-sessions";

function fixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), "utf8");
}

function importFixture(name: string) {
  return importTranscript(fixture(name), { sourceName: name, now: () => 0 });
}

describe("exporting to Clew JSONL", () => {
  it.each(["pi-v3-session.jsonl", "clew-session.jsonl"])("writes %s back byte for byte", (name) => {
    const imported = importFixture(name);
    expect(exportTranscript(imported.header, imported.entries, "clew")).toBe(fixture(name));
  });

  it.each(["claude-code-session.jsonl", "openclaw-v2-session.jsonl"])(
    "round-trips the import of %s: import(export(x)) equals x and exports the same bytes",
    (name) => {
      const imported = importFixture(name);
      const exported = exportTranscript(imported.header, imported.entries, "clew");
      const reimported = importTranscript(exported, { sourceName: "exported.jsonl" });
      expect(reimported.header).toEqual(imported.header);
      expect(reimported.entries).toEqual(imported.entries);
      expect(reimported.stats.issues).toEqual([]);
      expect(exportTranscript(reimported.header, reimported.entries, "clew")).toBe(exported);
    },
  );

  it("round-trips a real pi session after its migration to ids", () => {
    const source = readFileSync(path.join(PI_SESSIONS_DIR, "before-compaction.jsonl"), "utf8");
    const imported = importTranscript(source, { sourceName: "before-compaction.jsonl" });
    const exported = exportTranscript(imported.header, imported.entries, "clew");
    const reimported = importTranscript(exported, { sourceName: "exported.jsonl" });
    expect(reimported.format).toBe("pi-v3");
    expect(reimported.header).toEqual(imported.header);
    expect(reimported.entries).toEqual(imported.entries);
    expect(exportTranscript(reimported.header, reimported.entries, "clew")).toBe(exported);
  });

  it("writes pi JSONL with a version-3 header", () => {
    const header: SessionHeader = { type: "session", id: "s", timestamp: "2026-01-01T00:00:00.000Z" };
    const [headerLine] = exportTranscript(header, [], "pi").split("\n");
    expect(JSON.parse(headerLine ?? "")).toEqual({ ...header, version: 3 });
    expect(header.version).toBeUndefined();
  });
});

describe("exporting to OpenAI messages", () => {
  it("follows the active branch and leaves out what the model never sees", () => {
    const imported = importFixture("pi-v3-session.jsonl");
    const messages = JSON.parse(exportTranscript(imported.header, imported.entries, "openai-messages"));
    const expected: OpenAIChatMessage[] = [
      { role: "user", content: "List the notes tagged #todo." },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "toolu_grep1",
            type: "function",
            function: { name: "grep", arguments: '{"pattern":"#todo","path":"."}' },
          },
        ],
      },
      {
        role: "tool",
        tool_call_id: "toolu_grep1",
        content: "groceries.md:3: - [ ] milk #todo\nwork.md:9: - [ ] send report #todo",
      },
      { role: "assistant", content: "Two open todos: milk (groceries.md) and the report (work.md)." },
      { role: "user", content: "A retry failed because the grep tool was unavailable." },
      { role: "user", content: "Remember to mark done items with [x]." },
      { role: "user", content: "Mark the milk one done." },
    ];
    expect(messages).toEqual(expected);
  });

  it("sends user images as data URLs and pairs each tool result with its call", () => {
    const imported = importFixture("claude-code-session.jsonl");
    const messages: OpenAIChatMessage[] = JSON.parse(
      exportTranscript(imported.header, imported.entries, "openai-messages"),
    );
    const withImage = messages.find((message) => Array.isArray(message.content));
    expect(withImage?.content).toEqual([
      { type: "text", text: "Don't run the whole suite. Here is what checkout shows now:" },
      { type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) } },
    ]);
    const callIds = messages.flatMap((message) => message.tool_calls?.map((call) => call.id) ?? []);
    const resultIds = messages
      .filter((message) => message.role === "tool")
      .map((message) => message.tool_call_id);
    expect(resultIds).toEqual(callIds);
    expect(messages.at(-1)?.content).toContain("Added `test/cart.test.ts`");
    expect(messages.some((message) => message.content === "Now add a test for stacked discounts.")).toBe(
      false,
    );
  });
});

describe("exporting to Markdown", () => {
  it("renders the active branch readably: turns, thinking, tool calls, results and compactions", () => {
    const imported = importFixture("pi-v3-session.jsonl");
    const markdown = exportTranscript(imported.header, imported.entries, "markdown");
    expect(markdown).toMatch(/^# Session 0d9c6a1e-48b2-4f37-9e05-3c1b7a2d8f64\n/);
    expect(markdown).toContain("## User · 2026-01-12T08:00:05.000Z\n\nList the notes tagged #todo.");
    expect(markdown).toContain(
      "<details><summary>Thinking</summary>\n\nSearch the notes folder for the tag.",
    );
    expect(markdown).toContain('**Tool call** `grep` (`toolu_grep1`)\n\n```json\n{\n  "pattern": "#todo"');
    expect(markdown).toContain("### Tool result · grep\n\n```\ngroceries.md:3:");
    expect(markdown).toContain("## Compaction · 2026-01-12T08:03:00.000Z\n\nThe user asked for #todo notes");
    expect(markdown).toContain("_Model changed to anthropic/claude-sonnet-4-5_");
    expect(markdown).not.toContain("I could not search");
  });

  it("fences tool output with more backticks than the output holds", () => {
    const header: SessionHeader = { type: "session", id: "s", timestamp: "2026-01-01T00:00:00.000Z" };
    const entries: TranscriptEntry[] = [
      {
        type: "message",
        id: "e1",
        parentId: null,
        timestamp: "2026-01-01T00:00:01.000Z",
        message: {
          role: "toolResult",
          toolCallId: "t1",
          toolName: "read",
          content: [{ type: "text", text: "```ts\nconst a = 1;\n```" }],
          isError: true,
          timestamp: 1,
        },
      },
    ];
    const markdown = exportTranscript(header, entries, "markdown");
    expect(markdown).toContain("### Tool result · read (error)\n\n````\n```ts\nconst a = 1;\n```\n````");
  });
});

describe("export formats", () => {
  it("accepts the four format names and refuses others", () => {
    expect(["clew", "pi", "openai-messages", "markdown"].every(isTranscriptExportFormat)).toBe(true);
    expect(isTranscriptExportFormat("html")).toBe(false);
    const header: SessionHeader = { type: "session", id: "s", timestamp: "t" };
    expect(() => exportTranscript(header, [], "html" as TranscriptExportFormat)).toThrow(RangeError);
  });
});
