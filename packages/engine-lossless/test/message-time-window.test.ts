import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MessageRangeQuery, StoredMessage } from "../src/store/store.js";
import { textRecord } from "./support/search-index.js";
import { useTempStorePath } from "./support/temp-store.js";

const temp = useTempStorePath("clew-lossless-time-window-");

/** Messages whose creation times mostly rise with seq, with every 37th one from long before. */
const MESSAGES = 3_000;
const createdAtOf = (seq: number) => (seq % 37 === 0 ? 1_000 + seq * 3 : 1_000_000 + seq * 1_000);

/** Every page of `query` (its cursor moved on), as a reader pages through them. */
async function allPages(
  read: (query: MessageRangeQuery) => Promise<StoredMessage[]>,
  query: Omit<MessageRangeQuery, "afterSeq">,
): Promise<number[]> {
  const seqs: number[] = [];
  for (let afterSeq = 0; ; ) {
    const page = await read({ ...query, afterSeq });
    seqs.push(...page.map((message) => message.seq));
    if (page.length < query.limit) return seqs;
    const last = (page.at(-1) as StoredMessage).seq;
    // A page that does not move past its cursor would be read again forever.
    if (last <= afterSeq) throw new Error(`a page after seq ${afterSeq} ended at seq ${last}`);
    afterSeq = last;
  }
}

describe("message range reads with a time window", () => {
  it("page through exactly the messages of the window, narrow or wide, in seq order", async () => {
    const store = temp.open();
    const records = Array.from({ length: MESSAGES }, (_, index) => ({
      ...textRecord("s", index + 1, `message ${index + 1}`),
      createdAt: createdAtOf(index + 1),
    }));
    for (let start = 0; start < records.length; start += 500)
      await store.appendMessages("s", records.slice(start, start + 500));
    await store.appendMessages("t", [{ ...textRecord("t", 1, "another session"), createdAt: 1_500_000 }]);
    const read = (query: MessageRangeQuery) => store.readMessageRange("s", query);
    // Windows of a few messages to all of them (the store reads a narrow one by time).
    const window = fc
      .tuple(fc.integer({ min: 0, max: 4_200_000 }), fc.integer({ min: 0, max: 3_500_000 }))
      .map(([from, width]) => ({ fromTime: from, toTime: from + width }));
    await fc.assert(
      fc.asyncProperty(window, fc.integer({ min: 1, max: 700 }), async (bounds, limit) => {
        const expected = records
          .map((record, index) => ({ seq: index + 1, createdAt: record.createdAt }))
          .filter((message) => message.createdAt >= bounds.fromTime && message.createdAt <= bounds.toTime)
          .map((message) => message.seq);
        expect(await allPages(read, { ...bounds, limit })).toEqual(expected);
      }),
      { numRuns: 40 },
    );
    // One side open, and a window with seq ranges too.
    expect(await allPages(read, { fromTime: 3_990_000, limit: 50 })).toEqual(
      Array.from({ length: 11 }, (_, index) => 2_990 + index).filter((seq) => seq % 37 !== 0),
    );
    expect(
      await allPages(read, {
        toTime: 2_200,
        limit: 7,
        ranges: [
          [1, 100],
          [300, 400],
        ],
      }),
    ).toEqual([37, 74, 333, 370]);
  });
});
