/**
 * A parent's history as a forked subagent's grant lets it read: the recall reads of the store,
 * limited to one session and to messages up to `maxSeq`, and nothing else. A summary is readable
 * only when every message it covers is; writes and every other call throw. The recall functions
 * (`src/recall/`) run over it unchanged, so the scope is kept in one place.
 */
import type { LosslessStore, StoredSummary } from "../store/store.js";

type RecallReads = Pick<
  LosslessStore,
  | "readMessages"
  | "readMessageRange"
  | "readSummaries"
  | "findLeafSummaries"
  | "searchMessages"
  | "searchSummaries"
>;

/** `store` as the grant on `sessionId` up to message `maxSeq` sees it. */
export function scopeStoreToGrant(store: LosslessStore, sessionId: string, maxSeq: number): LosslessStore {
  const session = (asked: string): string => {
    if (asked !== sessionId) throw new Error("A subagent grant reads only the parent session it was given");
    return asked;
  };
  const covered = (summary: StoredSummary): boolean =>
    summary.sourceRanges.every(([, last]) => last <= maxSeq);
  const reads: RecallReads = {
    readMessages: (asked, seqs) =>
      store.readMessages(
        session(asked),
        seqs.filter((seq) => seq <= maxSeq),
      ),
    readMessageRange: async (asked, query) =>
      (await store.readMessageRange(session(asked), query)).filter((row) => row.seq <= maxSeq),
    readSummaries: async (asked, summaryIds) =>
      (await store.readSummaries(session(asked), summaryIds)).filter(covered),
    findLeafSummaries: async (asked, seq) =>
      seq > maxSeq ? [] : (await store.findLeafSummaries(session(asked), seq)).filter(covered),
    searchMessages: async (asked, terms, limit, options) => {
      // Newer messages are out of the grant: skipped by the search, so they take no places.
      const skip = (seq: number) => seq > maxSeq || options?.skip?.(seq) === true;
      return store.searchMessages(session(asked), terms, limit, { ...options, skip });
    },
    searchSummaries: async (asked, terms, field, limit) => {
      const hits = await store.searchSummaries(session(asked), terms, field, limit);
      const summaries = await store.readSummaries(
        sessionId,
        hits.map((hit) => hit.key),
      );
      const readable = new Set(summaries.filter(covered).map((summary) => summary.summaryId));
      return hits.filter((hit) => readable.has(hit.key));
    },
  };
  return new Proxy(store, {
    get(target, property) {
      if (Object.hasOwn(reads, property)) return reads[property as keyof RecallReads];
      if (property === "kind") return target.kind;
      return async () => {
        throw new Error(`A subagent grant only reads; ${String(property)} is not available through it`);
      };
    },
  });
}
