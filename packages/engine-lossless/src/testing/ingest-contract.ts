/**
 * Store contract cases for the write path: storing by identity whatever else a copy of a message
 * comes with, and bootstrap's transcript watermarks. Run by `runLosslessStoreContractSuite`.
 */
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import type { NewStoredMessage, TranscriptWatermark } from "../store/store.js";
import { type StoreUnderTest, withStore } from "./store-under-test.js";

export function runIngestContractCases(createStore: () => Promise<StoreUnderTest>): void {
  it(
    "lists a conversation's earlier sessions by its session key, newest first, holding messages only",
    withStore(createStore, async ({ store }) => {
      const key = "agent:main:main";
      // Noted before its first write: nothing to note yet.
      expect(await store.noteSessionKey("first", key)).toBe(false);
      expect(await store.earlierSessions("third", key, 10)).toEqual([]);
      for (const [sessionId, at] of [
        ["first", 1_000],
        ["other", 2_000],
        ["second", 3_000],
      ] as const) {
        await store.appendMessages(sessionId, [
          stored(sessionId, "hello", at, true),
          stored(sessionId, "bye", at + 5, true),
        ]);
      }
      expect(await store.noteSessionKey("first", key)).toBe(true);
      expect(await store.noteSessionKey("first", key)).toBe(true);
      await store.noteSessionKey("other", "agent:main:telegram:42");
      await store.noteSessionKey("second", key);
      // The current session has no row yet (its first turn): every session of the key is earlier.
      const earlier = await store.earlierSessions("third", key, 10);
      expect(earlier.map((session) => session.sessionId)).toEqual(["second", "first"]);
      expect(earlier[1]).toEqual({ sessionId: "first", firstMessageAt: 1_000, lastMessageAt: 1_005 });
      expect((await store.earlierSessions("third", key, 1)).map((session) => session.sessionId)).toEqual([
        "second",
      ]);
      // Once written, only the sessions created before it are earlier; a later one never is.
      await store.appendMessages("third", [stored("third", "hi", 4_000, true)]);
      await store.noteSessionKey("third", key);
      expect((await store.earlierSessions("second", key, 10)).map((session) => session.sessionId)).toEqual([
        "first",
      ]);
      expect((await store.earlierSessions("first", key, 10)).map((session) => session.sessionId)).toEqual([]);
      // A session noted again under another key leaves the first one's conversation.
      await store.noteSessionKey("first", "agent:main:other");
      expect((await store.earlierSessions("third", key, 10)).map((session) => session.sessionId)).toEqual([
        "second",
      ]);
      expect(await store.earlierSessions("third", "agent:main:unknown", 10)).toEqual([]);
    }),
  );

  it(
    "detaches a deleted conversation: none of its sessions is an earlier one again, the messages stay",
    withStore(createStore, async ({ store }) => {
      const key = "agent:main:main";
      for (const [sessionId, at] of [
        ["before-new", 1_000],
        ["deleted", 2_000],
        ["elsewhere", 3_000],
      ] as const) {
        await store.appendMessages(sessionId, [stored(sessionId, "hello", at, true)]);
        await store.noteSessionKey(sessionId, sessionId === "elsewhere" ? "agent:main:other" : key);
      }
      expect(await store.detachConversation("deleted", key)).toBe(2);
      expect(await store.earlierSessions("recreated", key, 10)).toEqual([]);
      expect((await store.earlierSessions("later", "agent:main:other", 10)).map((s) => s.sessionId)).toEqual([
        "elsewhere",
      ]);
      expect((await store.sessionStats("deleted")).messageCount).toBe(1);
      // By session id alone (the key unknown), and nothing left to detach the second time.
      expect(await store.detachConversation("elsewhere", undefined)).toBe(1);
      expect(await store.detachConversation("elsewhere", undefined)).toBe(0);
      // Noted anew, a session is part of a conversation again.
      await store.noteSessionKey("before-new", key);
      expect((await store.earlierSessions("recreated", key, 10)).map((s) => s.sessionId)).toEqual([
        "before-new",
      ]);
    }),
  );

  it(
    "stores a message once whatever creation time a later copy comes with, timestamp or not",
    withStore(createStore, async ({ store }) => {
      const timed = stored("s1", "timed", 5_000, true);
      const untimed = stored("s1", "untimed", undefined, false);
      await store.appendMessages("s1", [timed, { ...untimed, createdAt: 100 }]);
      // An untimed message gets its creation time when ingested: a replay brings another one.
      const again = await store.appendMessages("s1", [
        { ...untimed, createdAt: 200 },
        { ...timed, createdAt: 300 },
        withoutTimestampField(timed),
      ]);
      expect(again.inserted).toEqual([]);
      expect((await store.sessionStats("s1")).messageCount).toBe(2);
    }),
  );

  it(
    "keeps messages with the same timestamp apart, and sessions with the same messages apart",
    withStore(createStore, async ({ store }) => {
      const first = stored("s1", "first", 7_000, true);
      const second = stored("s1", "second", 7_000, true);
      const result = await store.appendMessages("s1", [first, second]);
      expect(result.inserted.map((entry) => entry.seq)).toEqual([1, 2]);
      const other = await store.appendMessages("s2", [stored("s2", "first", 7_000, true)]);
      expect(other.inserted.map((entry) => entry.seq)).toEqual([1]);
      const [row] = await store.readMessages("s1", [2]);
      expect(row?.json).toBe(second.json);
    }),
  );

  it(
    "keeps a session's transcript watermark as written, until the session is deleted",
    withStore(createStore, async ({ store }) => {
      await store.writeTranscriptWatermark("s1", watermark(10));
      expect(await store.readTranscriptWatermark("s1")).toBeUndefined();
      await store.appendMessages("s1", [stored("s1", "a", 1_000, true)]);
      await store.appendMessages("s2", [stored("s2", "a", 1_000, true)]);
      expect(await store.readTranscriptWatermark("s1")).toBeUndefined();
      await store.writeTranscriptWatermark("s1", watermark(10));
      await store.writeTranscriptWatermark("s1", watermark(25));
      await store.writeTranscriptWatermark("s2", { ...watermark(3), leafId: null });
      expect(await store.readTranscriptWatermark("s1")).toEqual(watermark(25));
      expect(await store.readTranscriptWatermark("s2")).toEqual({ ...watermark(3), leafId: null });
      await store.deleteSession("s1");
      expect(await store.readTranscriptWatermark("s1")).toBeUndefined();
      expect(await store.readTranscriptWatermark("s2")).toEqual({ ...watermark(3), leafId: null });
    }),
  );

  it(
    "keeps watermarks and stored-once across a reopen",
    withStore(createStore, async (subject) => {
      if (subject.reopen === undefined) return;
      await subject.store.appendMessages("s1", [
        stored("s1", "a", 1_000, true),
        stored("s1", "b", undefined, false),
      ]);
      await subject.store.writeTranscriptWatermark("s1", watermark(40));
      const reopened = await subject.reopen();
      subject.store = reopened;
      expect(await reopened.readTranscriptWatermark("s1")).toEqual(watermark(40));
      const again = await reopened.appendMessages("s1", [
        stored("s1", "b", undefined, false),
        stored("s1", "a", 1_000, true),
        stored("s1", "c", 2_000, true),
      ]);
      expect(again.inserted).toEqual([{ index: 2, seq: 3, position: 3 }]);
    }),
  );
}

/** A message of `sessionId`; `withTimestamp` puts `timestamp` in its JSON (and passes it). */
function stored(
  sessionId: string,
  text: string,
  timestamp: number | undefined,
  withTimestamp: boolean,
): NewStoredMessage {
  const json = JSON.stringify(
    withTimestamp ? { content: text, role: "user", timestamp } : { content: text, role: "user" },
  );
  return {
    identity: createHash("sha256").update(`${sessionId}\0ingest\0${text}`).digest("hex"),
    role: "user",
    createdAt: timestamp ?? 1,
    tokens: 3,
    json,
    ...(withTimestamp && timestamp !== undefined ? { timestamp } : {}),
  };
}

/** The message as a caller that does not pass `timestamp` gives it (the store reads the JSON). */
function withoutTimestampField(message: NewStoredMessage): NewStoredMessage {
  const { timestamp: _omitted, ...rest } = message;
  return rest;
}

function watermark(offset: number): TranscriptWatermark {
  return {
    file: "/sessions/s1.jsonl",
    fileId: "2049:1234",
    offset,
    headHash: "a".repeat(64),
    tailHash: "b".repeat(64),
    tailStart: Math.max(0, offset - 5),
    leafId: "entry-7",
  };
}
