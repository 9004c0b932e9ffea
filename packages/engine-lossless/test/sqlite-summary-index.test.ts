import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { ContextEdit, NewSummary, SummaryAnchor } from "../src/store/store.js";
import { textRecord } from "./support/search-index.js";

const directories: string[] = [];
afterEach(async () => {
  await Promise.all(
    directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
  );
});

function leaf(summaryId: string, seqs: [number, number], anchors: SummaryAnchor[]): NewSummary {
  return {
    summaryId,
    kind: "leaf",
    depth: 0,
    content: `summary of m${seqs[0]}–m${seqs[1]}: the build failed, then passed`,
    tokens: 9,
    sourceRanges: [seqs],
    sourceCount: seqs[1] - seqs[0] + 1,
    sourceTokens: 40,
    childIds: [],
    anchors,
    earliestAt: 1_000,
    latestAt: 1_001,
    summarizer: "test",
    createdAt: 2_000,
  };
}

function editOf(summary: NewSummary): ContextEdit {
  const [first, last] = summary.sourceRanges[0] as [number, number];
  const seqs = Array.from({ length: last - first + 1 }, (_, index) => first + index);
  return {
    replace: seqs.map((seq) => ({ position: seq, ref: { kind: "message", seq } })),
    summaryId: summary.summaryId,
    tokens: summary.tokens,
    json: JSON.stringify({ role: "user", content: summary.content }),
  };
}

/** FTS5's own check of `summaries_fts` against its content (the `summary_text` view). */
function checkSummaryIndex(path: string): void {
  const database = new Database(path);
  try {
    database.prepare("INSERT INTO summaries_fts (summaries_fts, rank) VALUES ('integrity-check', 0)").run();
  } finally {
    database.close();
  }
}

describe("the summary search index", () => {
  it("holds each summary exactly as its content reads it, whatever its anchors, and after deletion", async () => {
    const directory = await mkdtemp(join(tmpdir(), "clew-lossless-summary-index-"));
    directories.push(directory);
    const path = join(directory, "lossless.db");
    const store = openSqliteStore(path, { backgroundIndexDelayMs: false });
    try {
      await store.appendMessages(
        "s",
        [1, 2, 3, 4].map((index) => textRecord("s", index, `message ${index}`)),
      );
      const anchored = leaf(
        "sum_00000000000000a1",
        [1, 2],
        [
          { value: 'src/"quoted" path.ts', messages: [1] },
          { value: "résumé-✓ 🚀 决定", messages: [2] },
          { value: "ERR_BUILD_FAILED", messages: [1, 2] },
        ],
      );
      const bare = leaf("sum_00000000000000a2", [3, 4], []);
      await store.applyCompaction("s", {
        summaries: [anchored, bare],
        edits: [editOf(anchored), editOf(bare)],
      });
      expect(() => checkSummaryIndex(path)).not.toThrow();
      expect(await store.searchSummaries("s", ["ERR_BUILD_FAILED"], "anchors", 5)).toEqual([
        { key: anchored.summaryId, score: expect.any(Number) },
      ]);
      expect(
        (await store.searchSummaries("s", ["passed"], "content", 5)).map((hit) => hit.key).sort(),
      ).toEqual([anchored.summaryId, bare.summaryId]);
      await store.deleteSession("s");
      expect(() => checkSummaryIndex(path)).not.toThrow();
      expect(await store.searchSummaries("s", ["passed"], "content", 5)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
