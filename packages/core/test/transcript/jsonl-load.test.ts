import { chmod, copyFile, mkdir, mkdtemp, open, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TranscriptReadError, TranscriptWriteError, UnknownSessionError } from "../../src/errors.js";
import { JsonlTranscriptStore } from "../../src/transcript/jsonl/jsonl-transcript-store.js";
import { loadTranscriptFile } from "../../src/transcript/jsonl/parse-lines.js";

const AGENT = "main";
const PI_SESSIONS = "/work/shared/data/pi-sessions";
const homes: string[] = [];

async function makeHome(): Promise<{ home: string; sessionsDir: string; store: JsonlTranscriptStore }> {
  const home = await mkdtemp(join(tmpdir(), "clew-jsonl-load-"));
  homes.push(home);
  const sessionsDir = join(home, "agents", AGENT, "sessions");
  await mkdir(sessionsDir, { recursive: true });
  return { home, sessionsDir, store: new JsonlTranscriptStore({ home }) };
}

afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

const header = '{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/w"}';
const entryLine = (id: string, parentId: string | null) =>
  JSON.stringify({ type: "custom", id, parentId, timestamp: "2025-01-01T00:00:00.000Z", customType: "t" });

describe("JSONL load errors", () => {
  it("walks a parent cycle behind a branch once, never repeating an entry", async () => {
    const { sessionsDir, store } = await makeHome();
    const lines = [
      header,
      entryLine("a", null),
      entryLine("b", "c"),
      entryLine("c", "b"),
      entryLine("d", "c"),
    ];
    await writeFile(join(sessionsDir, "cycle.jsonl"), `${lines.join("\n")}\n`);
    const transcript = await store.openReadOnly(AGENT, "cycle");
    try {
      expect(transcript.branch().map((entry) => entry.id)).toEqual(["b", "c", "d"]);
    } finally {
      await transcript.close();
    }
  });

  it("names the session and file when the session does not exist", async () => {
    const { store, sessionsDir } = await makeHome();
    const error = await store.openReadOnly(AGENT, "missing").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnknownSessionError);
    expect(String((error as Error).message)).toContain(join(sessionsDir, "missing.jsonl"));
  });

  it("refuses a transcript path that is a directory with TranscriptReadError naming it", async () => {
    const { store, sessionsDir } = await makeHome();
    await mkdir(join(sessionsDir, "folder.jsonl"));
    const error = await store.openReadOnly(AGENT, "folder").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TranscriptReadError);
    expect(error).toMatchObject({ location: join(sessionsDir, "folder.jsonl") });
    await expect(store.open(AGENT, "folder")).rejects.toBeInstanceOf(TranscriptReadError);
  });

  it.skipIf(process.getuid?.() === 0)(
    "refuses an unreadable file with TranscriptReadError naming it",
    async () => {
      const { store, sessionsDir } = await makeHome();
      const location = join(sessionsDir, "secret.jsonl");
      await writeFile(location, `${header}\n`);
      await chmod(location, 0o000);
      await expect(store.openReadOnly(AGENT, "secret")).rejects.toMatchObject({ location });
    },
  );

  it("refuses an invalid JSON header with file and line 1", async () => {
    const { store, sessionsDir } = await makeHome();
    const location = join(sessionsDir, "bad-header.jsonl");
    await writeFile(location, `{"type":"session",\n${entryLine("a", null)}\n`);
    const error = await store.openReadOnly(AGENT, "bad-header").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TranscriptReadError);
    expect(error).toMatchObject({ location, line: 1 });
    expect((error as Error).message).toContain(`${location}:1`);
  });

  it("refuses a first line that is not a session header, and an empty file", async () => {
    const { store, sessionsDir } = await makeHome();
    await writeFile(join(sessionsDir, "no-header.jsonl"), `${entryLine("a", null)}\n`);
    await writeFile(join(sessionsDir, "empty.jsonl"), "");
    await expect(store.openReadOnly(AGENT, "no-header")).rejects.toMatchObject({ line: 1 });
    await expect(store.openReadOnly(AGENT, "empty")).rejects.toBeInstanceOf(TranscriptReadError);
  });

  it("releases the writer lock when opening fails, so the same error repeats instead of a lock error", async () => {
    const { store, sessionsDir } = await makeHome();
    await writeFile(join(sessionsDir, "broken.jsonl"), "not json\n");
    await expect(store.open(AGENT, "broken")).rejects.toBeInstanceOf(TranscriptReadError);
    await expect(store.open(AGENT, "broken")).rejects.toBeInstanceOf(TranscriptReadError);
  });
});

describe("JSONL line parsing", () => {
  it("finds the same entries and issues whatever the chunk size, lines spanning chunks included", async () => {
    const { sessionsDir } = await makeHome();
    const location = join(sessionsDir, "chunks.jsonl");
    const lines = [
      header,
      entryLine("a", null),
      "{oops",
      "",
      "  ",
      entryLine("b", "a"),
      '"text"',
      entryLine("a", "b"),
    ];
    await writeFile(location, `${lines.join("\n")}\n${entryLine("c", "b").slice(0, 20)}`);
    const results = [];
    for (const chunkBytes of [1, 7, 64, 1 << 20]) {
      const handle = await open(location, "r");
      const loaded = await loadTranscriptFile(handle, location, { chunkBytes }).finally(() => handle.close());
      results.push({
        ids: loaded.entries.map((entry) => entry.id),
        issues: loaded.issues,
        bytes: loaded.bytes,
      });
    }
    expect(results[0]).toEqual({
      ids: ["a", "b"],
      issues: [
        expect.objectContaining({ kind: "corrupt", location, line: 3 }),
        expect.objectContaining({ kind: "invalid-entry", location, line: 7 }),
        expect.objectContaining({ kind: "invalid-entry", location, line: 8, reason: 'duplicate id "a"' }),
        expect.objectContaining({ kind: "torn", location, line: 9 }),
      ],
      bytes: (await stat(location)).size,
    });
    for (const result of results) expect(result).toEqual(results[0]);
  });
});

describe("pi session files in the older format", () => {
  it.each([
    ["before-compaction", 1003],
    ["large-session", 1019],
  ])("loads %s (%i lines) read-only with every line as an entry", async (name, lineCount) => {
    const { store, sessionsDir } = await makeHome();
    const location = join(sessionsDir, `${name}.jsonl`);
    await copyFile(join(PI_SESSIONS, `${name}.jsonl`), location);
    const original = await readFile(location);
    expect(original.toString("utf8").split("\n").length - 1).toBe(lineCount);

    const transcript = await store.openReadOnly(AGENT, name);
    expect(transcript.loadIssues).toEqual([]);
    expect(transcript.entries()).toHaveLength(lineCount - 1);
    expect(transcript.header).toMatchObject({ type: "session" });
    const entries = transcript.entries();
    expect(entries[0]).toMatchObject({ id: "legacy-2", parentId: null });
    expect(entries[1]).toMatchObject({ id: "legacy-3", parentId: "legacy-2" });
    expect(transcript.leafId).toBe(`legacy-${lineCount}`);
    expect(transcript.branch()).toHaveLength(lineCount - 1);
    expect((await readFile(location)).equals(original)).toBe(true);

    const refusal = await store.open(AGENT, name).catch((caught: unknown) => caught);
    expect(refusal).toBeInstanceOf(TranscriptWriteError);
    expect(refusal).toMatchObject({ reason: "legacy-format" });
    expect((await readFile(location)).equals(original)).toBe(true);
  });
});
