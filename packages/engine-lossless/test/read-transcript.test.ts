import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentMessage, importTranscript, type TranscriptEntry } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { readTranscriptMessages } from "../src/ingest/read-transcript.js";
import { readVersion3Branch } from "../src/ingest/transcript-branch.js";
import { assistantText, awkwardMessages, fillerText, userText } from "./support/conversations.js";

const directories: string[] = [];
afterEach(async () => {
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

async function transcriptFile(text: string, name = "session.jsonl"): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "clew-lossless-read-"));
  directories.push(directory);
  const path = join(directory, name);
  await writeFile(path, text);
  return path;
}

const HEADER = { type: "session", version: 3, id: "s-1", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/w" };

function entry(id: string, parentId: string | null, message: AgentMessage): Record<string, unknown> {
  return { type: "message", id, parentId, timestamp: "2025-01-01T00:00:01.000Z", message };
}

function jsonl(lines: ReadonlyArray<unknown>): string {
  return `${lines.map((line) => (typeof line === "string" ? line : JSON.stringify(line))).join("\n")}\n`;
}

/** What bootstrap read before the fast path: the newest entry's branch of the full import. */
function viaImport(text: string): AgentMessage[] {
  const entries = importTranscript(text, { sourceName: "test.jsonl", sessionId: "s" }).entries;
  const byId = new Map(entries.map((item) => [item.id, item]));
  const branch: TranscriptEntry[] = [];
  const seen = new Set<string>();
  let id: string | null = entries.at(-1)?.id ?? null;
  while (id !== null && !seen.has(id)) {
    const item = byId.get(id);
    if (item === undefined) break;
    seen.add(id);
    branch.push(item);
    id = item.parentId;
  }
  return branch
    .reverse()
    .flatMap((item) => (item.type === "message" ? [(item as { message: AgentMessage }).message] : []));
}

/** The messages read, those the full import gives, and those of the fast path alone. */
async function readBoth(
  text: string,
): Promise<{ read: AgentMessage[]; imported: AgentMessage[]; fast: AgentMessage[] | undefined }> {
  const path = await transcriptFile(text);
  const result = await readTranscriptMessages(path, "s");
  if (!result.ok) throw new Error(result.reason);
  return { read: result.messages, imported: viaImport(text), fast: await readVersion3Branch(path) };
}

const first = userText("read src/a.ts", 1_000);
const reply = assistantText("done", 2_000);
const second = userText("now src/b.ts", 3_000);
const third = assistantText("also done", 4_000);

describe("reading a transcript for bootstrap", () => {
  it("reads every message of a linear transcript, before and after a compaction entry", async () => {
    const text = jsonl([
      HEADER,
      entry("e1", null, first),
      entry("e2", "e1", reply),
      { type: "compaction", id: "c1", parentId: "e2", timestamp: "2025-01-01T00:00:02.000Z", summary: "s" },
      { type: "custom", id: "x1", parentId: "c1", timestamp: "2025-01-01T00:00:03.000Z", customType: "note" },
      entry("e3", "x1", second),
    ]);
    const { read, imported } = await readBoth(text);
    expect(read).toEqual([first, reply, second]);
    expect(read).toEqual(imported);
  });

  it("follows the branch of the newest entry", async () => {
    const text = jsonl([
      HEADER,
      entry("e1", null, first),
      entry("e2", "e1", reply),
      entry("abandoned", "e2", userText("the other way", 2_500)),
      entry("e3", "e2", second),
      entry("e4", "e3", third),
    ]);
    const { read, imported } = await readBoth(text);
    expect(read).toEqual([first, reply, second, third]);
    expect(read).toEqual(imported);
  });

  it("skips what the import skips: torn and blank lines, other JSON values, bad entries, repeated ids", async () => {
    const text = [
      `\uFEFF${JSON.stringify(HEADER)}\r`,
      "",
      `${JSON.stringify(entry("e1", null, first))}\r`,
      "   ",
      "[1, 2]",
      JSON.stringify({ id: "untyped", parentId: "e1", timestamp: "2025-01-01T00:00:01.000Z" }),
      JSON.stringify({ ...HEADER, id: "second-header" }),
      JSON.stringify({ type: "message", id: "empty", parentId: "e1", timestamp: "2025-01-01T00:00:01.000Z" }),
      JSON.stringify(entry("e2", "e1", reply)),
      JSON.stringify(entry("e2", "e1", userText("a repeated id", 2_100))),
      JSON.stringify(entry("e3", "e2", second)),
      `{"type":"message","id":"torn","parentId":"e3","message":{"role":"user","con`,
    ].join("\n");
    const { read, imported, fast } = await readBoth(text);
    expect(read).toEqual([first, reply, second]);
    expect(read).toEqual(imported);
    expect(fast).toEqual(read);
  });

  it("reads entries the import repairs (no id, a bad parent, no timestamp) as the import does", async () => {
    const text = jsonl([
      HEADER,
      entry("e1", null, first),
      { type: "message", parentId: "e1", timestamp: "2025-01-01T00:00:01.000Z", message: reply },
      { type: "message", id: "e3", parentId: 42, timestamp: "2025-01-01T00:00:01.000Z", message: second },
      { type: "message", id: "e4", parentId: "e3", message: third },
    ]);
    const { read, imported, fast } = await readBoth(text);
    expect(read).toEqual([first, reply, second, third]);
    expect(read).toEqual(imported);
    expect(fast).toBeUndefined();
  });

  it("reads older formats through the full import (pi without ids, OpenClaw's version 2)", async () => {
    const legacy = jsonl([
      { type: "session", id: "old", timestamp: "2024-01-01T00:00:00.000Z" },
      { type: "message", timestamp: "2024-01-01T00:00:01.000Z", message: first },
      { type: "message", timestamp: "2024-01-01T00:00:02.000Z", message: reply },
    ]);
    const openclaw = jsonl([
      { ...HEADER, version: 2 },
      entry("e1", null, first),
      entry("e2", "e1", {
        role: "hookMessage",
        content: "hook",
        timestamp: 1_500,
      } as unknown as AgentMessage),
    ]);
    const fromLegacy = await readBoth(legacy);
    expect(fromLegacy.read).toEqual([first, reply]);
    expect(fromLegacy.read).toEqual(fromLegacy.imported);
    const fromOpenClaw = await readBoth(openclaw);
    expect(fromOpenClaw.read.map((message) => message.role)).toEqual(["user", "custom"]);
    expect(fromOpenClaw.read).toEqual(fromOpenClaw.imported);
  });

  it("stops a parent cycle at the first entry met twice, never repeating a message", async () => {
    const text = jsonl([HEADER, entry("e1", "e2", first), entry("e2", "e1", reply)]);
    const { read, imported } = await readBoth(text);
    expect(read).toEqual([first, reply]);
    expect(read).toEqual(imported);
    // A cycle behind a branch: counting steps up to the entry count walked it twice.
    const third = userText("third", 3_000);
    const branched = jsonl([
      HEADER,
      entry("e1", null, first),
      entry("e2", "e3", reply),
      entry("e3", "e2", third),
      entry("e4", "e3", assistantText("fourth", 4_000)),
    ]);
    const cycled = await readBoth(branched);
    expect(cycled.read).toEqual([reply, third, assistantText("fourth", 4_000)]);
    expect(cycled.read).toEqual(cycled.imported);
  });

  it("reads lines longer than its read buffer and lines split across reads, multi-byte text included", async () => {
    const huge = userText(`${"🚀 决定 ".repeat(200_000)}end`, 5_000);
    const many = Array.from({ length: 1_500 }, (_, index) =>
      index % 2 === 0
        ? userText(`${fillerText(900, index)} é ✓`, 10_000 + index)
        : assistantText("ok", 10_000 + index),
    );
    const messages = [...awkwardMessages(100), huge, ...many];
    const lines = messages.map((message, index) =>
      entry(`e${index}`, index === 0 ? null : `e${index - 1}`, message),
    );
    // No newline after the last line: the final line is read all the same.
    const text = jsonl([HEADER, ...lines]).trimEnd();
    const { read, imported, fast } = await readBoth(text);
    expect(read).toEqual(messages);
    expect(read).toEqual(imported);
    expect(fast).toEqual(read);
  });

  it("answers version-3 transcripts on the fast path and leaves other formats to the import", async () => {
    const version3 = await transcriptFile(jsonl([HEADER, entry("e1", null, first)]));
    expect(await readVersion3Branch(version3)).toEqual([first]);
    const legacy = await transcriptFile(
      jsonl([
        { type: "session", id: "old" },
        { type: "message", message: first },
      ]),
    );
    expect(await readVersion3Branch(legacy)).toBeUndefined();
  });

  it("says why when there is nothing to read", async () => {
    const notJsonl = await readTranscriptMessages("memory:s", "s");
    expect(notJsonl).toEqual({ ok: false, reason: "not a JSONL transcript: memory:s" });
    const missing = await readTranscriptMessages(join(tmpdir(), "clew-no-such-dir", "gone.jsonl"), "s");
    expect(missing.ok === false && missing.reason).toMatch(/^cannot read .*gone\.jsonl: ENOENT/);
    const empty = await readTranscriptMessages(await transcriptFile(""), "s");
    expect(empty.ok === false && empty.reason).toContain("empty");
    const unknown = await readTranscriptMessages(await transcriptFile(jsonl([{ type: "other" }])), "s");
    expect(unknown.ok === false && unknown.reason).toContain("unrecognized transcript format");
  });
});
