import { beforeEach, describe, expect, it } from "vitest";
import type { SqliteLosslessStore } from "../src/store/sqlite/sqlite-store.js";
import { SessionView } from "../src/view/session-view.js";
import { ViewCache, type ViewCacheLimits } from "../src/view/view-cache.js";
import { userText } from "./support/conversations.js";
import { textRecord } from "./support/search-index.js";
import { useTempStorePath } from "./support/temp-store.js";

const temp = useTempStorePath("clew-lossless-view-");
let store: SqliteLosslessStore;

beforeEach(() => {
  store = temp.open();
});

/** The store, counting full view loads. */
function counting(limits?: ViewCacheLimits): { loads: () => number; cache: ViewCache } {
  let loads = 0;
  const original = store.readContextView.bind(store);
  store.readContextView = async (sessionId) => {
    loads += 1;
    return original(sessionId);
  };
  return { loads: () => loads, cache: new ViewCache(store, limits) };
}

async function appendTexts(cache: ViewCache, sessionId: string, texts: string[], firstSeq: number) {
  const records = texts.map((text, index) => textRecord(sessionId, firstSeq + index, text));
  const result = await store.appendMessages(sessionId, records);
  cache.appended(
    sessionId,
    result.viewVersion,
    result.inserted.map(({ index, seq, position }) => ({
      position,
      ref: { kind: "message" as const, seq },
      tokens: records[index]?.tokens ?? 0,
      message: userText(texts[index] ?? "", seq),
      createdAt: seq,
    })),
  );
}

describe("view cache", () => {
  it("keeps the view a session's first write made, so the next read loads nothing", async () => {
    const { loads, cache } = counting();
    await appendTexts(cache, "s1", ["one", "two", "three"], 1);
    const view = await cache.get("s1");
    expect(loads()).toBe(0);
    expect(view.items.map((item) => item.ref)).toEqual([1, 2, 3].map((seq) => ({ kind: "message", seq })));
    expect(view.version).toBe(1);
  });

  it("loads from the store when the first write it saw was not the session's first", async () => {
    await store.appendMessages("s1", [textRecord("s1", 1, "written by another process")]);
    const { loads, cache } = counting();
    await appendTexts(cache, "s1", ["later"], 2);
    const view = await cache.get("s1");
    expect(loads()).toBe(1);
    expect(view).toBeInstanceOf(SessionView);
    expect(view.items).toHaveLength(2);
  });

  it("drops the least recently used views once the cached views hold too many items, never the newest", async () => {
    const { loads, cache } = counting({ maxSessions: 64, maxItems: 5 });
    await appendTexts(cache, "a", ["a1", "a2"], 1);
    await appendTexts(cache, "b", ["b1", "b2"], 1);
    await cache.get("a");
    expect(loads()).toBe(0);
    // "b" grows to 4 items, 6 in all: "a", the view used least recently (an append uses "b"), goes.
    await appendTexts(cache, "b", ["b3", "b4"], 3);
    await cache.get("b");
    expect(loads()).toBe(0);
    await cache.get("a");
    expect(loads()).toBe(1);
    // One view larger than the limit is still kept while it is the newest.
    await appendTexts(cache, "c", ["c1", "c2", "c3", "c4", "c5", "c6"], 1);
    await cache.get("c");
    expect(loads()).toBe(1);
  });
});
