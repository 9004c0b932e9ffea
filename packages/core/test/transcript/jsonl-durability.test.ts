import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { appendFile, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TranscriptWriteError } from "../../src/errors.js";
import type { CustomEntry, NewTranscriptEntry } from "../../src/transcript/entries.js";
import {
  JsonlTranscriptStore,
  type JsonlTranscriptStoreOptions,
} from "../../src/transcript/jsonl/jsonl-transcript-store.js";
import type { FsyncPolicy } from "../../src/transcript/transcript-store.js";
import { loadPayload } from "./fixtures/load-payload.js";
import { startFixture } from "./fixtures/spawn-fixture.js";

const AGENT = "main";
const homes: string[] = [];

async function makeStore(options: Partial<JsonlTranscriptStoreOptions> = {}) {
  const home = await mkdtemp(join(tmpdir(), "clew-jsonl-durability-"));
  homes.push(home);
  return new JsonlTranscriptStore({ home, ...options });
}

afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

/** A digest of the bytes (comparing multi-megabyte buffers with toEqual is very slow) and the mtime. */
async function fileState(path: string) {
  const digest = createHash("sha256")
    .update(await readFile(path))
    .digest("hex");
  return { digest, modifiedAt: (await stat(path)).mtimeMs };
}

function note(text: string) {
  return { type: "custom" as const, customType: "test.note", data: { text } };
}

describe("JSONL transcripts survive a writer killed mid-append", () => {
  it("keeps every resolved append, reports at most one torn line, and appends cleanly after it", async () => {
    const store = await makeStore();
    const created = await store.create({ agentId: AGENT, sessionId: "killed" });
    await created.close();
    const location = created.location;

    const writer = startFixture("append-loop.ts", [homes.at(-1) ?? "", AGENT, "killed"]);
    const reported = Number(await writer.waitForLine((line) => Number(line) >= 40));
    writer.child.kill("SIGKILL");
    expect((await writer.exited).signal).toBe("SIGKILL");

    const before = await fileState(location);
    const afterKill = await store.openReadOnly(AGENT, "killed");
    expect(await fileState(location)).toEqual(before);
    expect(afterKill.entries().length).toBeGreaterThanOrEqual(reported);
    const damaged = afterKill.entries().filter((entry, index) => {
      const data = (entry as CustomEntry).data as { index: number; payload: string };
      return data.index !== index || data.payload !== loadPayload(index);
    });
    expect(damaged).toEqual([]);
    expect(afterKill.loadIssues.length).toBeLessThanOrEqual(1);
    for (const issue of afterKill.loadIssues) {
      expect(issue).toMatchObject({ kind: "torn", location, line: afterKill.entries().length + 2 });
    }

    // Cut a write short by hand if the kill did not: a power loss can leave half a line.
    const goodEntries = afterKill.entries().length;
    const tornLine = goodEntries + 2;
    if (afterKill.loadIssues.length === 0)
      await appendFile(location, '{"type":"custom","customType":"test.lo');
    const torn = await store.openReadOnly(AGENT, "killed");
    expect(torn.loadIssues).toEqual([expect.objectContaining({ kind: "torn", location, line: tornLine })]);

    // The dead child's lock is taken over; opening does not touch the file.
    const beforeOpen = await fileState(location);
    const reopened = await store.open(AGENT, "killed");
    expect(await fileState(location)).toEqual(beforeOpen);
    const [appended] = await reopened.append([note("after the tear")]);
    await reopened.close();

    const final = await store.openReadOnly(AGENT, "killed");
    expect(final.entries()).toHaveLength(goodEntries + 1);
    expect(final.entries().at(-1)).toEqual(appended);
    expect(appended?.parentId).toBe(afterKill.leafId);
    expect(final.loadIssues).toEqual([
      expect.objectContaining({ kind: "corrupt", location, line: tornLine }),
    ]);
  });
});

describe("JSONL bad lines", () => {
  it("reports a corrupt middle line and a torn last line with file and line, keeps all good lines, changes nothing", async () => {
    const store = await makeStore();
    const transcript = await store.create({ agentId: AGENT, sessionId: "damaged" });
    const [first, second] = await transcript.append([note("one"), note("two")]);
    await transcript.close();
    await appendFile(transcript.location, '{"type":"custom", broken\n[1,2]\n');
    const reopen = await store.open(AGENT, "damaged");
    const [third] = await reopen.append([note("three")]);
    await reopen.close();
    await appendFile(transcript.location, '{"type":"custom","id":"torn');
    const before = await fileState(transcript.location);

    const loaded = await store.openReadOnly(AGENT, "damaged");
    expect(loaded.entries()).toEqual([first, second, third]);
    expect(loaded.loadIssues).toEqual([
      expect.objectContaining({ kind: "corrupt", location: transcript.location, line: 4 }),
      expect.objectContaining({ kind: "invalid-entry", location: transcript.location, line: 5 }),
      expect.objectContaining({ kind: "torn", location: transcript.location, line: 7 }),
    ]);
    expect(await fileState(transcript.location)).toEqual(before);
  });
});

describe("JSONL large entries", () => {
  it("appends and reloads a 10 MB tool result byte for byte", async () => {
    const store = await makeStore();
    const transcript = await store.create({ agentId: AGENT, sessionId: "large" });
    const pattern = 'line "quoted" \\ tab\t ünïcødé 🚀 <tag>\n';
    const text = pattern.repeat(Math.ceil((10 * 1024 * 1024) / pattern.length));
    const [stored] = await transcript.append([
      {
        type: "message",
        message: {
          role: "toolResult",
          toolCallId: "call-1",
          toolName: "read",
          content: [{ type: "text", text }],
          isError: false,
          timestamp: 1,
        },
      },
    ]);
    await transcript.close();
    const lines = (await readFile(transcript.location, "utf8")).split("\n");
    expect(lines[1]).toBe(JSON.stringify(stored));
    const reloaded = await store.openReadOnly(AGENT, "large");
    expect(reloaded.entries()).toEqual([stored]);
    expect(reloaded.loadIssues).toEqual([]);
  });
});

describe("JSONL rewriteTranscriptEntries", () => {
  it("leaves every other byte of the file as it was, bad lines included", async () => {
    const store = await makeStore();
    const transcript = await store.create({ agentId: AGENT, sessionId: "rewrite" });
    const [, middle] = await transcript.append([messageOf("a"), messageOf("b ".repeat(500)), messageOf("c")]);
    await transcript.close();
    await appendFile(transcript.location, "not json\n");
    const writer = await store.open(AGENT, "rewrite");
    await writer.append([messageOf("d")]);
    const before = (await readFile(transcript.location, "utf8")).split("\n");

    const result = await writer.rewriteTranscriptEntries({
      replacements: [{ entryId: middle?.id ?? "", message: userText("short") }],
    });
    expect(result).toMatchObject({ changed: true, rewrittenEntries: 1 });
    const after = (await readFile(transcript.location, "utf8")).split("\n");
    expect(after.length).toBe(before.length);
    after.forEach((line, index) => {
      if (index === 2) expect(JSON.parse(line).message).toEqual(userText("short"));
      else expect(line).toBe(before[index]);
    });
    const [appended] = await writer.append([messageOf("e")]);
    await writer.close();
    const reloaded = await store.openReadOnly(AGENT, "rewrite");
    expect(reloaded.entries().at(-1)).toEqual(appended);
    expect(reloaded.loadIssues).toEqual([expect.objectContaining({ kind: "corrupt", line: 5 })]);
  });

  it("keeps the original file when the rename that would commit the rewrite fails", async () => {
    let failRename = true;
    const store = await makeStore({
      operations: {
        rename: async (from, to) => {
          if (failRename) throw new Error("simulated crash between temp write and rename");
          const { rename } = await import("node:fs/promises");
          await rename(from, to);
        },
      },
    });
    const transcript = await store.create({ agentId: AGENT, sessionId: "crash" });
    const [first, second] = await transcript.append([messageOf("a"), messageOf("b")]);
    await transcript.flush();
    const before = await fileState(transcript.location);
    const replacements = [
      { entryId: first?.id ?? "", message: userText("A") },
      { entryId: second?.id ?? "", message: userText("B") },
    ];

    await expect(transcript.rewriteTranscriptEntries({ replacements })).rejects.toBeInstanceOf(
      TranscriptWriteError,
    );
    expect(await fileState(transcript.location)).toEqual(before);
    expect((await readdir(dirname(transcript.location))).sort()).toEqual(["crash.jsonl", "crash.jsonl.lock"]);
    expect(transcript.entries().map((entry) => entry.message)).toEqual([userText("a"), userText("b")]);

    failRename = false;
    expect(await transcript.rewriteTranscriptEntries({ replacements })).toMatchObject({
      rewrittenEntries: 2,
    });
    await transcript.append([messageOf("c")]);
    await transcript.close();
    const reloaded = await store.openReadOnly(AGENT, "crash");
    expect(reloaded.entries().map((entry) => entry.message)).toEqual([
      userText("A"),
      userText("B"),
      userText("c"),
    ]);
  });
});

describe("JSONL fsync policy", () => {
  async function countSyncs(policy: FsyncPolicy) {
    const counter = { syncs: 0 };
    const store = await makeStore({
      fsync: policy,
      operations: {
        fsync: async (handle: FileHandle) => {
          counter.syncs += 1;
          await handle.datasync();
        },
      },
    });
    const transcript = await store.create({ agentId: AGENT, sessionId: `sync-${policy}` });
    counter.syncs = 0;
    return { transcript, counter };
  }

  it('syncs every append with "always"', async () => {
    const { transcript, counter } = await countSyncs("always");
    for (const text of ["a", "b", "c"]) await transcript.append([note(text)]);
    expect(counter.syncs).toBe(3);
    await transcript.flush();
    await transcript.close();
    expect(counter.syncs).toBe(3);
  });

  it('syncs only on flush with "turn", and only when something was appended', async () => {
    const { transcript, counter } = await countSyncs("turn");
    for (const text of ["a", "b", "c", "d", "e"]) await transcript.append([note(text)]);
    expect(counter.syncs).toBe(0);
    await transcript.flush();
    expect(counter.syncs).toBe(1);
    await transcript.flush();
    await transcript.close();
    expect(counter.syncs).toBe(1);
  });

  it('never syncs with "never"', async () => {
    const { transcript, counter } = await countSyncs("never");
    await transcript.append([note("a")]);
    await transcript.flush();
    await transcript.close();
    expect(counter.syncs).toBe(0);
  });
});

describe("JSONL open transcripts stay in memory", () => {
  it("reads the file once at open, not on appends, entries() or branch()", async () => {
    const counter = { opens: 0 };
    const store = await makeStore({
      operations: {
        openForReading: async (path: string) => {
          counter.opens += 1;
          const { open } = await import("node:fs/promises");
          return open(path, "r");
        },
      },
    });
    await (await store.create({ agentId: AGENT, sessionId: "memory" })).close();
    const transcript = await store.open(AGENT, "memory");
    expect(counter.opens).toBe(1);
    const started = performance.now();
    for (let index = 0; index < 1000; index += 1) await transcript.append([note(String(index))]);
    const elapsedMs = performance.now() - started;
    expect(transcript.entries()).toHaveLength(1000);
    expect(transcript.entries()).toBe(transcript.entries());
    const branch = transcript.branch();
    expect(branch).toHaveLength(1000);
    expect(transcript.branch()).toBe(branch);
    await transcript.append([note("one more")]);
    expect(transcript.branch()).toHaveLength(1001);
    expect(counter.opens).toBe(1);
    expect(elapsedMs).toBeLessThan(5000);
    await transcript.close();
  });
});

function userText(text: string) {
  return { role: "user" as const, content: text, timestamp: 1 };
}

function messageOf(text: string): NewTranscriptEntry {
  return { type: "message", message: userText(text) };
}
