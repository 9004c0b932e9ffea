import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { charEstimateTokenCounter } from "@clew/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prepareMessages } from "../src/ingest/prepare-messages.js";
import { openSqliteStore, type SqliteLosslessStore } from "../src/store/sqlite/sqlite-store.js";
import { codingConversation, userText } from "./support/conversations.js";

let directory: string;
let path: string;
let store: SqliteLosslessStore;

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "clew-lossless-journal-"));
  path = join(directory, "lossless.db");
  store = openSqliteStore(path, { backgroundIndexDelayMs: false });
});

afterEach(async () => {
  await store.close();
  await rm(directory, { recursive: true, force: true });
});

function walBytes(): number {
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

describe("the write-ahead log around ingest", () => {
  it("is started again by settle right after emptying it, so the next turn's write does not start it", async () => {
    // Enough to pass the size at which settle empties the log (a megabyte).
    const messages = codingConversation(400, { toolOutputChars: 6_000 });
    const records = prepareMessages("s", messages, charEstimateTokenCounter, 1).map((entry) => entry.record);
    await store.appendMessages("s", records);
    expect(walBytes()).toBeGreaterThan(1024 * 1024);
    await store.settle();
    // Emptied (truncated) by settle, then started again at once with one small write: a header
    // and a frame or two.
    expect(walBytes()).toBeGreaterThan(0);
    expect(walBytes()).toBeLessThan(64 * 1024);
    const next = prepareMessages(
      "s",
      [userText("the next turn", 1_900_000_000_000)],
      charEstimateTokenCounter,
      2,
    );
    const appended = await store.appendMessages(
      "s",
      next.map((entry) => entry.record),
    );
    expect(appended.inserted).toHaveLength(1);
    expect((await store.sessionStats("s")).messageCount).toBe(records.length + 1);
  });
});
