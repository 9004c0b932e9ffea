import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { messageDigest } from "../src/ingest/message-identity.js";
import { LosslessEngine } from "../src/lossless-engine.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { LosslessStore } from "../src/store/store.js";
import { codingConversation } from "./support/conversations.js";

const directories: string[] = [];
afterEach(async () => {
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

/** The real SQLite store, counting how often the whole context view is read. */
function countingViewReads(store: LosslessStore): { store: LosslessStore; viewReads: () => number } {
  let reads = 0;
  const counted = new Proxy(store, {
    get(target, property, receiver) {
      if (property === "readContextView") {
        return (sessionId: string) => {
          reads += 1;
          return target.readContextView(sessionId);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: counted, viewReads: () => reads };
}

describe("afterTurn", () => {
  it("stores only the turn of a session stored before, without reading its whole view", async () => {
    const directory = await mkdtemp(join(tmpdir(), "clew-lossless-after-turn-"));
    directories.push(directory);
    const path = join(directory, "lossless.db");
    const history = codingConversation(6);
    const first = new LosslessEngine(openSqliteStore(path));
    await first.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: history,
      prePromptMessageCount: 0,
    });
    await first.dispose();

    // A new process: nothing cached. The turn's snapshot starts with messages never stored, so
    // storing the whole snapshot would show in the stored list.
    const { store, viewReads } = countingViewReads(openSqliteStore(path));
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
      const stored = await store.readMessageRange("s", { limit: 1_000 });
      expect(stored.map((message) => message.json).map((json) => messageDigest(JSON.parse(json)))).toEqual(
        next.map(messageDigest),
      );
    } finally {
      await engine.dispose();
    }
  });
});
