/**
 * The in-memory indexes of search by meaning, one per session, over a model that may still be
 * loading (word vectors, an embedder): the few most recently searched sessions are kept, an index
 * made over another store or model is replaced, and failures are logged once per distinct reason
 * (recall then goes on with words alone).
 */
import type { Logger } from "@clew/core";
import type { LosslessStore, StoredMessage } from "../store/store.js";

/** Messages read per step while an index catches up. */
const PAGE = 256;
/**
 * Pages a search reads before it answers; an index further behind (a long session after a
 * restart: 50,000 messages take seconds) goes on catching up in the background, and searches use
 * what it holds meanwhile, so a turn never waits for a whole session to be indexed.
 */
const INLINE_PAGES = 8;

/**
 * An index over a session's messages, which are immutable and append-only: it only ever reads
 * what came after its newest seq, a page at a time, one page read at a time however many callers
 * ask.
 */
export abstract class PagedSessionIndex<Model> {
  private newestSeq = 0;
  private reading: Promise<boolean> | undefined;
  private background: Promise<unknown> | undefined;
  private closed = false;

  constructor(
    readonly store: LosslessStore,
    protected readonly sessionId: string,
    readonly model: Model,
  ) {}

  /**
   * Reads what the store holds beyond the index, at most `maxPages` pages; whether it reached the
   * end. Rejects when the store or the model fails; the page that failed is read again next time.
   */
  async catchUp(maxPages = Number.POSITIVE_INFINITY): Promise<boolean> {
    for (let pages = 0; pages < maxPages; pages++) if (await this.readPage()) return true;
    return false;
  }

  /** Catches up to the end in the background, one run at a time; `failed` hears why it stopped. */
  catchUpInBackground(failed: (error: unknown) => void): void {
    this.background ??= this.catchUp()
      .catch(failed)
      .finally(() => {
        this.background = undefined;
      });
  }

  /** Stops reading: an index that was dropped (or whose engine closed) reads nothing more. */
  close(): void {
    this.closed = true;
  }

  /** Adds one page of messages, in seq order. */
  protected abstract addPage(page: readonly StoredMessage[]): void | Promise<void>;

  /** Reads the next page; whether it was the last. Concurrent callers share the read. */
  private readPage(): Promise<boolean> {
    this.reading ??= this.readNextPage().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readNextPage(): Promise<boolean> {
    if (this.closed) return true;
    const page = await this.store.readMessageRange(this.sessionId, { afterSeq: this.newestSeq, limit: PAGE });
    if (page.length > 0) {
      await this.addPage(page);
      this.newestSeq = page[page.length - 1]?.seq ?? this.newestSeq;
    }
    return page.length < PAGE;
  }
}

export class SessionIndexes<Model, Index extends PagedSessionIndex<Model>> {
  private readonly ready: Promise<Model>;
  private readonly indexes = new Map<string, Index>();
  private readonly reported = new Set<string>();
  private readonly maxSessions: number;

  constructor(
    model: Model | Promise<Model>,
    private readonly make: (store: LosslessStore, sessionId: string, model: Model) => Index,
    private readonly options: { logger: Logger; maxSessions?: number },
  ) {
    this.ready = Promise.resolve(model);
    // Nobody may be searching when a load fails; the failure is reported by the first search.
    this.ready.catch(() => undefined);
    this.maxSessions = options.maxSessions ?? 8;
  }

  /** The session's index, made when missing; rejects when the model failed to load. */
  async indexOf(store: LosslessStore, sessionId: string): Promise<Index> {
    const model = await this.ready;
    let index = this.indexes.get(sessionId);
    if (index === undefined || index.store !== store || index.model !== model) {
      index?.close();
      index = this.make(store, sessionId, model);
    }
    this.indexes.delete(sessionId);
    this.indexes.set(sessionId, index);
    for (const [oldest, dropped] of this.indexes) {
      if (this.indexes.size <= this.maxSessions) break;
      dropped.close();
      this.indexes.delete(oldest);
    }
    return index;
  }

  /**
   * Catches `index` up inline when it is at most `INLINE_PAGES` pages behind, else leaves it
   * catching up in the background (failures logged). Rejects when the store fails.
   */
  async catchUpInline(index: Index, sessionId: string): Promise<void> {
    if (!(await index.catchUp(INLINE_PAGES)))
      index.catchUpInBackground((error) => this.report(sessionId, error));
  }

  /** Brings the session's index up to date. Never throws. */
  async warm(store: LosslessStore, sessionId: string): Promise<void> {
    try {
      await (await this.indexOf(store, sessionId)).catchUp();
    } catch (error) {
      this.report(sessionId, error);
    }
  }

  /** Logs why search by meaning failed, once per distinct reason. */
  report(sessionId: string, error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    if (this.reported.has(reason)) return;
    this.reported.add(reason);
    this.options.logger.warn("lossless: search by meaning is unavailable; recall uses words alone", {
      sessionId,
      error: reason,
    });
  }

  /** Drops every index; those still catching up stop. */
  clear(): void {
    for (const index of this.indexes.values()) index.close();
    this.indexes.clear();
  }
}
