import { charEstimateTokenCounter } from "@clew/core";
import { beforeEach, describe, expect, it } from "vitest";
import { recallEvidence } from "../src/assemble/recall-evidence.js";
import type { SqliteLosslessStore } from "../src/store/sqlite/sqlite-store.js";
import type { LosslessStore } from "../src/store/store.js";
import { textRecord } from "./support/search-index.js";
import { useTempStorePath } from "./support/temp-store.js";

const temp = useTempStorePath("clew-lossless-evidence-");
let store: SqliteLosslessStore;

beforeEach(() => {
  store = temp.open();
});

/** `store` with the seqs of every `readMessages` call recorded. */
function recordingReads(target: LosslessStore, reads: number[][]): LosslessStore {
  return new Proxy(target, {
    get(object, property, receiver) {
      if (property === "readMessages") {
        return (sessionId: string, seqs: readonly number[]) => {
          reads.push([...seqs]);
          return object.readMessages(sessionId, seqs);
        };
      }
      const value = Reflect.get(object, property, receiver);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}

describe("evidence reads", () => {
  it("reads whole only the messages it shows, however many match", async () => {
    // 60 long messages mention the kestrel; a 400-token block holds a few of them.
    const records = Array.from({ length: 60 }, (_, index) =>
      textRecord("s1", index + 1, `kestrel sighting ${index + 1}: ${"a long field note ".repeat(40)}`),
    );
    await store.appendMessages(
      "s1",
      records.map((record) => ({ ...record, tokens: 200 })),
    );
    const reads: number[][] = [];
    const evidence = await recallEvidence({
      store: recordingReads(store, reads),
      sessionId: "s1",
      query: "where was the kestrel seen?",
      inContext: (seq) => seq > 55,
      roomTokens: 700,
      counter: charEstimateTokenCounter,
    });
    expect(evidence).toBeDefined();
    expect(evidence?.seqs.length).toBeGreaterThan(0);
    expect(evidence?.seqs.every((seq) => seq <= 55)).toBe(true);
    expect(reads).toEqual([expect.arrayContaining(evidence?.seqs ?? [])]);
    expect(reads.flat().length).toBeLessThanOrEqual(3);
    for (const seq of evidence?.seqs ?? []) {
      expect(String(evidence?.message.content)).toContain(`kestrel sighting ${seq}:`);
    }
  });
});
