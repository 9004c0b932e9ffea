/**
 * Every path that stores messages (ingest, ingestBatch, afterTurn, bootstrap, first-sight import
 * in assemble) goes through `MessageWriter`: it stores by identity (so a replay stores nothing)
 * and extends the cached view with what it added. A store error is logged, never thrown, and the
 * session is marked for a resync: the next turn then stores its whole snapshot, so messages a
 * failed write missed are picked up again.
 */
import { type AgentMessage, describeError, type Logger, type TokenCounter } from "@clew/core";
import { nextMacrotask } from "../event-loop.js";
import { type AppendMessagesOptions, BULK_WRITE_MESSAGES, type LosslessStore } from "../store/store.js";
import { runningTurnStart } from "../view/turn-start.js";
import type { ViewCache } from "../view/view-cache.js";
import { prepareMessages } from "./prepare-messages.js";

export interface MessageWriterOptions {
  store: LosslessStore;
  views: ViewCache;
  counter: TokenCounter;
  now: () => number;
  logger: Logger;
}

export interface StoredTurn {
  sessionId: string;
  /** The whole snapshot of the session after the turn. */
  messages: readonly AgentMessage[];
  /** How many of `messages` were there before the turn's prompt. */
  prePromptMessageCount: number;
}

export class MessageWriter {
  /**
   * Sessions whose next turn stores the whole snapshot again: their last write failed, or their
   * first sight stored only the history before the running turn.
   */
  private readonly resync = new Set<string>();
  /**
   * Per session, the end of its last list write: a list is written in parts with the event loop
   * free between them, and another write to the same session must not land between two parts
   * (its messages would take seqs in the middle of the list for good).
   */
  private readonly writing = new Map<string, Promise<unknown>>();

  constructor(private readonly options: MessageWriterOptions) {}

  /** Stores messages not stored yet; returns how many were new. Logs and returns 0 on a store error. */
  async store(sessionId: string, messages: readonly AgentMessage[]): Promise<number> {
    return (await this.storeReporting(sessionId, messages)) ?? 0;
  }

  /** `store`, but undefined (logged) when the store failed, so a caller can tell it from "nothing new". */
  async storeReporting(sessionId: string, messages: readonly AgentMessage[]): Promise<number | undefined> {
    return (await this.storeList(sessionId, messages, {}))?.stored;
  }

  /**
   * Stores a list in parts (see `storePart`); with `onlyToStoredSession`, stores nothing when the
   * store says the session has no stored message. Undefined (logged) when the store failed.
   */
  private storeList(
    sessionId: string,
    messages: readonly AgentMessage[],
    options: AppendMessagesOptions,
  ): Promise<{ stored: number; sessionNotStored: boolean } | undefined> {
    if (messages.length === 0) return Promise.resolve({ stored: 0, sessionNotStored: false });
    // Never rejects (see `storeListNow`), so the chain never breaks.
    const written = (this.writing.get(sessionId) ?? Promise.resolve()).then(() =>
      this.storeListNow(sessionId, messages, options),
    );
    this.writing.set(sessionId, written);
    void written.then(() => {
      if (this.writing.get(sessionId) === written) this.writing.delete(sessionId);
    });
    return written;
  }

  /** `storeList` once the session's earlier writes are done. Never throws. */
  private async storeListNow(
    sessionId: string,
    messages: readonly AgentMessage[],
    options: AppendMessagesOptions,
  ): Promise<{ stored: number; sessionNotStored: boolean } | undefined> {
    try {
      const ingestedAt = this.options.now();
      const seen = new Map<string, number>();
      let stored = 0;
      // A long list (a bootstrap import) is written in parts of the store's bulk size: each is
      // prepared, stored and dropped before the next, so no transaction outgrows SQLite's page
      // cache, and a crash between parts leaves the first stored (the next import stores the rest).
      // Between parts the event loop runs: a 50,000-message import held it for about 2 s.
      for (let start = 0; start < messages.length; start += BULK_WRITE_MESSAGES) {
        if (start > 0) await nextMacrotask();
        const part = messages.slice(start, start + BULK_WRITE_MESSAGES);
        const written = await this.storePart(sessionId, part, ingestedAt, seen, options);
        // The first part finds the session unstored, or a later one does when another process
        // deleted it in between: either way the caller stores the whole list again.
        if (written === undefined) return { stored, sessionNotStored: true };
        stored += written;
      }
      this.resync.delete(sessionId);
      return { stored, sessionNotStored: false };
    } catch (error) {
      this.resync.add(sessionId);
      this.options.logger.warn("lossless: storing messages failed", {
        sessionId,
        error: describeError(error),
      });
      return undefined;
    }
  }

  /**
   * One write: a part of a list (`seen` numbers identical messages across the parts). Undefined
   * when `onlyToStoredSession` was asked and the session had nothing stored (nothing was written).
   */
  private async storePart(
    sessionId: string,
    messages: readonly AgentMessage[],
    ingestedAt: number,
    seen: Map<string, number>,
    options: AppendMessagesOptions,
  ): Promise<number | undefined> {
    const { store, views, counter } = this.options;
    const prepared = prepareMessages(sessionId, messages, counter, ingestedAt, seen);
    const result = await store.appendMessages(
      sessionId,
      prepared.map((entry) => entry.record),
      options,
    );
    if (result.sessionNotStored) return undefined;
    const items = result.inserted.map(({ index, seq, position }) => {
      const entry = prepared[index] as (typeof prepared)[number];
      const ref = { kind: "message" as const, seq };
      return {
        position,
        ref,
        tokens: entry.record.tokens,
        message: entry.message,
        createdAt: entry.record.createdAt,
      };
    });
    views.appended(sessionId, result.viewVersion, items);
    return result.inserted.length;
  }

  /**
   * A session's first sight in `assemble`: stores the history before the running turn (from its
   * prompt on, the host's messages stay the turn in progress, whose prompt assembly keeps; a
   * steering message typed during the loop does not start a turn) and has the next `afterTurn` store the whole snapshot, so no message between that cut
   * and the next turn's prompt is missed. With no user message, stores everything.
   */
  async storeBeforeRunningTurn(sessionId: string, messages: readonly AgentMessage[]): Promise<number> {
    const turnStart = runningTurnStart(messages);
    if (turnStart < 0) return this.store(sessionId, messages);
    const stored = await this.store(sessionId, messages.slice(0, turnStart));
    this.resync.add(sessionId);
    return stored;
  }

  /**
   * Stores the turn (`messages.slice(prePromptMessageCount)`), or the whole snapshot when the
   * session has nothing stored yet or its last write failed. Never throws.
   *
   * Whether the session has stored messages is asked of the write itself (`onlyToStoredSession`):
   * a turn's usual write is then one transaction, with no read before it. Only when the store
   * answers that the session has nothing stored (its first turn, or another process deleted it) is
   * the whole snapshot written, in a second call.
   */
  async storeTurn(turn: StoredTurn): Promise<number> {
    const { sessionId, messages, prePromptMessageCount } = turn;
    if (this.resync.has(sessionId)) return this.store(sessionId, messages);
    const turnMessages = messages.slice(prePromptMessageCount);
    if (turnMessages.length === 0)
      return (await this.hasStoredMessages(sessionId)) ? 0 : this.store(sessionId, messages);
    const turnOnly = await this.storeList(sessionId, turnMessages, { onlyToStoredSession: true });
    if (turnOnly === undefined) return 0;
    if (!turnOnly.sessionNotStored) return turnOnly.stored;
    return this.store(sessionId, messages);
  }

  /** Whether the session has stored messages; false (logged) when the store could not be read. */
  private async hasStoredMessages(sessionId: string): Promise<boolean> {
    try {
      // The store's view version, not the view: a view not in the cache would be loaded whole
      // (every message parsed) for this one bit. A session's first write stores messages and
      // makes it version 1; a session never written (or deleted) is at version 0.
      return (await this.options.store.viewVersion(sessionId)) > 0;
    } catch (error) {
      this.options.logger.warn("lossless: store read failed", { error: describeError(error) });
      return false;
    }
  }
}
