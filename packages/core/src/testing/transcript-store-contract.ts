/**
 * The behaviour every `TranscriptStore` must show (JSONL today; SQLite and Postgres later). Call it
 * from a Vitest test file with a factory that makes an empty store:
 *
 *   runTranscriptStoreContractSuite("jsonl", { createStore: async () => ({ store, cleanup }) });
 *
 * Errors are checked by their stable `code`, so a store loaded from another copy of the module
 * still passes. Storage-specific promises (bytes on disk, crash recovery, other processes) belong in
 * each implementation's own tests.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentMessage } from "../messages.js";
import type { NewTranscriptEntry, TranscriptEntry } from "../transcript/entries.js";
import type { Transcript, TranscriptStore } from "../transcript/transcript-store.js";

export interface TranscriptStoreContractOptions {
  /** A new, empty store for each case, and a cleanup that removes whatever it created. */
  createStore(): Promise<{ store: TranscriptStore; cleanup(): Promise<void> }>;
}

const AGENT = "main";

function userMessage(text: string): AgentMessage {
  return { role: "user", content: text, timestamp: 1_700_000_000_000 };
}

function messageEntry(text: string, extra: Record<string, unknown> = {}): NewTranscriptEntry {
  return { type: "message", message: userMessage(text), ...extra };
}

/** A stable text form of entries, to compare what was stored with what comes back. */
function snapshot(entries: readonly TranscriptEntry[]): string[] {
  return entries.map((entry) => JSON.stringify(entry));
}

export function runTranscriptStoreContractSuite(name: string, options: TranscriptStoreContractOptions): void {
  describe(`transcript store contract: ${name}`, () => {
    let store: TranscriptStore;
    let cleanup: () => Promise<void>;
    const opened: Transcript[] = [];
    const track = async (pending: Promise<Transcript>): Promise<Transcript> => {
      const transcript = await pending;
      opened.push(transcript);
      return transcript;
    };
    const create = (sessionId: string, agentId = AGENT) =>
      track(store.create({ agentId, sessionId, cwd: "/work" }));
    const reopen = (sessionId: string) => track(store.openReadOnly(AGENT, sessionId));

    beforeEach(async () => {
      ({ store, cleanup } = await options.createStore());
    });

    afterEach(async () => {
      for (const transcript of opened.splice(0)) await transcript.close();
      await cleanup();
    });

    it("creates a transcript with its header and no entries", async () => {
      const transcript = await track(
        store.create({
          agentId: AGENT,
          sessionId: "s1",
          cwd: "/work",
          headerFields: { provider: "p", modelId: "m" },
        }),
      );
      expect(transcript).toMatchObject({ agentId: AGENT, sessionId: "s1", readOnly: false, leafId: null });
      expect(transcript.header).toMatchObject({
        type: "session",
        id: "s1",
        cwd: "/work",
        provider: "p",
        modelId: "m",
      });
      expect(transcript.entries()).toEqual([]);
      expect(transcript.branch()).toEqual([]);
      expect(await store.exists(AGENT, "s1")).toBe(true);
    });

    it("picks a new session id when none is given", async () => {
      const first = await track(store.create({ agentId: AGENT }));
      const second = await track(store.create({ agentId: AGENT }));
      expect(first.sessionId).not.toBe(second.sessionId);
      expect(await store.exists(AGENT, first.sessionId)).toBe(true);
    });

    it("refuses to create a session that already exists and keeps the original", async () => {
      const original = await create("taken");
      await original.append([messageEntry("keep me")]);
      await original.close();
      await expect(store.create({ agentId: AGENT, sessionId: "taken" })).rejects.toThrow();
      expect(snapshot((await reopen("taken")).entries())).toHaveLength(1);
    });

    it("assigns ids and timestamps and chains each entry to the previous one", async () => {
      const transcript = await create("chain");
      const [first, second] = await transcript.append([messageEntry("one"), messageEntry("two")]);
      const [third] = await transcript.append([messageEntry("three")]);
      expect(first?.parentId).toBeNull();
      expect(second?.parentId).toBe(first?.id);
      expect(third?.parentId).toBe(second?.id);
      for (const entry of [first, second, third]) {
        expect(typeof entry?.id).toBe("string");
        expect(Number.isNaN(Date.parse(entry?.timestamp ?? ""))).toBe(false);
      }
      expect(transcript.leafId).toBe(third?.id);
      expect(transcript.getEntry(second?.id ?? "")).toEqual(second);
      expect(transcript.getEntry("no-such-entry")).toBeUndefined();
      expect(transcript.branch().map((entry) => entry.id)).toEqual([first?.id, second?.id, third?.id]);
    });

    it("follows an explicit parentId into a new branch", async () => {
      const transcript = await create("branches");
      const [root, , abandoned] = await transcript.append([
        messageEntry("a"),
        messageEntry("b"),
        messageEntry("c"),
      ]);
      const [fork] = await transcript.append([messageEntry("d", { parentId: root?.id })]);
      expect(transcript.entries()).toHaveLength(4);
      expect(transcript.leafId).toBe(fork?.id);
      expect(transcript.branch().map((entry) => entry.id)).toEqual([root?.id, fork?.id]);
      expect(transcript.getEntry(abandoned?.id ?? "")).toBeDefined();
    });

    it("keeps given ids and timestamps", async () => {
      const transcript = await create("given");
      const [entry] = await transcript.append([
        messageEntry("x", { id: "given-1", timestamp: "2020-01-02T03:04:05.000Z" }),
      ]);
      expect(entry).toMatchObject({ id: "given-1", timestamp: "2020-01-02T03:04:05.000Z", parentId: null });
    });

    it("generates unique ids across many appends", async () => {
      const transcript = await create("unique");
      for (let batch = 0; batch < 10; batch += 1) {
        await transcript.append(Array.from({ length: 30 }, (_, index) => messageEntry(`${batch}-${index}`)));
      }
      expect(new Set(transcript.entries().map((entry) => entry.id)).size).toBe(300);
    });

    it("rejects an id that is already used and stores nothing of that batch", async () => {
      const transcript = await create("duplicate");
      await transcript.append([messageEntry("first", { id: "same" })]);
      await expect(
        transcript.append([messageEntry("ok"), messageEntry("again", { id: "same" })]),
      ).rejects.toThrow();
      expect(transcript.entries()).toHaveLength(1);
      await transcript.close();
      expect((await reopen("duplicate")).entries()).toHaveLength(1);
    });

    it("lands appends issued without waiting in call order", async () => {
      const transcript = await create("ordered");
      await Promise.all(["one", "two", "three"].map((text) => transcript.append([messageEntry(text)])));
      const texts = transcript.entries().map((entry) => (entry.message as { content: string }).content);
      expect(texts).toEqual(["one", "two", "three"]);
    });

    it("round-trips unknown entry types and unknown fields unchanged after reopening", async () => {
      const transcript = await create("unknown");
      const future = { type: "future_kind", payload: { nested: [1, "two", null], flag: true } };
      await transcript.append([
        messageEntry("hello", { clewExtra: { keep: "me" } }),
        future as unknown as NewTranscriptEntry,
        { type: "custom", customType: "test.snapshot", data: { a: 1 } },
      ]);
      await transcript.flush();
      const before = snapshot(transcript.entries());
      await transcript.close();
      const readOnly = await reopen("unknown");
      expect(snapshot(readOnly.entries())).toEqual(before);
      expect(readOnly.loadIssues).toEqual([]);
      const writable = await track(store.open(AGENT, "unknown"));
      expect(snapshot(writable.entries())).toEqual(before);
      expect(writable.branch().map((entry) => entry.type)).toEqual(["message", "future_kind", "custom"]);
    });

    it("rewrites only the named entries and keeps the others identical", async () => {
      const transcript = await create("rewrite");
      const appended = await transcript.append([
        messageEntry("keep one"),
        messageEntry("replace me with something shorter", { note: "kept" }),
        messageEntry("keep two"),
      ]);
      const target = appended[1];
      const result = await transcript.rewriteTranscriptEntries({
        replacements: [{ entryId: target?.id ?? "", message: userMessage("short") }],
      });
      expect(result).toMatchObject({ changed: true, rewrittenEntries: 1 });
      expect(result.bytesFreed).toBeGreaterThan(0);
      const [first, rewritten, third] = transcript.entries();
      expect(rewritten).toMatchObject({ id: target?.id, parentId: target?.parentId, note: "kept" });
      expect(rewritten?.message).toEqual(userMessage("short"));
      const expected = snapshot(transcript.entries());
      await transcript.close();
      const reloaded = (await reopen("rewrite")).entries();
      expect(snapshot(reloaded)).toEqual(expected);
      expect(snapshot([reloaded[0], reloaded[2]].filter((entry) => entry !== undefined))).toEqual(
        snapshot([first, third].filter((entry) => entry !== undefined)),
      );
    });

    it("refuses a rewrite naming an unknown entry and changes nothing", async () => {
      const transcript = await create("rewrite-unknown");
      const [known] = await transcript.append([messageEntry("a"), messageEntry("b")]);
      const before = snapshot(transcript.entries());
      const result = await transcript.rewriteTranscriptEntries({
        replacements: [
          { entryId: known?.id ?? "", message: userMessage("changed") },
          { entryId: "missing-id", message: userMessage("changed") },
        ],
      });
      expect(result.changed).toBe(false);
      expect(result.reason).toContain("missing-id");
      expect(snapshot(transcript.entries())).toEqual(before);
      await transcript.close();
      expect(snapshot((await reopen("rewrite-unknown")).entries())).toEqual(before);
    });

    it("refuses writes on a read-only transcript", async () => {
      const writer = await create("read-only");
      const [entry] = await writer.append([messageEntry("a")]);
      await writer.close();
      const reader = await reopen("read-only");
      expect(reader.readOnly).toBe(true);
      await expect(reader.append([messageEntry("b")])).rejects.toThrow();
      await expect(
        reader.rewriteTranscriptEntries({
          replacements: [{ entryId: entry?.id ?? "", message: userMessage("c") }],
        }),
      ).rejects.toThrow();
      expect((await reopen("read-only")).entries()).toHaveLength(1);
    });

    it("throws UnknownSessionError for a session that does not exist", async () => {
      await expect(store.open(AGENT, "absent")).rejects.toMatchObject({ code: "unknown_session" });
      await expect(store.openReadOnly(AGENT, "absent")).rejects.toMatchObject({ code: "unknown_session" });
      expect(await store.exists(AGENT, "absent")).toBe(false);
    });

    it("throws InvalidSessionIdError for ids that cannot name a session safely", async () => {
      for (const sessionId of ["../x", "", "a/b", ".hidden", "x".repeat(129)]) {
        const invalid = { code: "invalid_session_id" };
        await expect(store.create({ agentId: AGENT, sessionId })).rejects.toMatchObject(invalid);
        await expect(store.open(AGENT, sessionId)).rejects.toMatchObject(invalid);
        await expect(store.openReadOnly(AGENT, sessionId)).rejects.toMatchObject(invalid);
        await expect(store.exists(AGENT, sessionId)).rejects.toMatchObject(invalid);
      }
    });

    it("lists live sessions per agent and archives them out of the live set", async () => {
      for (const sessionId of ["alpha", "beta"]) await (await create(sessionId)).close();
      await (await create("gamma", "other")).close();
      const listed = await store.list(AGENT);
      expect(listed.map((info) => info.sessionId).sort()).toEqual(["alpha", "beta"]);
      expect(listed.every((info) => info.agentId === AGENT && info.location !== "")).toBe(true);
      const archivedAt = await store.archive(AGENT, "alpha", "reset");
      expect(typeof archivedAt).toBe("string");
      expect(await store.exists(AGENT, "alpha")).toBe(false);
      expect((await store.list(AGENT)).map((info) => info.sessionId)).toEqual(["beta"]);
      await expect(store.open(AGENT, "alpha")).rejects.toMatchObject({ code: "unknown_session" });
      expect((await store.list("other")).map((info) => info.sessionId)).toEqual(["gamma"]);
      expect((await create("alpha")).entries()).toEqual([]);
    });

    it("releases the writer lock on close, and a closed transcript refuses writes", async () => {
      const first = await create("closing");
      await first.append([messageEntry("a")]);
      await first.close();
      await first.close();
      await expect(first.append([messageEntry("late")])).rejects.toThrow();
      await expect(first.flush()).rejects.toThrow();
      const second = await track(store.open(AGENT, "closing"));
      await second.append([messageEntry("b")]);
      expect(second.entries()).toHaveLength(2);
    });

    it("refuses a second writer for the same session with SessionLockedError", async () => {
      const writer = await create("locked");
      await writer.append([messageEntry("a")]);
      await expect(store.open(AGENT, "locked")).rejects.toMatchObject({ code: "session_locked" });
      expect((await reopen("locked")).entries()).toHaveLength(1);
      await writer.close();
      await (await track(store.open(AGENT, "locked"))).close();
    });
  });
}
