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
import { followedBy, type NearestOptions, type SemanticRecall } from "../embeddings/semantic-recall.js";
import { messageLabel, readingHeader, storedReadingBody } from "../recall/message-text.js";
import { queryWords } from "../recall/query-words.js";
import { isStoredHousekeeping } from "../recall/stored-housekeeping.js";
import type { LosslessStore, SearchHit, StoredMessage, StoredMessageHead } from "../store/store.js";
import { hasToolCalls, isToolResult, runningTurnStart } from "../view/turn-start.js";
import { chooseExchanges, chooseHits, partnerSeqOf, withPartners } from "./evidence-units.js";
import { excerpterOf } from "./excerpt.js";

/** Search words taken from the prompt. */
const MAX_QUERY_WORDS = 12;
/**
 * Query words an index of meaning that ranks words searches for the block (`NearestOptions`): the
 * prompt's rarest. The others are left to the full-text search, which takes the prompt's
 * `MAX_QUERY_WORDS` longest words and searches those left out, so in a longer prompt some words
 * are searched by neither. A prompt's search runs on every request, and long prompts are where its
 * time goes: at 50,000 messages p95 of a prompted assembly fell from 5.4–5.5 to 4.6–4.7 ms with 6
 * instead of 12 (two interleaved pairs; in a third the run of 6 met a slower spell of the machine,
 * p50 3.9 against 2.8 ms). The quality suite's figures of the block moved up or stayed (full
 * preset: M1 at 2k 78.3 → 79.7 %, in long transcripts 65.2 / 68.1 → 66.7 / 69.6 %); with 5 they
 * lost 3 points in long transcripts, with 4 M1 at 4k fell under 80 %. `recall_search` keeps the
 * index's own 12: its M2 MRR on the gate preset fell from 0.628 to 0.613 with 6.
 */
const EVIDENCE_QUERY_WORDS = 6;
/** Ranked candidates read from the full-text index. */
const CANDIDATES = 40;
/**
 * Matches the index ranks at most (see `MessageSearchOptions`): this search runs on every request,
 * and ranking costs about a microsecond per match, so it must not grow with the session.
 */
const MAX_RANKED = 200;
/**
 * Waiting messages this search indexes before it runs (see `MessageSearchOptions`): a turn's own,
 * always. A bulk import's tens of thousands (indexing 50,000 took 1.3–1.8 s, all of it holding the
 * event loop) are left to background indexing, and the evidence comes from what is indexed.
 */
const INDEX_AT_MOST = 1_000;
/** A message over this share of the block's room goes in as an excerpt. */
const WHOLE_SHARE = 0.4;
/** Most tokens of one excerpt. */
const EXCERPT_TOKENS = 240;
/** Characters an excerpt of one token holds, estimated low (code and logs are dense). */
const CHARS_PER_TOKEN = 3;
/** The note saying where an excerpt sits, counted ahead. */
const EXCERPT_NOTE_TOKENS = 24;
/** Attempts at narrowing an excerpt the counter finds too long. */
const FIT_ATTEMPTS = 3;
/** Below this room a block would hold nothing useful. */
const MIN_ROOM_TOKENS = 48;

const BLOCK_MARK = "[Recalled context]";
const BLOCK_INTRO =
  `${BLOCK_MARK} Earlier messages of this conversation that match the request below, repeated ` +
  "verbatim for reference, oldest first. They are not new input.";

/** The intro's size, estimated as the messages' are, ahead of the exact count. */
const INTRO_TOKENS = Math.ceil(BLOCK_INTRO.length / 3);

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
 * `messages` with the block placed before the current turn: before its prompt among the host's
 * not-yet-stored messages (`liveCount`, at the end), which a tool loop's later calls already carry
 * with its steps, so a tool call and its results stay last and together, and a steering message
 * typed during the loop does not move the block (the requests before it keep their prefix);
 * before all of them when none is a user message; at the end when there are none (the host
 * appends the pending turn after it).
 */
export function placeEvidence(
  messages: readonly AgentMessage[],
  liveCount: number,
  block: AgentMessage,
): AgentMessage[] {
  const liveStart = Math.max(0, messages.length - liveCount);
  const turnStart = runningTurnStart(messages.slice(liveStart));
  let at = liveCount === 0 ? messages.length : liveStart + Math.max(0, turnStart);
  // Never between a call and its results (a steering message typed before a result, or a live
  // part that starts with results): the block then goes before the call.
  while (at > 0 && (isToolResult(messages[at]) || hasToolCalls(messages[at - 1]))) at -= 1;
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
  /** Search by meaning, when the engine has word vectors or an embedder (see below for the order). */
  meaning?: SemanticRecall;
  /** The newest seq the store holds, when known (the view's): the index of meaning then asks nothing. */
  storedUpTo?: number;
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
  let found = await chooseAndRead(request, words);
  let housekeeping = housekeepingIn(found.stored);
  // Housekeeping is told by its text, read only once chosen (the full-text index holds it): chosen
  // again without it, its room goes to the next hits instead of staying empty.
  if (housekeeping.size > 0) {
    const left = housekeeping;
    const inContext = request.inContext;
    found = await chooseAndRead({ ...request, inContext: (seq) => inContext(seq) || left.has(seq) }, words);
    housekeeping = housekeepingIn(found.stored);
  }
  const { chosen, stored, heads } = found;
  if (chosen.length === 0) return undefined;
  const storedBySeq = new Map(
    stored.filter((message) => !housekeeping.has(message.seq)).map((message) => [message.seq, message]),
  );
  // A message deleted between the two reads is left out, and so is a host's housekeeping.
  const readable = chosen
    .map((unit) => unit.filter((head) => storedBySeq.has(head.seq)))
    .filter((unit) => unit.length > 0);
  // Each message is rendered once (parsed, excerpted, narrowed): dropping a unit that does not fit
  // only joins the remaining sections again.
  const excerpts = { seqs: heads.excerpted, words, maxTokens: heads.excerptTokens };
  const sections = new Map(
    readable
      .flat()
      .map((head) => [
        head.seq,
        renderSection(storedBySeq.get(head.seq) as StoredMessage, excerpts, request.counter),
      ]),
  );
  while (readable.length > 0) {
    const evidence = blockOf(readable.flat(), sections, request.counter);
    if (evidence.tokens <= request.roomTokens) return evidence;
    readable.pop();
  }
  return undefined;
}

/**
 * The units of evidence, hits and their partners chosen by their heads (`softTermUnits`,
 * `exchangeUnits`), and their messages: only the chosen few are read whole (a tool result can be
 * tens of kilobytes, and most candidates are never shown).
 */
async function chooseAndRead(request: EvidenceRequest, words: readonly string[]) {
  const searchWords = (searched: readonly string[] = words) =>
    request.store.searchMessages(request.sessionId, searched, CANDIDATES, {
      maxRanked: MAX_RANKED,
      skip: request.inContext,
      indexAtMost: INDEX_AT_MOST,
    });
  const heads = new EvidenceHeads(request, request.roomTokens - INTRO_TOKENS);
  const chosen =
    request.meaning?.ranksWords === true
      ? await softTermUnits(request.meaning, request, words, searchWords, heads)
      : await exchangeUnits(request, searchWords, heads);
  const seqs = chosen.flat().map((head) => head.seq);
  const stored = seqs.length === 0 ? [] : await request.store.readMessages(request.sessionId, seqs);
  return { chosen, stored, heads };
}

/**
 * Whole exchanges around the full-text hits, followed by an embedder's hits by meaning only: fusing
 * the two by rank was measured (centred averaged GloVe vectors, bench conversations) and lost at
 * small budgets (M1 at 2k 55.1 → 46.4 %), loose neighbours displacing exact matches.
 */
async function exchangeUnits(
  request: EvidenceRequest,
  searchWords: () => Promise<SearchHit<number>[]>,
  heads: EvidenceHeads,
): Promise<StoredMessageHead[][]> {
  const [wordHits, meaningHits] = await Promise.all([
    searchWords(),
    request.meaning?.nearestMessages(
      request.store,
      request.sessionId,
      request.query,
      nearestOptions(request),
    ),
  ]);
  const hits = meaningHits === undefined ? wordHits : followedBy(wordHits, meaningHits, CANDIDATES);
  await heads.read(hits.map((hit) => hit.key));
  // An exchange is the hit and the neighbour its role points to.
  await heads.readPartners(hits.flatMap((hit) => heads.bySeq.get(hit.key) ?? []));
  return chooseExchanges({
    hits,
    bySeq: heads.bySeq,
    inContext: request.inContext,
    roomTokens: heads.roomTokens,
  });
}

/**
 * Soft term hits, which rank the words themselves, each on its own; then, when they leave room,
 * the full-text hits for the query words the soft term search does not cover fully (codes, paths,
 * words it left out or holds no vector for, anything while its index catches up); then the chosen
 * hits' partners. A full-text search of every word added nothing on the bench's conversations,
 * transcripts or needles (every M1, M4 and M8 figure unchanged) and cost 1.5 ms of a prompted
 * assembly's p95 at 50,000 messages.
 */
async function softTermUnits(
  meaning: SemanticRecall,
  request: EvidenceRequest,
  words: readonly string[],
  searchWords: (words?: readonly string[]) => Promise<SearchHit<number>[]>,
  heads: EvidenceHeads,
): Promise<StoredMessageHead[][]> {
  const meaningHits = await meaning.nearestMessages(
    request.store,
    request.sessionId,
    request.query,
    nearestOptions(request),
  );
  await heads.read(meaningHits.map((hit) => hit.key));
  const choice = {
    hits: meaningHits,
    bySeq: heads.bySeq,
    inContext: request.inContext,
    roomTokens: heads.roomTokens,
  };
  let chosen = chooseHits(choice);
  const uncovered = chosen.room.takesMore()
    ? ((await meaning.uncoveredWords?.(
        request.store,
        request.sessionId,
        request.query,
        words,
        EVIDENCE_QUERY_WORDS,
      )) ?? words)
    : [];
  if (uncovered.length > 0) {
    const found = new Set(meaningHits.map((hit) => hit.key));
    // The full-text hits the soft term hits lack, in their order: the choice goes by order alone.
    const wordHits = (await searchWords(uncovered)).filter((hit) => !found.has(hit.key)).slice(0, CANDIDATES);
    await heads.read(wordHits.map((hit) => hit.key));
    chosen = chooseHits({ ...choice, hits: wordHits }, chosen);
  }
  await heads.readPartners(chosen.hits);
  return withPartners(chosen, heads.bySeq, request.inContext);
}

/** Seqs of the housekeeping among `stored` (see `isStoredHousekeeping`). */
function housekeepingIn(stored: readonly StoredMessage[]): Set<number> {
  return new Set(stored.filter(isStoredHousekeeping).map((message) => message.seq));
}

function nearestOptions(request: EvidenceRequest): NearestOptions {
  return {
    limit: CANDIDATES * 2,
    queryWords: EVIDENCE_QUERY_WORDS,
    skip: request.inContext,
    ...(request.storedUpTo === undefined ? {} : { storedUpTo: request.storedUpTo }),
  };
}

/**
 * The heads of candidate messages, read as the choice needs them. A message too large to repeat
 * whole goes in as an excerpt around its matches, at the excerpt's size: a long tool output holding
 * the answer would otherwise never fit.
 */
class EvidenceHeads {
  readonly bySeq = new Map<number, StoredMessageHead>();
  /** Seqs of the messages shown as excerpts. */
  readonly excerpted = new Set<number>();
  readonly excerptTokens: number;

  constructor(
    private readonly request: EvidenceRequest,
    readonly roomTokens: number,
  ) {
    this.excerptTokens = Math.min(EXCERPT_TOKENS, Math.floor(roomTokens * WHOLE_SHARE));
  }

  async read(seqs: readonly number[]): Promise<void> {
    const wanted = [...new Set(seqs)].filter((seq) => !this.bySeq.has(seq));
    if (wanted.length === 0) return;
    const { store, sessionId, meaning } = this.request;
    // The index of meaning holds most heads (about 0.3 ms of a prompt's reads at 50,000 messages).
    const known = (await meaning?.knownHeads?.(store, sessionId, wanted)) ?? [];
    const knownSeqs = new Set(known.map((head) => head.seq));
    const unknown = wanted.filter((seq) => !knownSeqs.has(seq));
    const read = unknown.length === 0 ? [] : await store.readMessageHeads(sessionId, unknown);
    for (const head of [...known, ...read]) {
      const excerpt = head.tokens > this.roomTokens * WHOLE_SHARE;
      if (excerpt) this.excerpted.add(head.seq);
      this.bySeq.set(
        head.seq,
        excerpt ? { ...head, tokens: this.excerptTokens + EXCERPT_NOTE_TOKENS } : head,
      );
    }
  }

  /** Reads the heads of the messages `messages` may belong with. */
  readPartners(messages: readonly StoredMessageHead[]): Promise<void> {
    return this.read(messages.flatMap((message) => partnerSeqOf(message) ?? []));
  }
}

/**
 * The excerpt of `body` for `words` within `maxTokens` by `counter`: sized by characters first,
 * then narrowed while the counter finds it too long (dense text, CJK: a token per character).
 */
function fittedExcerpt(body: string, words: readonly string[], maxTokens: number, counter: TokenCounter) {
  const excerptAt = excerpterOf(body, words);
  let maxChars = maxTokens * CHARS_PER_TOKEN;
  let excerpt = excerptAt(maxChars);
  for (let attempt = 0; attempt < FIT_ATTEMPTS; attempt++) {
    const tokens = counter.countText(excerpt.text);
    if (tokens <= maxTokens) break;
    maxChars = Math.floor((maxChars * maxTokens * 0.9) / tokens);
    excerpt = excerptAt(maxChars);
  }
  return excerpt;
}

/**
 * One message as the block shows it (as read back whole, header included: a head from the index
 * of meaning could be older than the store): its header and text, or, for those in
 * `excerpts.seqs`, the excerpt around the query's words, saying where it sits.
 */
function renderSection(
  message: StoredMessage,
  excerpts: { seqs: ReadonlySet<number>; words: readonly string[]; maxTokens: number },
  counter: TokenCounter,
): string {
  const header = readingHeader(message.seq, message.role, message.createdAt);
  const body = storedReadingBody(message);
  if (!excerpts.seqs.has(message.seq)) return `${header}\n${body}`;
  const excerpt = fittedExcerpt(body, excerpts.words, excerpts.maxTokens, counter);
  if (excerpt.from === 0 && excerpt.to === body.length) return `${header}\n${body}`;
  const where = `(excerpt: characters ${excerpt.from}–${excerpt.to} of ${body.length}; recall_read ${messageLabel(message.seq)} reads it all)`;
  return `${header} ${where}\n${excerpt.text}`;
}

/** The block of the chosen messages' sections, oldest first. */
function blockOf(
  chosen: readonly StoredMessageHead[],
  sections: ReadonlyMap<number, string>,
  counter: TokenCounter,
): RecalledEvidence {
  const inOrder = [...chosen].sort((left, right) => left.seq - right.seq);
  const message: AgentMessage = {
    role: "user",
    content: [BLOCK_INTRO, ...inOrder.map((head) => sections.get(head.seq) as string)].join("\n\n"),
    timestamp: 0,
  };
  return {
    message,
    tokens: counter.countMessage(message),
    seqs: inOrder.map((stored) => stored.seq),
  };
}
