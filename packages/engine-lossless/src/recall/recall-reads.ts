/**
 * The stored messages and summaries one recall_search reads, each read and parsed once: ranking
 * (complete matches, summaries covering listed messages) and the hits' snippets look at the same
 * rows.
 */
import type { LosslessStore, StoredMessage, StoredSummary } from "../store/store.js";
import { storedReadingBody } from "./message-text.js";

export class RecallReads {
  private readonly messageRows = new Map<number, StoredMessage>();
  private readonly bodies = new Map<number, string>();
  private readonly summaryRows = new Map<string, StoredSummary>();

  constructor(
    private readonly store: LosslessStore,
    private readonly sessionId: string,
  ) {}

  /** The stored messages with these seqs (those that exist), read from the store once each. */
  async messages(seqs: readonly number[]): Promise<StoredMessage[]> {
    const missing = [...new Set(seqs)].filter((seq) => !this.messageRows.has(seq));
    if (missing.length > 0)
      for (const row of await this.store.readMessages(this.sessionId, missing))
        this.messageRows.set(row.seq, row);
    return seqs.flatMap((seq) => this.messageRows.get(seq) ?? []);
  }

  /** A read message's readable text (`readingBody`), parsed once. */
  body(message: StoredMessage): string {
    let body = this.bodies.get(message.seq);
    if (body === undefined) {
      body = storedReadingBody(message);
      this.bodies.set(message.seq, body);
    }
    return body;
  }

  /** The summaries with these ids (those that exist), in the given order, read once each. */
  async summaries(ids: readonly string[]): Promise<StoredSummary[]> {
    const missing = [...new Set(ids)].filter((id) => !this.summaryRows.has(id));
    if (missing.length > 0)
      for (const row of await this.store.readSummaries(this.sessionId, missing))
        this.summaryRows.set(row.summaryId, row);
    return ids.flatMap((id) => this.summaryRows.get(id) ?? []);
  }
}
