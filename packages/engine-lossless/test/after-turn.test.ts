import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { messageDigest } from "../src/ingest/message-identity.js";
import { LosslessEngine } from "../src/lossless-engine.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { BULK_WRITE_MESSAGES, type LosslessStore } from "../src/store/store.js";
import { codingConversation } from "./support/conversations.js";

const directories: string[] = [];
afterEach(async () => {
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

/** The real SQLite store, counting how often the whole context view and its version are read. */
function countingViewReads(store: LosslessStore): {
  store: LosslessStore;
  viewReads: () => number;
  versionReads: () => number;
} {
  let reads = 0;
  let versionReads = 0;
  const counted = new Proxy(store, {
    get(target, property, receiver) {
      if (property === "readContextView") {
        return (sessionId: string) => {
          reads += 1;
          return target.readContextView(sessionId);
        };
      }
      if (property === "viewVersion") {
        return (sessionId: string) => {
          versionReads += 1;
          return target.viewVersion(sessionId);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: counted, viewReads: () => reads, versionReads: () => versionReads };
}

async function storePath(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "clew-lossless-after-turn-"));
  directories.push(directory);
  return join(directory, "lossless.db");
}

/** The host's finalize of a turn: the session's whole snapshot, and where the turn began. */
const finishTurn = (
  engine: LosslessEngine,
  sessionId: string,
  messages: AgentMessage[],
  prePromptMessageCount: number,
) => engine.afterTurn({ sessionId, sessionFile: `memory:${sessionId}`, messages, prePromptMessageCount });

const storedDigests = async (store: LosslessStore, sessionId: string) =>
  (await store.readMessageRange(sessionId, { limit: 10_000 })).map((message) =>
    messageDigest(JSON.parse(message.json)),
  );

describe("afterTurn", () => {
  it("stores only the turn of a session stored before, without reading its whole view", async () => {
    const path = await storePath();
    const history = codingConversation(6);
    const first = new LosslessEngine(openSqliteStore(path));
    await finishTurn(first, "s", history, 0);
    await first.dispose();

    // A new process: nothing cached. The turn's snapshot starts with messages never stored, so
    // storing the whole snapshot would show in the stored list.
    const { store, viewReads, versionReads } = countingViewReads(openSqliteStore(path));
    const engine = new LosslessEngine(store);
    try {
      const next = codingConversation(9);
      const unstoredBefore = codingConversation(2).map((message) => ({ ...message, timestamp: 1 }));
      const snapshot = [...unstoredBefore, ...next];
      const prePromptMessageCount = unstoredBefore.length + history.length;
      await engine.afterTurn({
        sessionId: "s",
        sessionFile: "memory:s",
        messages: snapshot,
        prePromptMessageCount,
      });
      expect(viewReads()).toBe(0);
      // Whether the session was stored is answered by the write itself, not by a read before it.
      expect(versionReads()).toBe(0);
      expect(await storedDigests(store, "s")).toEqual(next.map(messageDigest));
    } finally {
      await engine.dispose();
    }
  });

  it("stores the whole snapshot when another process deleted the session since its last turn", async () => {
    const path = await storePath();
    const engine = new LosslessEngine(openSqliteStore(path));
    const other = openSqliteStore(path);
    try {
      const history = codingConversation(6);
      await finishTurn(engine, "s", history, 0);
      await other.deleteSession("s");
      const snapshot = codingConversation(9);
      await finishTurn(engine, "s", snapshot, history.length);
      expect(await storedDigests(other, "s")).toEqual(snapshot.map(messageDigest));
    } finally {
      await engine.dispose();
      await other.close();
    }
  });

  it("stores the whole snapshot of a session never stored, even for a turn that added nothing", async () => {
    const path = await storePath();
    const { store, versionReads } = countingViewReads(openSqliteStore(path));
    const engine = new LosslessEngine(store);
    try {
      const turn = codingConversation(4);
      await finishTurn(engine, "a", turn, 2);
      expect(await storedDigests(store, "a")).toEqual(turn.map(messageDigest));
      expect(versionReads()).toBe(0);

      const quiet = codingConversation(3);
      await finishTurn(engine, "b", quiet, quiet.length);
      expect(await storedDigests(store, "b")).toEqual(quiet.map(messageDigest));
    } finally {
      await engine.dispose();
    }
  });

  it("stores the whole snapshot again when the session is deleted between the parts of a long turn", async () => {
    const path = await storePath();
    const other = openSqliteStore(path);
    const real = openSqliteStore(path);
    let appends = 0;
    // Another process deletes the session right after the first part of the turn is written.
    const store = new Proxy(real, {
      get(target, property, receiver) {
        if (property === "appendMessages") {
          return async (...args: Parameters<LosslessStore["appendMessages"]>) => {
            const result = await target.appendMessages(...args);
            appends += 1;
            if (appends === 2) await other.deleteSession(args[0]);
            return result;
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const engine = new LosslessEngine(store);
    try {
      const small = { toolOutputChars: 40 };
      const history = codingConversation(3, small);
      await finishTurn(engine, "s", history, 0);
      const snapshot = codingConversation(450, small);
      expect(snapshot.length - history.length).toBeGreaterThan(BULK_WRITE_MESSAGES);
      await finishTurn(engine, "s", snapshot, history.length);
      expect(appends).toBeGreaterThan(3);
      expect(await storedDigests(other, "s")).toEqual(snapshot.map(messageDigest));
      // The cached view follows the store: assembly returns the whole snapshot, in order, once.
      const assembled = await engine.assemble({
        sessionId: "s",
        messages: snapshot,
        tokenBudget: 10_000_000,
      });
      expect(assembled.messages.map(messageDigest)).toEqual(snapshot.map(messageDigest));
    } finally {
      await engine.dispose();
      await other.close();
    }
  });
});
