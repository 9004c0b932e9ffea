import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteLosslessStore } from "../src/store/sqlite/sqlite-store.js";
import { TermSelection } from "../src/store/sqlite/term-selection.js";
import { textRecord } from "./support/search-index.js";
import { recordingPhraseReads } from "./support/term-counts.js";

// 25,000 messages: a hundredth is 250, so "heron" in 220 is rare for recall_search (unbounded);
// the per-request search ranks 200 at most, so for it "heron" is common beside the rare "kestrel".
let directory: string;
let large: SqliteLosslessStore;
const MESSAGES = 25_000;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "clew-lossless-terms-bounded-"));
  large = openSqliteStore(join(directory, "large.db"), { backgroundIndexDelayMs: false });
  const text = (index: number) =>
    index < 220 ? `heron note ${index}` : index === 24_000 ? "kestrel note" : `plain note ${index}`;
  await large.appendMessages(
    "s1",
    Array.from({ length: MESSAGES }, (_, index) => textRecord("s1", index + 1, text(index))),
  );
  await large.searchMessages("s1", ["plain"], 1); // brings the deferred full-text index up to date
});

afterAll(async () => {
  await large.close();
  await rm(directory, { recursive: true, force: true });
});

/** A term selection over a read-only connection to the store, recording the terms it counts. */
function selectionRecording(counts: string[]): { selection: TermSelection; close(): void } {
  const database = new Database(join(directory, "large.db"), { readonly: true });
  return {
    selection: new TermSelection(recordingPhraseReads(database, [], counts)),
    close: () => database.close(),
  };
}

const termsOf = (entries: readonly { term: string }[]) => entries.map((entry) => entry.term);

describe("term selection for a search that ranks a bounded number of matches", () => {
  it("takes a term past what a bounded search ranks as common for it, and not for an unbounded one", async () => {
    const unbounded = await large.searchMessages("s1", ["heron", "kestrel"], 300);
    expect(unbounded).toHaveLength(221);
    const bounded = await large.searchMessages("s1", ["heron", "kestrel"], 300, { maxRanked: 200 });
    expect(bounded.map((hit) => hit.key)).toEqual([24_001]);
    const { selection, close } = selectionRecording([]);
    try {
      expect(termsOf(selection.selectCounted(["heron", "kestrel"], undefined, 200))).toEqual(["kestrel"]);
      // Counted as capped at 200 just before: counted again at the higher cap, not taken as common.
      expect(selection.select(["heron", "kestrel"])).toEqual(["heron", "kestrel"]);
      expect(termsOf(selection.selectCounted(["heron", "kestrel"], undefined, 200))).toEqual(["kestrel"]);
    } finally {
      close();
    }
  });

  it("counts a term afresh once when bounded and unbounded searches alternate, then keeps its exact count", () => {
    const counts: string[] = [];
    const { selection, close } = selectionRecording(counts);
    try {
      const heronCounts = () => counts.filter((expression) => expression.includes("heron")).length;
      selection.selectCounted(["heron", "kestrel"], undefined, 200);
      selection.select(["heron", "kestrel"]);
      expect(heronCounts()).toBe(2);
      for (let round = 0; round < 3; round++) {
        expect(termsOf(selection.selectCounted(["heron", "kestrel"], undefined, 200))).toEqual(["kestrel"]);
        expect(selection.select(["heron", "kestrel"])).toEqual(["heron", "kestrel"]);
      }
      expect(heronCounts()).toBe(2);
    } finally {
      close();
    }
  });

  it("keeps a common term common, uncounted, while the store grows by less than 5 %, however it was counted", async () => {
    const counts: string[] = [];
    const { selection, close } = selectionRecording(counts);
    try {
      expect(selection.select(["plain", "kestrel"])).toEqual(["kestrel"]);
      const plainCounts = () => counts.filter((expression) => expression.includes("plain")).length;
      expect(plainCounts()).toBe(1);
      // "heron", counted exactly (220): common for the per-request search, rare for recall_search.
      selection.select(["heron", "kestrel"]);
      const heronCounts = () => counts.filter((expression) => expression.includes("heron")).length;
      expect(heronCounts()).toBe(1);
      // 100 more messages: a hundredth of the store is 251 now, no longer the 250 counted to.
      await large.appendMessages(
        "s1",
        Array.from({ length: 100 }, (_, index) =>
          textRecord("s1", MESSAGES + index + 1, `plain note ${index}`),
        ),
      );
      await large.searchMessages("s1", ["plain"], 1);
      expect(selection.select(["plain", "kestrel"])).toEqual(["kestrel"]);
      expect(plainCounts()).toBe(1);
      // An exact count past the per-request cap is common there without counting the new messages.
      expect(termsOf(selection.selectCounted(["heron", "kestrel"], undefined, 200))).toEqual(["kestrel"]);
      expect(heronCounts()).toBe(1);
    } finally {
      close();
    }
  });
});
