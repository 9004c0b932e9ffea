/**
 * Reads stored messages back exactly: the sources under a summary, a list of message ids, or a
 * time range, one page at a time within a token bound. A message larger than a whole page comes
 * in character slices over several pages; every other message comes whole, with its stored JSON.
 */
import type { AgentMessage, TokenCounter } from "@clew/core";
import type { LosslessStore, StoredMessage } from "../store/store.js";
import { messageLabel, parseMessageLabel, readingBody, readingHeader } from "./message-text.js";

export const DEFAULT_READ_TOKENS = 4_000;
export const MAX_READ_TOKENS = 32_000;
/** Rows fetched per page before the token bound trims them. */
const PAGE_ROWS = 200;

export interface RecallReadRequest {
  summaryId?: string;
  messageIds?: readonly string[];
  /** ISO 8601 time or epoch milliseconds, inclusive. */
  from?: string | number;
  to?: string | number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  maxTokens?: number;
}

export interface RecalledMessage {
  id: string;
  role: string;
  createdAt: number;
  /** What the model is shown for this message (header included). */
  text: string;
  /** The stored message, byte-exact; absent when only a slice of it is on this page. */
  message?: AgentMessage;
  /** For a slice: which characters of the body this page holds, of how many. */
  slice?: { start: number; end: number; total: number };
}

export interface RecallPage {
  messages: RecalledMessage[];
  tokens: number;
  nextCursor?: string;
}

/** @throws Error naming the problem when the request selects nothing readable. */
export async function recallRead(
  store: LosslessStore,
  sessionId: string,
  counter: TokenCounter,
  request: RecallReadRequest,
): Promise<RecallPage> {
  const maxTokens = Math.min(
    MAX_READ_TOKENS,
    Math.max(200, Math.floor(request.maxTokens ?? DEFAULT_READ_TOKENS)),
  );
  const cursor = parseCursor(request.cursor);
  const rows = await selectRows(store, sessionId, request, cursor.seq - 1);
  const page: RecallPage = { messages: [], tokens: 0 };
  for (const row of rows) {
    const header = readingHeader(row.seq, row.role, row.createdAt);
    // Parsed once: the body, and the message itself for a row read whole.
    const message = JSON.parse(row.json) as AgentMessage;
    const body = readingBody(message);
    const offset = row.seq === cursor.seq ? cursor.offset : 0;
    const whole = `${header}\n${body}`;
    const tokens = counter.countText(whole);
    if (offset === 0 && page.tokens + tokens <= maxTokens) {
      page.messages.push({ ...facts(row), text: whole, message });
      page.tokens += tokens;
      continue;
    }
    if (page.messages.length > 0) return { ...page, nextCursor: `${row.seq}:0` };
    const render = (end: number) =>
      `${header} (characters ${offset}–${end} of ${body.length})\n${body.slice(offset, end)}`;
    const end = sliceEnd(
      offset,
      body.length,
      (candidate) => counter.countText(render(candidate)) <= maxTokens,
    );
    const text = render(end);
    page.messages.push({ ...facts(row), text, slice: { start: offset, end, total: body.length } });
    page.tokens += counter.countText(text);
    return end < body.length ? { ...page, nextCursor: `${row.seq}:${end}` } : withNextRow(page, rows, row);
  }
  const last = rows.at(-1);
  return rows.length === PAGE_ROWS && last !== undefined
    ? { ...page, nextCursor: `${last.seq + 1}:0` }
    : page;
}

function facts(row: StoredMessage): Pick<RecalledMessage, "id" | "role" | "createdAt"> {
  return { id: messageLabel(row.seq), role: row.role, createdAt: row.createdAt };
}

function withNextRow(page: RecallPage, rows: readonly StoredMessage[], row: StoredMessage): RecallPage {
  const next = rows[rows.indexOf(row) + 1];
  return next === undefined ? page : { ...page, nextCursor: `${next.seq}:0` };
}

/**
 * The largest end after `offset` whose slice `fits`; at least one character, so a page always
 * moves on (the page bound leaves room for far more than one character's tokens).
 */
function sliceEnd(offset: number, length: number, fits: (end: number) => boolean): number {
  let low = offset + 1;
  let high = length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(middle)) low = middle;
    else high = middle - 1;
  }
  return Math.min(length, low);
}

async function selectRows(
  store: LosslessStore,
  sessionId: string,
  request: RecallReadRequest,
  afterSeq: number,
): Promise<StoredMessage[]> {
  const selectors = [request.summaryId, request.messageIds, request.from ?? request.to].filter(
    (selector) => selector !== undefined,
  );
  if (selectors.length !== 1) {
    throw new Error("recall_read needs exactly one of: summaryId, messageIds, or a time range (from/to)");
  }
  if (request.summaryId !== undefined) {
    const [summary] = await store.readSummaries(sessionId, [request.summaryId]);
    if (summary === undefined) throw new Error(`No summary "${request.summaryId}" in this conversation`);
    return store.readMessageRange(sessionId, { ranges: summary.sourceRanges, afterSeq, limit: PAGE_ROWS });
  }
  if (request.messageIds !== undefined) {
    const seqs = request.messageIds.map((id) => {
      const seq = parseMessageLabel(id);
      if (seq === undefined) throw new Error(`"${id}" is not a message id (expected m<number>, e.g. m12)`);
      return seq;
    });
    const wanted = [...new Set(seqs)].filter((seq) => seq > afterSeq).sort((left, right) => left - right);
    return store.readMessages(sessionId, wanted.slice(0, PAGE_ROWS));
  }
  return store.readMessageRange(sessionId, {
    fromTime: timeOf(request.from, "from") ?? Number.MIN_SAFE_INTEGER,
    toTime: timeOf(request.to, "to") ?? Number.MAX_SAFE_INTEGER,
    afterSeq,
    limit: PAGE_ROWS,
  });
}

function timeOf(value: string | number | undefined, field: string): number | undefined {
  if (value === undefined) return undefined;
  const time = typeof value === "number" ? value : Date.parse(value);
  if (!Number.isFinite(time))
    throw new Error(`"${String(value)}" in ${field} is not an ISO time or epoch milliseconds`);
  return time;
}

function parseCursor(cursor: string | undefined): { seq: number; offset: number } {
  if (cursor === undefined) return { seq: 1, offset: 0 };
  const match = /^(\d+):(\d+)$/.exec(cursor);
  if (match === null) throw new Error(`"${cursor}" is not a cursor from recall_read's nextCursor`);
  return { seq: Number(match[1]), offset: Number(match[2]) };
}
