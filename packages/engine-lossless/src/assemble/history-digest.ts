/**
 * Assembly when the view does not fit the budget: typically while summaries are still pending
 * (not prepared yet, or the summarizer is slow), before the compaction that would make the view
 * fit. Instead of leaving the oldest history out behind a bare note, a share of the budget is held
 * for a digest that stands for it: a coarse root summary, merged by code (`condenseExtractively`)
 * from the left-out summaries and extractive digests of the left-out raw messages. No model, no
 * I/O; chunk digests are cached, so a turn digests at most the little that changed.
 *
 * Still exactly within budget: the kept part is fitted to `budget − reserve`, the digest is
 * counted with the engine's counter and shortened until it fits the room left; when it cannot
 * (or the budget is too small to hold one back) the plain note of `fitToBudget` stays.
 */
import {
  type AgentMessage,
  createExtractiveSummarizer,
  readableTextParts,
  type TokenCounter,
} from "@clew/core";
import { condenseExtractively } from "../compaction/condense-extractively.js";
import { leafChunks } from "../compaction/plan.js";
import type { SessionView, ViewItem } from "../view/session-view.js";
import { type AssembledView, assembleView, type LiveEntry } from "./assemble-view.js";
import { describeOmitted, isOmissionNote, type OmittedTally, recallClause } from "./fit-to-budget.js";

/** Share of the budget held for the digest, and its bounds. */
const DIGEST_SHARE = 0.1;
const MAX_DIGEST_TOKENS = 2_000;
/** Below this budget the plain note stays: a digest would crowd out the conversation itself. */
const MIN_BUDGET_FOR_DIGEST = 1_500;
/** Left-out raw messages are digested in chunks of about this many tokens, each digest cached. */
const DIGEST_CHUNK_TOKENS = 4_000;
/** The newest left-out raw chunks given an extractive digest; of older ones, only the first. */
const RECENT_CHUNKS = 6;
/**
 * Recent chunks are looked for among the last 2,048 to 3,072 left-out items: the scan starts at
 * a multiple of 1,024, so chunk boundaries (and their cached digests) stay put from turn to turn
 * and a turn never rescans a long history.
 */
const SCAN_ITEMS = 2_048;
const SCAN_STEP = 1_024;
/** Items scanned for the first chunk when the scan above does not reach the start. */
const FIRST_SCAN_ITEMS = 256;
const CHUNK_DIGEST_TOKENS = 400;
const CACHED_CHUNK_DIGESTS = 2_048;
const CACHED_SESSIONS = 256;
const LINE_CHARS = 160;
/** Attempts at shortening the digest when the counter finds it over its room. */
const FIT_ATTEMPTS = 4;

/** Tokens held back for the digest when the view does not fit `budget` (0: keep the plain note). */
export function digestReserve(budget: number): number {
  if (budget < MIN_BUDGET_FOR_DIGEST) return 0;
  return Math.min(MAX_DIGEST_TOKENS, Math.floor(budget * DIGEST_SHARE));
}

export interface DigestAssembly {
  sessionId: string;
  view: SessionView;
  hostMessages: readonly AgentMessage[];
  budget: number;
  counter: TokenCounter;
  cache: DigestCache;
}

/**
 * `assembleView`, with the digest in the note's place when something is left out and there is
 * room for one. Never over `budget` by `counter`; the result's `keptFrom` and `tokens` describe
 * what it returns.
 */
export async function assembleWithDigest(request: DigestAssembly): Promise<AssembledView> {
  const { view, hostMessages, budget, counter } = request;
  const whole = assembleView(view, hostMessages, budget, counter);
  const reserve = digestReserve(budget);
  if (reserve === 0 || !isOmissionNote(whole.messages[0])) return whole;
  const reduced = assembleView(view, hostMessages, budget - reserve, counter);
  const note = reduced.messages[0];
  const nothingLeftOut = reduced.keptFrom === 0 && reduced.leftOutLive.length === 0;
  // Room held for a digest must never cost the newest group or the turn's prompt: when the full
  // budget already shortens a message, or the smaller one would shorten one, leave out the prompt,
  // or keep nothing but the note, the plain note stays instead.
  const keptLess =
    whole.clipped > 0 ||
    reduced.clipped > 0 ||
    (whole.promptKept && !reduced.promptKept) ||
    (reduced.messages.length === 1 && whole.messages.length > 1);
  if (!isOmissionNote(note) || nothingLeftOut || keptLess) return whole;
  const kept = reduced.tokens - counter.countMessage(note as AgentMessage);
  const digest = await request.cache.digestFor(request.sessionId, view, {
    omittedItems: reduced.keptFrom,
    omittedUnstored: reduced.omitted - reduced.keptFrom,
    leftOutLive: reduced.leftOutLive,
    maxTokens: Math.min(reserve, budget - kept),
    counter,
  });
  if (digest === undefined || kept + digest.tokens > budget) return whole;
  return {
    ...reduced,
    messages: [digest.message, ...reduced.messages.slice(1)],
    tokens: kept + digest.tokens,
  };
}

interface DigestShape {
  /** Items of `view.assembledItems` left out, from the start. */
  omittedItems: number;
  /** The host's not-yet-stored messages left out too (the oldest steps of a long running turn). */
  omittedUnstored: number;
  /** Those of them the host sent (synthetic results aside), oldest first: digested with the rest. */
  leftOutLive: readonly LiveEntry[];
  maxTokens: number;
  counter: TokenCounter;
}

interface Digest {
  message: AgentMessage;
  tokens: number;
}

/** Chunk digests across sessions, and each session's latest digest (a tool loop asks again). */
export class DigestCache {
  private readonly chunks = new Map<string, string>();
  private readonly latest = new Map<string, { key: string; digest: Digest | undefined }>();
  private readonly extractive = createExtractiveSummarizer();

  async digestFor(sessionId: string, view: SessionView, shape: DigestShape): Promise<Digest | undefined> {
    const live = shape.leftOutLive;
    const key = [
      view.version,
      shape.omittedItems,
      shape.omittedUnstored,
      live.length,
      timestampOf(live[0]?.message),
      timestampOf(live.at(-1)?.message),
      shape.maxTokens,
    ].join("\u0000");
    const cached = this.latest.get(sessionId);
    if (cached?.key === key) return cached.digest;
    const prefix = view.prefixTally(shape.omittedItems);
    const bodies = [
      ...(await this.bodiesOf(sessionId, view.assembledItems, shape.omittedItems, prefix.summaries)),
      ...(await this.liveBodiesOf(sessionId, live)),
    ];
    const digest = fitDigest(headerOf(prefix, shape.omittedUnstored), bodies, shape);
    this.latest.delete(sessionId);
    this.latest.set(sessionId, { key, digest });
    if (this.latest.size > CACHED_SESSIONS) this.latest.delete(this.latest.keys().next().value as string);
    return digest;
  }

  clear(): void {
    this.chunks.clear();
    this.latest.clear();
  }

  /**
   * Oldest first: every left-out summary's content, a digest of the first raw chunk and of the
   * newest ones, and a line per message of the chunk the cut runs through.
   */
  private async bodiesOf(
    sessionId: string,
    all: readonly ViewItem[],
    omitted: number,
    summaries: number,
  ): Promise<string[]> {
    const parts: Array<{ index: number; body: string }> = [];
    // Summaries sit at the start of a view (compaction folds the oldest history first).
    for (let index = 0; index < omitted && parts.length < summaries; index++) {
      const summary = (all[index] as ViewItem).summary;
      if (summary !== undefined) parts.push({ index, body: summary.content });
    }
    const scanStart = Math.max(0, Math.floor((omitted - SCAN_ITEMS) / SCAN_STEP) * SCAN_STEP);
    const head = all.slice(0, Math.min(scanStart, FIRST_SCAN_ITEMS));
    const [first] = leafChunks(head, head.length, DIGEST_CHUNK_TOKENS);
    if (first !== undefined)
      parts.push({
        index: first.start,
        body: await this.chunkDigest(sessionId, head.slice(first.start, first.end)),
      });
    const recent = all.slice(scanStart, omitted);
    const chunks = leafChunks(recent, recent.length, DIGEST_CHUNK_TOKENS);
    const closed = chunks.filter((chunk) => chunk.closed);
    const digested = new Set([
      ...(first === undefined ? closed.slice(0, 1) : []),
      ...closed.slice(-RECENT_CHUNKS),
    ]);
    for (const chunk of chunks) {
      const chunkItems = recent.slice(chunk.start, chunk.end);
      const index = scanStart + chunk.start;
      if (!chunk.closed) parts.push({ index, body: lineDigest(chunkItems) });
      else if (digested.has(chunk))
        parts.push({ index, body: await this.chunkDigest(sessionId, chunkItems) });
    }
    return parts.sort((left, right) => left.index - right.index).map((part) => part.body);
  }

  /**
   * The running turn's left-out steps, oldest first, as the stored history's: a digest of the
   * first chunk and of the newest closed ones, a line per message of the chunk still growing.
   * Chunks are cut from the turn's first left-out step, which stays put while the loop goes on,
   * so each closed chunk is digested once.
   */
  private async liveBodiesOf(sessionId: string, leftOut: readonly LiveEntry[]): Promise<string[]> {
    const chunks = liveChunks(leftOut, DIGEST_CHUNK_TOKENS);
    const closed = chunks.slice(0, -1);
    const digested = new Set([...closed.slice(0, 1), ...closed.slice(-RECENT_CHUNKS)]);
    const bodies: string[] = [];
    for (const chunk of chunks) {
      const messages = leftOut.slice(chunk.start, chunk.end).map((entry) => entry.message);
      if (!closed.includes(chunk)) bodies.push(lineDigest(messages.map((message) => ({ message }))));
      else if (digested.has(chunk)) {
        const key = `${sessionId}\u0000turn\u0000${timestampOf(leftOut[0]?.message)}\u0000${chunk.start}\u0000${timestampOf(messages.at(-1))}\u0000${messages.length}`;
        bodies.push(await this.cachedDigest(key, messages));
      }
    }
    return bodies;
  }

  private chunkDigest(sessionId: string, items: readonly ViewItem[]): Promise<string> {
    const first = items[0] as ViewItem;
    const last = items.at(-1) as ViewItem;
    const key = `${sessionId}\u0000${labelOf(first)}\u0000${first.position}\u0000${labelOf(last)}\u0000${items.length}`;
    return this.cachedDigest(
      key,
      items.map((item) => item.message),
    );
  }

  private async cachedDigest(key: string, messages: readonly AgentMessage[]): Promise<string> {
    const cached = this.chunks.get(key);
    if (cached !== undefined) return cached;
    const digest = await this.extractive.summarize({
      messages: [...messages],
      maxTokens: CHUNK_DIGEST_TOKENS,
    });
    this.chunks.set(key, digest);
    if (this.chunks.size > CACHED_CHUNK_DIGESTS)
      this.chunks.delete(this.chunks.keys().next().value as string);
    return digest;
  }
}

/** The note's first words (hosts and tests know them), what is left out, and how to read it back. */
function headerOf(prefix: ReturnType<SessionView["prefixTally"]>, omittedUnstored: number): string {
  const tally: OmittedTally = {
    messages: prefix.messages,
    summaries: prefix.summaries,
    unstored: omittedUnstored,
  };
  if (prefix.firstSeq !== undefined) tally.firstMessage = `m${prefix.firstSeq}`;
  if (prefix.lastSeq !== undefined) tally.lastMessage = `m${prefix.lastSeq}`;
  return (
    `[Context note] ${describeOmitted(tally)} from earlier in this conversation are not shown in full ` +
    `to fit the context budget. Below is a digest of them, made by code; nothing was deleted: ${recallClause(tally)}`
  );
}

/** The digest within `maxTokens` by the counter, shortening the merged body until it fits. */
function fitDigest(header: string, bodies: readonly string[], shape: DigestShape): Digest | undefined {
  const render = (text: string): Digest => {
    const message: AgentMessage = { role: "user", content: text, timestamp: 0 };
    return { message, tokens: shape.counter.countMessage(message) };
  };
  const bare = render(header);
  if (bare.tokens > shape.maxTokens) return undefined;
  if (bodies.length === 0) return bare;
  const room = shape.maxTokens - bare.tokens;
  let bodyTokens = room;
  for (let attempt = 0; attempt < FIT_ATTEMPTS && bodyTokens > 0; attempt++) {
    const digest = render(`${header}\n\n${condenseExtractively(bodies, bodyTokens)}`);
    if (digest.tokens <= shape.maxTokens) return digest;
    // The counter may see more tokens than the chars/4 the merge sizes by: shrink in proportion.
    bodyTokens = Math.floor((bodyTokens * room) / Math.max(1, digest.tokens - bare.tokens)) - 8;
  }
  return bare;
}

/**
 * One bullet per message of a chunk still growing: cheap, since it changes every turn. Tool
 * results share their call's bullet (`assistant (m4–m5): read src/a.ts → the result's first
 * line`), so a tool loop takes a line a step. Stored messages are named by their labels; the
 * running turn's have none yet.
 */
function lineDigest(items: ReadonlyArray<{ message: AgentMessage; ref?: ViewItem["ref"] }>): string {
  const bullets: Array<{ role: string; firstLabel?: string; lastLabel?: string; text: string }> = [];
  for (const item of items) {
    const role = String((item.message as unknown as Record<string, unknown>).role ?? "message");
    const first = (readableTextParts(item.message).join(" ").trim().split("\n")[0] ?? "").slice(
      0,
      LINE_CHARS,
    );
    const label = item.ref === undefined ? undefined : labelOf(item as ViewItem);
    const call = bullets.at(-1);
    if (role === "toolResult" && call !== undefined) {
      call.text += ` → ${first}`;
      if (label !== undefined) call.lastLabel = label;
    } else
      bullets.push({
        role,
        ...(label === undefined ? {} : { firstLabel: label, lastLabel: label }),
        text: first,
      });
  }
  const lines = bullets.map(({ role, firstLabel, lastLabel, text }) => {
    if (firstLabel === undefined) return `- ${role}: ${text}`;
    const span = firstLabel === lastLabel ? firstLabel : `${firstLabel}–${lastLabel}`;
    return `- ${role} (${span}): ${text}`;
  });
  return `## Progress\n${lines.join("\n")}`;
}

/**
 * `entries` cut into chunks of whole tool groups, each closed at the first group start once it
 * holds more than `maxTokens`, oldest first; the last one is the chunk still growing. A cut depends
 * only on what comes before it, so the loop's next steps never move one.
 */
function liveChunks(entries: readonly LiveEntry[], maxTokens: number): Array<{ start: number; end: number }> {
  const chunks: Array<{ start: number; end: number }> = [];
  let start = 0;
  let tokens = 0;
  for (const [index, { message, tokens: messageTokens }] of entries.entries()) {
    const startsGroup = (message as unknown as Record<string, unknown>).role !== "toolResult";
    if (startsGroup && index > start && tokens > maxTokens) {
      chunks.push({ start, end: index });
      start = index;
      tokens = 0;
    }
    tokens += messageTokens;
  }
  if (start < entries.length) chunks.push({ start, end: entries.length });
  return chunks;
}

function timestampOf(message: AgentMessage | undefined): string {
  const timestamp = (message as unknown as Record<string, unknown> | undefined)?.timestamp;
  return typeof timestamp === "number" ? String(timestamp) : "-";
}

function labelOf(item: ViewItem): string {
  return item.ref.kind === "message" ? `m${item.ref.seq}` : item.ref.summaryId;
}
