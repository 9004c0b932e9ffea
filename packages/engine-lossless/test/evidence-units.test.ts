import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  chooseExchanges,
  chooseHits,
  partnerSeqOf,
  type UnitChoice,
  withPartners,
} from "../src/assemble/evidence-units.js";
import type { StoredMessageHead } from "../src/store/store.js";

/** Seqs 1–4: user, assistant, user, assistant; 10 tokens each (26 with the header estimate). */
const heads: StoredMessageHead[] = [1, 2, 3, 4].map((seq) => ({
  seq,
  role: seq % 2 === 1 ? "user" : "assistant",
  createdAt: seq,
  tokens: 10,
}));

function choice(roomTokens: number, inContext: (seq: number) => boolean = () => false): UnitChoice {
  return {
    hits: [
      { key: 3, score: 2 },
      { key: 1, score: 1 },
    ],
    bySeq: new Map(heads.map((head) => [head.seq, head])),
    inContext,
    roomTokens,
  };
}

/** Hits first, then the partners of those chosen, as query-aware evidence with soft term hits does. */
const chooseHitsThenPartners = (units: UnitChoice) =>
  withPartners(chooseHits(units), units.bySeq, units.inContext);

const seqsOf = (units: StoredMessageHead[][]) => units.map((unit) => unit.map((head) => head.seq));

describe("evidence units", () => {
  it("whole exchanges: a hit comes with its partner or not at all", () => {
    expect(seqsOf(chooseExchanges(choice(78)))).toEqual([[3, 4]]);
    expect(seqsOf(chooseExchanges(choice(104)))).toEqual([
      [3, 4],
      [1, 2],
    ]);
  });

  it("hits first: every hit that fits, then partners in the room left, in rank order", () => {
    // In the order taken: a block trimmed from the end loses the partners first.
    expect(seqsOf(chooseHitsThenPartners(choice(78)))).toEqual([[3], [1], [4]]);
    expect(seqsOf(chooseHitsThenPartners(choice(104)))).toEqual([[3], [1], [4], [2]]);
    expect(seqsOf(chooseHitsThenPartners(choice(52)))).toEqual([[3], [1]]);
    expect(seqsOf(chooseHitsThenPartners(choice(30)))).toEqual([[3]]);
  });

  it("never repeats what is already in context", () => {
    const inContext = (seq: number) => seq === 4 || seq === 1;
    expect(seqsOf(chooseHitsThenPartners(choice(200, inContext)))).toEqual([[3]]);
    expect(seqsOf(chooseExchanges(choice(200, inContext)))).toEqual([[3], [2]]);
  });

  it("looks for a user message's partner after it, an assistant's before it, and none for a tool result", () => {
    expect(heads.map(partnerSeqOf)).toEqual([2, 1, 4, 3]);
    expect(partnerSeqOf({ seq: 7, role: "toolResult", createdAt: 7, tokens: 10 })).toBeUndefined();
  });

  it("goes on from an earlier choice as if from both lists joined", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ tokens: fc.integer({ min: 0, max: 60 }), user: fc.boolean() }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.array(fc.integer({ min: 1, max: 12 }), { maxLength: 16 }),
        fc.nat(16),
        fc.integer({ min: 0, max: 300 }),
        (messages, hitSeqs, split, roomTokens) => {
          const bySeq = new Map(
            messages.map((message, index): [number, StoredMessageHead] => [
              index + 1,
              {
                seq: index + 1,
                role: message.user ? "user" : "assistant",
                createdAt: index,
                tokens: message.tokens,
              },
            ]),
          );
          const hits = hitSeqs.map((key, rank) => ({ key, score: 100 - rank }));
          const inContext = (seq: number) => seq % 5 === 0;
          const joined = { hits, bySeq, inContext, roomTokens };
          const first = chooseHits({ ...joined, hits: hits.slice(0, split) });
          const continued = chooseHits({ ...joined, hits: hits.slice(split) }, first);
          expect(seqsOf(withPartners(continued, bySeq, inContext))).toEqual(
            seqsOf(chooseHitsThenPartners(joined)),
          );
        },
      ),
    );
  });
});
