/**
 * Hybrid recall search: three BM25 lists (message text, summary text, summary anchors) fused with
 * reciprocal rank fusion, so an item found by several lists, or ranked high in one, comes first
 * without the lists' scores having to be comparable. A summary found by an anchor also votes for
 * the messages that anchor came from, so the source ranks next to (usually above) its summaries.
 *
 * Search by meaning joins in one of two ways (see `SemanticRecall.ranksWords`):
 * - with word vectors, soft term hits rank the words themselves, so they lead the message list
 *   and the full-text hits they lack (phrases, paths, words the vectors do not know) follow;
 * - with a whole-text embedder, the messages nearest in meaning that no word list found follow
 *   the fused list (those it found are marked as matched by meaning too), so a word or code match
 *   never loses its rank to a loose one. Fusing such hits as a fourth equal list was measured on
 *   the bench's conversations (centred GloVe averages) and lost: recall@5 55.8 → 44.9 %.
 * A forked subagent's search of its parent uses words only.
 */
import { followedBy, meaningHitsAfter, type SemanticRecall } from "../embeddings/semantic-recall.js";
import type { LosslessStore, SearchHit, StoredSummary } from "../store/store.js";
import { messageLabel, parseMessageLabel, snippetOf } from "./message-text.js";
import { queryWords } from "./query-words.js";
import { RecallReads } from "./recall-reads.js";

/** RRF's damping constant (the value of the original paper): ranks 1 and 2 differ little. */
const RRF_K = 60;
/** Candidates taken from each list before fusion. */
const LIST_DEPTH = 50;
const MAX_TERMS = 16;
/** Anchor hits whose linked messages join the fusion. */
const ANCHOR_EXPANSION = 10;

export type RecallMatch = "text" | "summary" | "anchor" | "meaning";

export interface RecallHit {
  kind: "message" | "summary";
  /** `m12` or `sum_…`: what recall_read and recall_describe take. */
  id: string;
  score: number;
  matchedBy: RecallMatch[];
  snippet: string;
  /** For summaries matched by an anchor: the anchors matched, with their source message ids. */
  anchors?: Array<{ value: string; messages: string[] }>;
  createdAt: number;
  role?: string;
}

/**
 * Search terms of a query: its words and codes as typed, without surrounding punctuation and
 * English function words (which match nearly every message and only dilute the ranking).
 */
export function queryTerms(query: string): string[] {
  return queryWords(query, MAX_TERMS);
}

/**
 * `maxRankedMessages` bounds the message ranking (`MessageSearchOptions.maxRanked`): for a search
 * of histories besides the session's own, so one call stays cheap however many it covers.
 */
export async function recallSearch(
  store: LosslessStore,
  sessionId: string,
  query: string,
  limit: number,
  meaning?: SemanticRecall,
  maxRankedMessages?: number,
): Promise<RecallHit[]> {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const bounded = maxRankedMessages === undefined ? undefined : { maxRanked: maxRankedMessages };
  const [messageHits, summaryHits, anchorHits, meaningHits] = await Promise.all([
    store.searchMessages(sessionId, terms, LIST_DEPTH, bounded),
    store.searchSummaries(sessionId, terms, "content", LIST_DEPTH),
    store.searchSummaries(sessionId, terms, "anchors", LIST_DEPTH),
    meaning?.nearestMessages(store, sessionId, query, { limit: LIST_DEPTH }) ?? [],
  ]);
  const reads = new RecallReads(store, sessionId);
  // Soft term hits rank the words themselves too: they lead the message list (on the bench's
  // conversations with GloVe vectors, M2 recall@5 55.8 → 68.1 %, recall@25 55.8 → 89.1 %), and
  // the full-text hits they lack (phrases, paths, words the vectors do not know) follow.
  const wordsRanked = meaning?.ranksWords === true;
  const textFound = new Set(messageHits.map((hit) => hit.key));
  const messageList = wordsRanked ? followedBy(meaningHits, messageHits, LIST_DEPTH) : messageHits;
  const byCoverage = await byTermsCovered(reads, messageList, terms);
  const fused = new Map<string, { score: number; matchedBy: RecallMatch[] }>();
  const add = (id: string, rank: number, match: RecallMatch) => {
    const entry = fused.get(id) ?? { score: 0, matchedBy: [] };
    entry.score += 1 / (RRF_K + rank + 1);
    if (!entry.matchedBy.includes(match)) entry.matchedBy.push(match);
    fused.set(id, entry);
  };
  for (const [rank, hit] of byCoverage.entries())
    add(messageLabel(hit.key), rank, textFound.has(hit.key) ? "text" : "meaning");
  for (const [rank, hit] of summaryHits.entries()) add(hit.key, rank, "summary");
  for (const [rank, hit] of anchorHits.entries()) add(hit.key, rank, "anchor");
  const anchored = await reads.summaries(anchorHits.slice(0, ANCHOR_EXPANSION).map((hit) => hit.key));
  anchored.forEach((summary, rank) => {
    const seqs = new Set(matchingAnchors(summary, terms).flatMap((anchor) => anchor.messages));
    for (const seq of seqs) add(messageLabel(seq), rank, "anchor");
  });
  const ranked = [...fused].sort(([, left], [, right]) => right.score - left.score);
  const listed = await coveringSummariesLast(reads, ranked, limit);
  const top = [...listed, ...(wordsRanked ? [] : meaningAfter(fused, meaningHits))].slice(
    0,
    Math.max(0, limit),
  );
  return describeHits(reads, terms, top);
}

/**
 * The message hits with those holding every term of the query first, BM25's order kept within
 * both groups. BM25 divides by a message's length, so a long tool output holding every word of
 * the question ranked below short messages holding one of them ("build" in a path); a reader
 * asking with five words means the message that has all five. Only complete matches move: ranking
 * by how many terms a message holds was tried and cost M2 (LoCoMo-style questions) 5 points at
 * recall@5, where partial matches are noise. Terms are matched as lower-cased substrings of the
 * message's readable text, as its snippet is found.
 */
async function byTermsCovered(
  reads: RecallReads,
  hits: readonly SearchHit<number>[],
  terms: readonly string[],
): Promise<SearchHit<number>[]> {
  if (hits.length < 2 || terms.length < 2) return [...hits];
  const lowered = [...new Set(terms.map((term) => term.toLowerCase()))];
  const stored = await reads.messages(hits.map((hit) => hit.key));
  const coversAll = new Map(
    stored.map((message) => {
      const text = reads.body(message).toLowerCase();
      return [message.seq, lowered.every((term) => text.includes(term))];
    }),
  );
  return [
    ...hits.filter((hit) => coversAll.get(hit.key) === true),
    ...hits.filter((hit) => coversAll.get(hit.key) !== true),
  ];
}

/**
 * `ranked` with the summaries that cover a listed message moved to the end: a summary of a chunk
 * earns a high place when it points past the messages shown (its sources did not match, or ranked
 * below the limit), not when it repeats one of them in other words and pushes another match out
 * of the list; it still fills places the matches leave. On the bench's confusable probes this
 * lifted "in order via recall" from 71 % to 88 % (full preset).
 */
async function coveringSummariesLast(
  reads: RecallReads,
  ranked: Array<[string, { score: number; matchedBy: RecallMatch[] }]>,
  limit: number,
): Promise<Array<[string, { score: number; matchedBy: RecallMatch[] }]>> {
  const shown = ranked
    .flatMap(([id]) => {
      const seq = id.startsWith("sum_") ? undefined : parseMessageLabel(id);
      return seq === undefined ? [] : [seq];
    })
    .slice(0, Math.max(0, limit));
  const summaryIds = ranked.flatMap(([id]) => (id.startsWith("sum_") ? [id] : []));
  if (shown.length === 0 || summaryIds.length === 0) return ranked;
  const covering = new Set<string>();
  for (const summary of await reads.summaries(summaryIds)) {
    if (shown.some((seq) => summary.sourceRanges.some(([from, to]) => seq >= from && seq <= to)))
      covering.add(summary.summaryId);
  }
  return [...ranked.filter(([id]) => !covering.has(id)), ...ranked.filter(([id]) => covering.has(id))];
}

/**
 * The meaning list's messages the word lists did not find, after every fused item; those they did
 * find are marked as matched by meaning as well.
 */
function meaningAfter(
  fused: Map<string, { score: number; matchedBy: RecallMatch[] }>,
  meaningHits: readonly SearchHit<number>[],
): Array<[string, { score: number; matchedBy: RecallMatch[] }]> {
  let floor = 1 / RRF_K;
  for (const entry of fused.values()) floor = Math.min(floor, entry.score);
  for (const hit of meaningHits) fused.get(messageLabel(hit.key))?.matchedBy.push("meaning");
  return meaningHitsAfter(meaningHits, (seq) => fused.has(messageLabel(seq)), floor).map((hit) => [
    messageLabel(hit.key),
    { score: hit.score, matchedBy: ["meaning"] },
  ]);
}

/**
 * The anchors a query names: an identifier-like term (a path, a code, a word in capitals, anything
 * but a plain word) anywhere in the anchor, a plain word only as the whole anchor. A plain word
 * inside a path ("billing" in `src/billing/cache.ts`) is left to the full-text ranking, which
 * already scores it: crediting every message that read such a path as well put a dozen
 * `read src/billing/…` calls above the one message that answers "what is the signing secret for
 * the billing webhook?" (the bench's confusable needles, M5 87.5 → 100 %). Words in capitals stay
 * identifiers, since error codes (`ECONNREFUSED`) are anchors' usual contents.
 */
function matchingAnchors(summary: StoredSummary, terms: readonly string[]): StoredSummary["anchors"] {
  const wanted = terms.map((term) => {
    const normalized = term.normalize("NFC");
    return { lowered: normalized.toLowerCase(), plain: PLAIN_WORD.test(normalized) };
  });
  return summary.anchors.filter((anchor) => {
    const value = anchor.value.normalize("NFC").toLowerCase();
    return wanted.some(({ lowered, plain }) => (plain ? value === lowered : value.includes(lowered)));
  });
}

/** Letters only, lower-case or capitalized: an English word rather than an identifier. */
const PLAIN_WORD = /^\p{Lu}?\p{Ll}+$/u;

async function describeHits(
  reads: RecallReads,
  terms: readonly string[],
  top: Array<[string, { score: number; matchedBy: RecallMatch[] }]>,
): Promise<RecallHit[]> {
  const seqs = top.flatMap(([id]) => {
    const seq = id.startsWith("sum_") ? undefined : parseMessageLabel(id);
    return seq === undefined ? [] : [seq];
  });
  const summaryIds = top.flatMap(([id]) => (id.startsWith("sum_") ? [id] : []));
  const [messages, summaries] = await Promise.all([reads.messages(seqs), reads.summaries(summaryIds)]);
  const messageById = new Map(messages.map((stored) => [messageLabel(stored.seq), stored]));
  const summaryById = new Map(summaries.map((summary) => [summary.summaryId, summary]));
  return top.flatMap(([id, { score, matchedBy }]): RecallHit[] => {
    const stored = messageById.get(id);
    if (stored !== undefined) {
      const snippet = snippetOf(reads.body(stored), terms);
      return [
        { kind: "message", id, score, matchedBy, snippet, createdAt: stored.createdAt, role: stored.role },
      ];
    }
    const summary = summaryById.get(id);
    return summary === undefined ? [] : [summaryHit(summary, terms, score, matchedBy)];
  });
}

function summaryHit(
  summary: StoredSummary,
  terms: readonly string[],
  score: number,
  matchedBy: RecallMatch[],
): RecallHit {
  const hit: RecallHit = {
    kind: "summary",
    id: summary.summaryId,
    score,
    matchedBy,
    snippet: snippetOf(summary.content, terms),
    createdAt: summary.latestAt,
  };
  if (!matchedBy.includes("anchor")) return hit;
  const anchors = matchingAnchors(summary, terms)
    .slice(0, 10)
    .map((anchor) => ({ value: anchor.value, messages: anchor.messages.map(messageLabel) }));
  return anchors.length === 0 ? hit : { ...hit, anchors };
}
