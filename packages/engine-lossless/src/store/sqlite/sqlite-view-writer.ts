/**
 * The write half of the SQLite store's message and view tables: appending messages (each becomes
 * a raw view item) and applying a compaction (summaries inserted, view items swapped for them).
 * Each call is one transaction that also bumps the session's view version, so a reader sees the
 * view before or after a write, never between. Methods are synchronous and run inside the store's
 * error handling (`SqliteLosslessStore.run`).
 *
 * `applyCompaction` throws `LosslessStoreConflictError` (and writes nothing) when an edit no longer
 * matches the view: a position holds another item, the positions are not adjacent, or the summary
 * it names was not inserted.
 */
import type Database from "better-sqlite3";
import { LosslessStoreConflictError } from "../../errors.js";
import type {
  AppendMessagesOptions,
  AppendMessagesResult,
  CompactionWrite,
  ContextEdit,
  ContextItemRef,
  NewStoredMessage,
  NewSummary,
  TranscriptWatermark,
} from "../store.js";
import { encodeAnchors, identityKey } from "./rows.js";
import { ensureSession, findSession } from "./session-rows.js";
import type { SqliteSummaryJobs } from "./sqlite-summary-jobs.js";
import type { Statements } from "./statements.js";

interface ItemAtRow {
  position: number;
  message_id: number | null;
  summary_id: string | null;
}

export class SqliteViewWriter {
  // Wrapped once: better-sqlite3 builds new wrappers on every `transaction` call.
  private readonly appendInTransaction: (
    sessionId: string,
    messages: readonly NewStoredMessage[],
    options: AppendMessagesOptions,
  ) => AppendMessagesResult;
  private readonly compactInTransaction: (
    sessionId: string,
    write: CompactionWrite,
  ) => { viewVersion: number };

  constructor(
    database: Database.Database,
    private readonly statements: Statements,
    private readonly jobs: SqliteSummaryJobs,
    private readonly now: () => number,
  ) {
    // Immediate: the write lock is taken first, so a concurrent writer (another process) makes
    // this wait (busy timeout) instead of failing its upgrade from read to write.
    const append = database.transaction(
      (sessionId: string, messages: readonly NewStoredMessage[], options: AppendMessagesOptions) =>
        this.appendNow(sessionId, messages, options),
    );
    this.appendInTransaction = append.immediate;
    this.compactInTransaction = database.transaction((sessionId: string, write: CompactionWrite) =>
      this.compactNow(sessionId, write),
    );
  }

  /** Inserts the messages whose identity is new, each with a view item after the newest. */
  append(
    sessionId: string,
    messages: readonly NewStoredMessage[],
    options: AppendMessagesOptions = {},
  ): AppendMessagesResult {
    return this.appendInTransaction(sessionId, messages, options);
  }

  /**
   * Starts a new write-ahead log with a write that changes nothing, after a checkpoint emptied it.
   * The first commit into an emptied log syncs the log's header to disk (SQLite does so to keep a
   * later out-of-order write from corrupting the file): made here, in upkeep, that sync is not
   * paid by the next turn's ingest.
   */
  startJournal(): void {
    this.statements.countJournalStart.run();
  }

  /** The session's transcript watermark, as written. */
  transcriptWatermark(sessionId: string): TranscriptWatermark | undefined {
    const session = findSession(this.statements, sessionId);
    if (session === undefined) return undefined;
    const row = this.statements.readWatermark.get(session.id) as { watermark: string } | undefined;
    return row === undefined ? undefined : (JSON.parse(row.watermark) as TranscriptWatermark);
  }

  /** Replaces the session's transcript watermark; nothing for a session never written. */
  writeTranscriptWatermark(sessionId: string, watermark: TranscriptWatermark): void {
    const session = findSession(this.statements, sessionId);
    if (session === undefined) return;
    this.statements.writeWatermark.run(session.id, JSON.stringify(watermark));
  }

  /** Writes the compaction's summaries and edits, settles its jobs; the view version after it. */
  applyCompaction(sessionId: string, write: CompactionWrite): { viewVersion: number } {
    return this.compactInTransaction(sessionId, write);
  }

  private appendNow(
    sessionId: string,
    messages: readonly NewStoredMessage[],
    options: AppendMessagesOptions,
  ): AppendMessagesResult {
    if (options.onlyToStoredSession === true) {
      const found = findSession(this.statements, sessionId);
      // A session row can exist with nothing stored (an append of no messages creates it); the
      // view version is what says messages were stored, as `viewVersion` answers it.
      if (found === undefined || found.view_version === 0)
        return { inserted: [], viewVersion: 0, sessionNotStored: true };
    }
    const session = ensureSession(this.statements, sessionId, this.now);
    let seq = session.next_seq;
    let position = session.next_position;
    const inserted: AppendMessagesResult["inserted"] = [];
    messages.forEach((message, index) => {
      const identity = Buffer.from(message.identity, "hex");
      const result = this.statements.insertMessage.run(
        session.id,
        seq,
        identity,
        identityKey(identity, message.timestamp ?? timestampIn(message.json)),
        message.role,
        message.createdAt,
        message.tokens,
        message.json,
      );
      if (result.changes === 0) return;
      this.statements.insertMessageItem.run(session.id, position, result.lastInsertRowid, message.tokens);
      inserted.push({ index, seq, position });
      seq += 1;
      position += 1;
    });
    if (inserted.length === 0)
      return { inserted, viewVersion: session.view_version, sessionNotStored: false };
    const viewVersion = session.view_version + 1;
    this.statements.updateSessionCounters.run(seq, position, viewVersion, session.id);
    return { inserted, viewVersion, sessionNotStored: false };
  }

  private compactNow(sessionId: string, write: CompactionWrite): { viewVersion: number } {
    const session = findSession(this.statements, sessionId);
    if (session === undefined) throw new LosslessStoreConflictError(sessionId, "the session has no view");
    const replacedBy = rewrittenSummaries(write.edits);
    for (const summary of write.summaries)
      this.insertSummary(session.id, summary, replacedBy.get(summary.summaryId));
    for (const edit of write.edits) this.applyEdit(sessionId, session.id, edit);
    if (write.settledJobs !== undefined) this.jobs.deleteByRef(session.id, write.settledJobs);
    this.statements.bumpViewVersion.run(session.id);
    return { viewVersion: session.view_version + 1 };
  }

  /** `rewrites`: the summary this one is written in place of (an upgrade); its children move over. */
  private insertSummary(sessionRef: number, summary: NewSummary, rewrites: string | undefined): void {
    const seqs = summary.sourceRanges.flat();
    const result = this.statements.insertSummary.run(
      summary.summaryId,
      sessionRef,
      summary.kind,
      summary.depth,
      summary.content,
      summary.tokens,
      seqs.length === 0 ? 0 : Math.min(...seqs),
      seqs.length === 0 ? 0 : Math.max(...seqs),
      JSON.stringify(summary.sourceRanges),
      summary.sourceCount,
      summary.sourceTokens,
      JSON.stringify(summary.childIds),
      encodeAnchors(summary.anchors),
      summary.earliestAt,
      summary.latestAt,
      summary.summarizer,
      summary.createdAt,
      summary.costUsd ?? null,
    );
    // Exactly what the `summary_text` view (the index's content) yields for the row, bound from
    // here: extracting the anchors back out of the stored JSON costs more than indexing them.
    const anchorText =
      summary.anchors.length === 0 ? null : summary.anchors.map((anchor) => anchor.value).join("\n");
    this.statements.indexSummary.run(result.lastInsertRowid, summary.content, anchorText);
    for (const childId of summary.childIds) {
      this.statements.setSummaryParent.run(summary.summaryId, sessionRef, childId, rewrites ?? null);
    }
  }

  /** Checks that the edit still matches the view, then swaps its items for one summary item. */
  private applyEdit(sessionId: string, sessionRef: number, edit: ContextEdit): void {
    const first = edit.replace[0];
    const last = edit.replace.at(-1);
    if (first === undefined || last === undefined) {
      throw new LosslessStoreConflictError(sessionId, `edit for ${edit.summaryId} replaces no items`);
    }
    // One read for the run's span instead of one per item: a root node replaces hundreds.
    const between = this.statements.itemsBetween.all(
      sessionRef,
      first.position,
      last.position,
    ) as ItemAtRow[];
    const byPosition = new Map(between.map((row) => [row.position, row]));
    const messageIds = this.messageIdsOf(sessionRef, edit);
    for (const { position, ref } of edit.replace) {
      const row =
        byPosition.get(position) ??
        (this.statements.itemAt.get(sessionRef, position) as ItemAtRow | undefined);
      if (row === undefined || !sameRef(row, ref, messageIds)) {
        throw new LosslessStoreConflictError(
          sessionId,
          `position ${position} no longer holds ${describeRef(ref)}`,
        );
      }
    }
    if (between.length !== edit.replace.length) {
      throw new LosslessStoreConflictError(
        sessionId,
        `positions ${first.position}..${last.position} are not ${edit.replace.length} adjacent items`,
      );
    }
    const summaryRow = this.statements.summaryRowId.get(sessionRef, edit.summaryId) as
      | { id: number }
      | undefined;
    if (summaryRow === undefined) {
      throw new LosslessStoreConflictError(sessionId, `summary ${edit.summaryId} does not exist`);
    }
    this.statements.deleteItemsBetween.run(sessionRef, first.position, last.position);
    this.statements.insertSummaryItem.run(sessionRef, first.position, summaryRow.id, edit.tokens, edit.json);
  }

  /** The row ids of the messages the edit names, by seq (one read of an index, over their span). */
  private messageIdsOf(sessionRef: number, edit: ContextEdit): Map<number, number> {
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    for (const { ref } of edit.replace) {
      if (ref.kind !== "message") continue;
      first = Math.min(first, ref.seq);
      last = Math.max(last, ref.seq);
    }
    if (first > last) return new Map();
    const rows = this.statements.messageIdsBetween.all(sessionRef, first, last) as Array<{
      seq: number;
      id: number;
    }>;
    return new Map(rows.map((row) => [row.seq, row.id]));
  }
}

/**
 * The top-level `timestamp` of a message JSON given without one (the engine always passes it):
 * the same message must get the same identity key however it is given.
 */
function timestampIn(json: string): number | undefined {
  try {
    const value: unknown = JSON.parse(json);
    const timestamp =
      typeof value === "object" && value !== null ? (value as { timestamp?: unknown }).timestamp : undefined;
    return typeof timestamp === "number" ? timestamp : undefined;
  } catch {
    return undefined;
  }
}

function sameRef(row: ItemAtRow, ref: ContextItemRef, messageIds: ReadonlyMap<number, number>): boolean {
  return ref.kind === "message"
    ? row.summary_id === null && row.message_id !== null && row.message_id === messageIds.get(ref.seq)
    : row.summary_id === ref.summaryId;
}

function describeRef(ref: ContextItemRef): string {
  return ref.kind === "message" ? `message ${ref.seq}` : `summary ${ref.summaryId}`;
}

/**
 * New summaries written in place of one summary item (an upgrade: the same children, another
 * text), by the id of the summary they replace.
 */
function rewrittenSummaries(edits: readonly ContextEdit[]): Map<string, string> {
  const rewritten = new Map<string, string>();
  for (const edit of edits) {
    const [only] = edit.replace;
    if (edit.replace.length === 1 && only?.ref.kind === "summary")
      rewritten.set(edit.summaryId, only.ref.summaryId);
  }
  return rewritten;
}
