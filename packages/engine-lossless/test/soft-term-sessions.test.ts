import { MEMORY_FLUSH_PROMPT_START, SILENT_REPLY_TOKEN } from "@clew/core";
import { describe, expect, it } from "vitest";
import { createSoftTermRecall } from "../src/embeddings/word-vectors/soft-term-recall.js";
import {
  SOFT_TERMS_START,
  silentLogger as silent,
  useSoftTermSessions,
} from "./support/soft-term-sessions.js";

const { tinyTable, storeWith } = useSoftTermSessions();

describe("soft term matching over what a session holds", () => {
  it("indexes no word of a host's memory flush prompt, so it never takes a hit's place", async () => {
    const flush = `${MEMORY_FLUSH_PROMPT_START}: note where the car is parked; else reply ${SILENT_REPLY_TOKEN}.`;
    const { store } = await storeWith([flush, "The car is parked outside."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const hits = await recall.nearestMessages(store, "s", "where is the car parked", { limit: 5 });
    expect(hits.map((hit) => hit.key)).toEqual([2]);
  });

  it("searches a session deleted and written anew by its new messages, not the old ones", async () => {
    const session = await storeWith(["I bought a used Volvo yesterday.", "Cello lessons on Thursday."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const car = (storedUpTo?: number) =>
      recall.nearestMessages(session.store, "s", "car", {
        limit: 5,
        ...(storedUpTo === undefined ? {} : { storedUpTo }),
      });
    expect((await car(2)).map((hit) => hit.key)).toEqual([1]);
    // Another process deletes the session and writes it again: one message, told by the caller.
    await session.rewrite(["The car is parked outside."]);
    expect((await car(1)).map((hit) => hit.key)).toEqual([1]);
    expect(await recall.uncoveredWords?.(session.store, "s", "car cello", ["car", "cello"])).toEqual([
      "cello",
    ]);
    // Three messages this time, and no hint: the new ones are read from seq 1.
    await session.rewrite(["Dinner was tagine again.", "Cello lessons moved.", "I bought a used Volvo."]);
    expect((await car()).map((hit) => hit.key)).toEqual([3]);
    const [head] = (await recall.knownHeads?.(session.store, "s", [1])) ?? [];
    expect(head?.createdAt).toBe(SOFT_TERMS_START + 1_000_000);
  });
});
