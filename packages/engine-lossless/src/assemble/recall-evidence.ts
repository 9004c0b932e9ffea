/**
 * Query-aware assembly: earlier messages that match the pending user turn, verbatim, in one block
 * placed after the stable part of the context (the host appends the pending turn right after it).
 * The stable part is what the provider caches; the block changes with every prompt, so it goes
 * last and never shifts the cached prefix.
 *
 * The block only repeats stored messages (nothing is invented), never one that is already raw in
 * the context, and never goes over its room: it is counted with the engine's counter once built,
 * and the lowest-ranked message is dropped until it fits.
 */
import type { AgentMessage, TokenCounter } from "@clew/core";
import { meaningHitsAfter, type SemanticRecall } from "../embeddings/semantic-recall.js";
import { readingBody, readingHeader } from "../recall/message-text.js";
import { queryWords } from "../recall/query-words.js";
import type { LosslessStore, SearchHit, StoredMessageHead } from "../store/store.js";

/** Search words taken from the prompt. */
const MAX_QUERY_WORDS = 12;
/** Ranked candidates read from the full-text index. */
const CANDIDATES = 40;
/**
 * Matches the index ranks at most (see `MessageSearchOptions`): this search runs on every request,
 * and ranking costs about a microsecond per match, so it must not grow with the session.
 */
const MAX_RANKED = 200;
/** Below this room a block would hold nothing useful. */
const MIN_ROOM_TOKENS = 48;
/** A header line per message, counted ahead of the exact count. */
const HEADER_TOKENS = 20;

const BLOCK_MARK = "[Recalled context]";
const BLOCK_INTRO =
  `${BLOCK_MARK} Earlier messages of this conversation that match the request below, repeated ` +
  "verbatim for reference, oldest first. They are not new input.";

/**
 * Whether `message` is an evidence block: it belongs to one request only (the next turn's context
 * does not repeat it), which is why prefix-stability checks leave it out.
 */
export function isRecalledContext(message: AgentMessage): boolean {
  const record = message as unknown as Record<string, unknown>;
  return (
    record.role === "user" && typeof record.content === "string" && record.content.startsWith(BLOCK_MARK)
  );
}

/**
 * `messages` with the block placed before the current turn: before the newest user message among
 * the host's not-yet-stored messages (`liveCount`, at the end), which a tool loop's later calls
 * already carry with its steps, so a tool call and its results stay last and together; before all
 * of them when none is a user message; at the end when there are none (the host appends the
 * pending turn after it).
 */
export function placeEvidence(
  messages: readonly AgentMessage[],
  liveCount: number,
  block: AgentMessage,
): AgentMessage[] {
  const liveStart = Math.max(0, messages.length - liveCount);
  let at = messages.length;
  if (liveCount > 0) {
    at = liveStart;
    for (let index = messages.length - 1; index >= liveStart; index--) {
      if ((messages[index] as unknown as Record<string, unknown>).role === "user") {
        at = index;
        break;
      }
    }
  }
  return [...messages.slice(0, at), block, ...messages.slice(at)];
}

export interface EvidenceRequest {
  store: LosslessStore;
  sessionId: string;
  /** The pending user turn's text. */
  query: string;
  /** Whether the message with this seq is already raw in the assembled context. */
  inContext: (seq: number) => boolean;
  /** Most tokens the block may take. */
  roomTokens: number;
  counter: TokenCounter;
  /** Search by meaning, fused with the words' hits, when the engine has an embedder. */
  meaning?: SemanticRecall;
}

export interface RecalledEvidence {
  message: AgentMessage;
  tokens: number;
  /** Seqs of the messages in the block, oldest first. */
  seqs: number[];
}

/** The evidence block for `request`, or undefined when nothing matches or nothing fits. */
export async function recallEvidence(request: EvidenceRequest): Promise<RecalledEvidence | undefined> {
  if (request.roomTokens < MIN_ROOM_TOKENS) return undefined;
  const words = queryWords(request.query, MAX_QUERY_WORDS);
  if (words.length === 0) return undefined;
  const [wordHits, meaningHits] = await Promise.all([
    request.store.searchMessages(request.sessionId, words, CANDIDATES, {
      maxRanked: MAX_RANKED,
      skip: request.inContext,
    }),
    request.meaning === undefined
      ? undefined
      : request.meaning.nearestMessages(request.store, request.sessionId, request.query, {
          limit: CANDIDATES * 2,
        }),
  ]);
  const hits =
    meaningHits === undefined
      ? wordHits
      : withMeaningAfter(
          wordHits,
          meaningHits.filter((hit) => !request.inContext(hit.key)),
        );
  if (hits.length === 0) return undefined;
  // Hits and their partners are chosen by their heads; only the chosen few are read whole (a tool
  // result can be tens of kilobytes, and most candidates are never shown).
  const around = hits.flatMap((hit) => [hit.key - 1, hit.key, hit.key + 1]);
  const heads = await request.store.readMessageHeads(request.sessionId, [...new Set(around)]);
  const bySeq = new Map(heads.map((head) => [head.seq, head]));
  const units = rankUnits(hits, bySeq, request.inContext);
  const chosen = chooseByRank(units, request.roomTokens);
  if (chosen.length === 0) return undefined;
  const stored = await request.store.readMessages(
    request.sessionId,
    chosen.flat().map((head) => head.seq),
  );
  const jsonBySeq = new Map(stored.map((message) => [message.seq, message.json]));
  // A message deleted between the two reads is left out.
  const readable = chosen
    .map((unit) => unit.filter((head) => jsonBySeq.has(head.seq)))
    .filter((unit) => unit.length > 0);
  while (readable.length > 0) {
    const evidence = renderBlock(readable.flat(), jsonBySeq, request.counter);
    if (evidence.tokens <= request.roomTokens) return evidence;
    readable.pop();
  }
  return undefined;
}

/**
 * The word hits, then the meaning hits they lack (up to `CANDIDATES` more), scored below every word
 * hit: meaning only fills room the words leave. Fusing the two by rank was measured on the bench's
 * conversations with GloVe vectors (centred) and lost at small budgets (M1 at 2k 55.1 → 46.4 %,
 * at 16k 63.8 → 68.1 %): loose neighbours displaced exact matches.
 */
function withMeaningAfter(
  wordHits: ReadonlyArray<SearchHit<number>>,
  meaningHits: ReadonlyArray<SearchHit<number>>,
): SearchHit<number>[] {
  const found = new Set(wordHits.map((hit) => hit.key));
  let floor = Number.POSITIVE_INFINITY;
  for (const hit of wordHits) floor = Math.min(floor, Math.max(hit.score, 0));
  if (!Number.isFinite(floor) || floor === 0) floor = 1;
  return [...wordHits, ...meaningHitsAfter(meaningHits, (seq) => found.has(seq), floor).slice(0, CANDIDATES)];
}

/**
 * A hit with the message it belongs with: a user message and the reply after it, or a reply and
 * the user message before it (a question is answered in its reply, and a reply only makes sense
 * with its question). Units are scored by the sum of their messages' scores, so an exchange that
 * matches on both sides ranks first, and listed best first without messages already in context.
 */
function rankUnits(
  hits: ReadonlyArray<SearchHit<number>>,
  bySeq: ReadonlyMap<number, StoredMessageHead>,
  inContext: (seq: number) => boolean,
): StoredMessageHead[][] {
  const units = new Map<number, { score: number; seqs: number[]; order: number }>();
  for (const [order, hit] of hits.entries()) {
    const message = bySeq.get(hit.key);
    if (message === undefined) continue;
    const partnerSeq = message.role === "user" ? hit.key + 1 : hit.key - 1;
    const partner = bySeq.get(partnerSeq);
    const pairs = partner !== undefined && isPartner(message, partner);
    const seqs = pairs ? [Math.min(hit.key, partnerSeq), Math.max(hit.key, partnerSeq)] : [hit.key];
    const start = seqs[0] as number;
    const unit = units.get(start) ?? { score: 0, seqs, order };
    unit.score += Math.max(0, hit.score);
    units.set(start, unit);
  }
  return [...units.values()]
    .sort((left, right) => right.score - left.score || left.order - right.order)
    .map((unit) =>
      unit.seqs
        .filter((seq) => !inContext(seq))
        .map((seq) => bySeq.get(seq))
        .filter((message): message is StoredMessageHead => message !== undefined),
    )
    .filter((unit) => unit.length > 0);
}

/** A user message and the assistant reply right after it (tool results stand alone). */
function isPartner(message: StoredMessageHead, partner: StoredMessageHead): boolean {
  const roles = new Set([message.role, partner.role]);
  return (
    roles.has("user") && roles.has("assistant") && (message.role === "user") === partner.seq > message.seq
  );
}

/** The best-ranked units whose estimated size fits the room, best first. */
function chooseByRank(units: readonly StoredMessageHead[][], room: number): StoredMessageHead[][] {
  let used = Math.ceil(BLOCK_INTRO.length / 3);
  const chosen: StoredMessageHead[][] = [];
  const taken = new Set<number>();
  for (const unit of units) {
    const fresh = unit.filter((message) => !taken.has(message.seq));
    const cost = fresh.reduce((sum, message) => sum + message.tokens + HEADER_TOKENS, 0);
    if (fresh.length === 0 || used + cost > room) continue;
    used += cost;
    for (const message of fresh) taken.add(message.seq);
    chosen.push(fresh);
  }
  return chosen;
}

/** The block of the chosen messages (each read back whole into `jsonBySeq`), oldest first. */
function renderBlock(
  chosen: readonly StoredMessageHead[],
  jsonBySeq: ReadonlyMap<number, string>,
  counter: TokenCounter,
): RecalledEvidence {
  const inOrder = [...chosen].sort((left, right) => left.seq - right.seq);
  const sections = inOrder.map((head) => {
    const body = readingBody(JSON.parse(jsonBySeq.get(head.seq) as string) as AgentMessage);
    return `${readingHeader(head.seq, head.role, head.createdAt)}\n${body}`;
  });
  const message: AgentMessage = {
    role: "user",
    content: [BLOCK_INTRO, ...sections].join("\n\n"),
    timestamp: 0,
  };
  return {
    message,
    tokens: counter.countMessage(message),
    seqs: inOrder.map((stored) => stored.seq),
  };
}
