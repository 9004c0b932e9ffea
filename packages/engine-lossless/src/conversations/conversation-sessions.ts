/**
 * Which conversation each session belongs to, for recall across a conversation's sessions: a
 * `/new` or `/reset` keeps the host's session key and starts a new session id, so the sessions
 * recorded under one key are one conversation (`LosslessStore.noteSessionKey`, `earlierSessions`).
 * A session the user deleted leaves its conversation, with every session before it.
 *
 * Never throws: recall across sessions is a convenience, a turn's storage is not. Failures are
 * logged; a listing that failed answers undefined, and recall then covers the session alone.
 */
import { describeError, type Logger } from "@clew/core";
import type { LosslessStore } from "../store/store.js";
import { type EarlierHistory, MAX_EARLIER_SESSIONS } from "../tools/earlier-sessions.js";

export interface ConversationSessionsOptions {
  /** The store, or undefined while it cannot be used (not opened, the engine disposed). */
  store: () => LosslessStore | undefined;
  logger: Logger;
}

export class ConversationSessions {
  /** The session key recorded for each session in this process: a turn writes it once. */
  private readonly noted = new Map<string, string>();
  /** Sessions the host deleted in this process: never attached to a conversation again. */
  private readonly deleted = new Set<string>();

  constructor(private readonly options: ConversationSessionsOptions) {}

  /** The key recorded for the session in this process, if any. */
  keyOf(sessionId: string): string | undefined {
    return this.noted.get(sessionId);
  }

  /** Records the session's conversation, once it holds messages (once per process). */
  async note(sessionId: string, sessionKey: string | undefined): Promise<void> {
    const store = this.options.store();
    if (sessionKey === undefined || store === undefined || this.noted.get(sessionId) === sessionKey) return;
    if (this.deleted.has(sessionId)) return;
    try {
      if (await store.noteSessionKey(sessionId, sessionKey)) this.noted.set(sessionId, sessionKey);
    } catch (error) {
      this.warn("could not record the session's conversation", sessionId, error);
    }
  }

  /**
   * The sessions `sessionKey` had before `sessionId`, newest first, numbered for `prevN:` ids;
   * undefined when the key is unknown or they could not be listed.
   */
  async earlier(sessionId: string, sessionKey: string | undefined): Promise<EarlierHistory[] | undefined> {
    const store = this.options.store();
    if (sessionKey === undefined || store === undefined) return undefined;
    try {
      const sessions = await store.earlierSessions(sessionId, sessionKey, MAX_EARLIER_SESSIONS);
      return sessions.map((session, position) => ({ ...session, index: position + 1, store }));
    } catch (error) {
      this.warn("could not list the conversation's earlier sessions", sessionId, error);
      return undefined;
    }
  }

  /** The user deleted the session: it and every session of its key leave their conversation. */
  async deletedByUser(sessionId: string, sessionKey: string | undefined): Promise<void> {
    for (const [noted, key] of this.noted)
      if (noted === sessionId || key === sessionKey) this.noted.delete(noted);
    // A host writing to the deleted id again must not attach it to a conversation anew.
    this.deleted.add(sessionId);
    const store = this.options.store();
    if (store === undefined) {
      this.options.logger.warn(
        "lossless: a deleted session could not be detached: the store is unavailable",
        {
          sessionId,
        },
      );
      return;
    }
    await store.detachConversation(sessionId, sessionKey);
  }

  private warn(what: string, sessionId: string, error: unknown): void {
    this.options.logger.warn(`lossless: ${what}`, { sessionId, error: describeError(error) });
  }
}
