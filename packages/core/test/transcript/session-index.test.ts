import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionIndexError } from "../../src/errors.js";
import { SessionIndex } from "../../src/transcript/session-index.js";
import { startFixture } from "./fixtures/spawn-fixture.js";

const homes: string[] = [];

async function makeIndex(now: () => number = Date.now) {
  const home = await mkdtemp(join(tmpdir(), "clew-session-index-"));
  homes.push(home);
  const index = new SessionIndex({ home, agentId: "main", now });
  return { home, index, sessionsDir: join(home, "agents", "main", "sessions") };
}

afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

describe("SessionIndex entries", () => {
  it("creates an entry with defaults, merges patches and keeps unknown fields", async () => {
    let clock = 1000;
    const { index, sessionsDir } = await makeIndex(() => clock);
    const created = await index.upsert("agent:main:main", { sessionId: "s1", chatType: "direct" });
    expect(created).toEqual({
      sessionKey: "agent:main:main",
      sessionId: "s1",
      sessionFile: join(sessionsDir, "s1.jsonl"),
      createdAt: 1000,
      updatedAt: 1000,
      compactionCount: 0,
      chatType: "direct",
    });
    clock = 2000;
    const updated = await index.upsert("agent:main:main", { compactionCount: 1, cost: 0.5 });
    expect(updated).toMatchObject({
      sessionId: "s1",
      createdAt: 1000,
      updatedAt: 2000,
      compactionCount: 1,
      cost: 0.5,
    });
    expect(updated.chatType).toBe("direct");
    expect(await index.get("agent:main:main")).toEqual(updated);
    expect(await index.get("agent:main:other")).toBeUndefined();
  });

  it("replaces the entry with what an update function returns, given the current entry", async () => {
    const { index } = await makeIndex(() => 5);
    await index.upsert("key", { sessionId: "old", model: { provider: "p", id: "m" } });
    const next = await index.upsert("key", (current) => ({ sessionId: "new", previous: current?.sessionId }));
    expect(next).toMatchObject({ sessionKey: "key", sessionId: "new", previous: "old", createdAt: 5 });
    expect(next.model).toBeUndefined();
  });

  it("lists and removes entries", async () => {
    const { index } = await makeIndex();
    await index.upsert("a", { sessionId: "s-a" });
    await index.upsert("b", { sessionId: "s-b" });
    expect((await index.list()).map((entry) => entry.sessionKey)).toEqual(["a", "b"]);
    expect(await index.remove("a")).toBe(true);
    expect(await index.remove("a")).toBe(false);
    expect((await index.list()).map((entry) => entry.sessionKey)).toEqual(["b"]);
  });

  it("refuses an entry without a valid sessionId and writes nothing", async () => {
    const { index } = await makeIndex();
    await expect(index.upsert("key", { cost: 1 })).rejects.toBeInstanceOf(SessionIndexError);
    await expect(index.upsert("key", { sessionId: "../escape" })).rejects.toBeInstanceOf(SessionIndexError);
    expect(await index.list()).toEqual([]);
  });

  it("hands out copies, so changing a returned entry does not change the index", async () => {
    const { index } = await makeIndex();
    await index.upsert("key", { sessionId: "s", settings: { mode: "a" } });
    const copy = await index.get("key");
    if (copy?.settings) copy.settings.mode = "changed";
    expect((await index.get("key"))?.settings).toEqual({ mode: "a" });
  });
});

describe("SessionIndex writes", () => {
  it("replaces the file atomically: concurrent readers always see complete JSON, no temp files remain", async () => {
    const { index } = await makeIndex();
    await index.upsert("seed", { sessionId: "seed" });
    const location = index.location;
    // Held open so its inode cannot be reused: a write in place would show up through this handle.
    const original = await open(location, "r");
    let writing = true;
    let reads = 0;
    const reader = (async () => {
      while (writing) {
        JSON.parse(await readFile(location, "utf8"));
        reads += 1;
      }
    })();
    const report = "r".repeat(40_000);
    for (let number = 0; number < 15; number += 1) {
      await index.upsert(`key-${number}`, { sessionId: `s-${number}`, contextReport: { report } });
    }
    writing = false;
    await reader;
    expect(reads).toBeGreaterThan(0);
    expect((await stat(location)).ino).not.toBe((await original.stat()).ino);
    expect(Object.keys(JSON.parse(await original.readFile("utf8")))).toEqual(["seed"]);
    await original.close();
    expect((await readdir(join(location, ".."))).sort()).toEqual(["sessions.json"]);
  });

  it("loses no update when two processes upsert 50 keys each at the same time", async () => {
    const { home, index } = await makeIndex();
    const writers = ["left", "right"].map((prefix) =>
      startFixture("index-upserts.ts", [home, "main", prefix, "50"]),
    );
    const statuses = await Promise.all(writers.map((writer) => writer.exited));
    expect(statuses, writers.map((writer) => writer.stderr()).join("\n")).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    const keys = (await index.list()).map((entry) => entry.sessionKey);
    expect(keys).toHaveLength(100);
    for (const prefix of ["left", "right"]) {
      for (let number = 0; number < 50; number += 1) expect(keys).toContain(`${prefix}-${number}`);
    }
  });

  it("refuses a corrupt sessions.json with an error naming the file and leaves it untouched", async () => {
    const { index, sessionsDir } = await makeIndex();
    await mkdir(sessionsDir, { recursive: true });
    const corrupt = '{"agent:main:main": {"sessionId": "s1"},\n  "broken": ';
    await writeFile(index.location, corrupt);
    for (const attempt of [
      () => index.get("agent:main:main"),
      () => index.list(),
      () => index.upsert("agent:main:main", { sessionId: "s2" }),
      () => index.remove("agent:main:main"),
    ]) {
      const error = await attempt().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SessionIndexError);
      expect(error).toMatchObject({ location: index.location });
      expect((error as Error).message).toContain(index.location);
    }
    expect(await readFile(index.location, "utf8")).toBe(corrupt);
    expect((await readdir(sessionsDir)).sort()).toEqual(["sessions.json"]);
  });

  it("refuses an index whose entries are not objects", async () => {
    const { index, sessionsDir } = await makeIndex();
    await mkdir(sessionsDir, { recursive: true });
    await writeFile(index.location, '{"key": 42}');
    await expect(index.upsert("other", { sessionId: "s" })).rejects.toThrow(/entry "key" is not an object/);
    expect(await readFile(index.location, "utf8")).toBe('{"key": 42}');
  });
});
