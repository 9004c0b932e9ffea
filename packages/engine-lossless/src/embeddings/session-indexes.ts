/**
 * The in-memory indexes of search by meaning, one per session, over a model that may still be
 * loading (word vectors, an embedder): the few most recently searched sessions are kept, an index
 * made over another store or model is replaced, and failures are logged once per distinct reason
 * (recall then goes on with words alone).
 */
import type { Logger } from "@clew/core";
import { nextMacrotask } from "../event-loop.js";
import type { LosslessStore, StoredMessage } from "../store/store.js";

/** Messages read per step while an index catches up. */
const PAGE = 256;
/**
 * Pages a search catches up before it answers, when the index is no further behind; an index
 * further behind (a long session after a restart: 50,000 messages take seconds) reads nothing
 * inline and catches up in the background, and searches use what it holds meanwhile, so a turn
 * never waits for a whole session to be indexed.
 */
const INLINE_PAGES = 8;
/**
 * Messages read per step when catching up in the background, with the event loop free between
 * steps: indexing a page of 256 messages holds it for 10–20 ms, and a step chained to the next by
 * promises alone lets nothing else run (at 50,000 messages, seconds). A turn's assembly that
 * arrives meanwhile waits for one small step at most.
 */
const BACKGROUND_PAGE = 64;
/** Indexes a search or a warm-up makes at most for one session (see `SessionIndexes.current`). */
const MAX_ATTEMPTS = 3;

/**
 * An index over a session's messages, which are immutable and append-only: it reads what came
 * after its newest seq, a page at a time, one page read at a time however many callers ask. A
 * seq names another message only after the session was deleted and written again from seq 1, so
 * each read starts one message early, at the index's newest, and checks that message's identity:
 * when it is gone or another, the index is `stale` and reads nothing more. A session written anew
 * with exactly as many messages as the index holds is noticed with its next message.
 */
export abstract class PagedSessionIndex<Model> {
  private newestSeq = 0;
  /** The identity of the message at `newestSeq`. */
  private newestIdentity: string | undefined;
  /**
   * Set when the store no longer holds the messages this index was built over: the index reads
   * nothing more, and `SessionIndexes` replaces it.
   */
  stale = false;
  /** Whether the last inline catch-up (`SessionIndexes.catchUpInline`) reached the store's end. */
  caughtUp = false;
  private reading: Promise<boolean> | undefined;
  private background: Promise<unknown> | undefined;
  private closed = false;

  constructor(
    readonly store: LosslessStore,
    protected readonly sessionId: string,
    readonly model: Model,
  ) {}

  /** The newest seq the index holds (0 before its first page). */
  get indexedUpTo(): number {
    return this.newestSeq;
  }

  /** Whether the index still reads: neither closed (dropped, or its engine closed) nor stale. */
  get live(): boolean {
    return !this.closed && !this.stale;
  }

  /**
   * Reads what the store holds beyond the index, at most `maxPages` pages; whether it reached the
   * end (or stopped reading, closed or found stale: see `live`). Rejects when the store or the
   * model fails; the page that failed is read again next time.
   */
  async catchUp(maxPages = Number.POSITIVE_INFINITY): Promise<boolean> {
    for (let pages = 0; pages < maxPages; pages++) if (await this.readPage(PAGE)) return true;
    return false;
  }

  /**
   * Whether the store holds more than `pages` pages of messages beyond the index: one probe for a
   * single message head (a session's seqs run from 1 without gaps). Call `holdsNewest` first: the
   * probe cannot tell a session written anew.
   */
  async isFarBehind(pages: number): Promise<boolean> {
    if (!this.live) return false;
    const probe = this.newestSeq + pages * PAGE + 1;
    return (await this.store.readMessageHeads(this.sessionId, [probe])).length > 0;
  }

  /**
   * Whether the store still holds the index's newest message (one read; none before the first
   * page); marks the index stale when it does not.
   */
  async holdsNewest(): Promise<boolean> {
    if (!this.live || this.newestSeq === 0) return this.live;
    const [kept] = await this.store.readMessageRange(this.sessionId, {
      afterSeq: this.newestSeq - 1,
      limit: 1,
    });
    if (kept?.seq !== this.newestSeq || kept.identity !== this.newestIdentity) this.stale = true;
    return this.live;
  }

  /**
   * Catches up to the end in the background, in small steps with the event loop free between
   * them (`BACKGROUND_PAGE`), one run at a time; `failed` hears why it stopped. The promise settles
   * when the run ends, and never rejects.
   */
  catchUpInBackground(failed: (error: unknown) => void): Promise<unknown> {
    this.background ??= this.catchUpStepwise()
      .catch(failed)
      .finally(() => {
        this.background = undefined;
      });
    return this.background;
  }

  private async catchUpStepwise(): Promise<void> {
    while (!(await this.readPage(BACKGROUND_PAGE))) await nextMacrotask();
  }

  /** Stops reading: an index that was dropped (or whose engine closed) reads nothing more. */
  close(): void {
    this.closed = true;
  }

  /** Adds one page of messages, in seq order. */
  protected abstract addPage(page: readonly StoredMessage[]): void | Promise<void>;

  /**
   * Reads the next page of at most `size` new messages (and the index's newest again); whether it
   * was the last. Concurrent callers share the read (of the size the first asked for).
   */
  private readPage(size: number): Promise<boolean> {
    this.reading ??= this.readNextPage(size).finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readNextPage(size: number): Promise<boolean> {
    if (!this.live) return true;
    const overlap = this.newestSeq > 0 ? 1 : 0;
    const afterSeq = this.newestSeq - overlap;
    const read = await this.store.readMessageRange(this.sessionId, { afterSeq, limit: size + overlap });
    if (overlap === 1) {
      const kept = read[0];
      if (kept?.seq !== this.newestSeq || kept.identity !== this.newestIdentity) this.stale = true;
    }
    // Dropped or found stale meanwhile: nothing is added (adding may cost a model call a message).
    if (!this.live) return true;
    const page = overlap === 1 ? read.slice(1) : read;
    const newest = page.at(-1);
    if (newest !== undefined) {
      await this.addPage(page);
      this.newestSeq = newest.seq;
      this.newestIdentity = newest.identity;
    }
    return page.length < size;
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

  /** The model, once loaded; rejects when it failed to load. */
  model(): Promise<Model> {
    return this.ready;
  }

  /** The session's index, made when missing or no longer live; rejects when the model failed to load. */
  async indexOf(store: LosslessStore, sessionId: string): Promise<Index> {
    const model = await this.ready;
    let index = this.indexes.get(sessionId);
    if (index === undefined || !index.live || index.store !== store || index.model !== model) {
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
   * The session's index, caught up inline (`catchUpInline`); made again when catching up found it
   * stale, or when it was dropped meanwhile (other sessions' searches). Rejects when the model
   * failed to load or the store fails.
   */
  async current(store: LosslessStore, sessionId: string, storedUpTo?: number): Promise<Index> {
    let index = await this.indexOf(store, sessionId);
    // A fresh index reads from seq 1 and is stale only if the session is deleted again meanwhile.
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      await this.catchUpInline(index, sessionId, storedUpTo);
      if (index.live && this.indexes.get(sessionId) === index) return index;
      index = await this.indexOf(store, sessionId);
    }
    index.caughtUp = false;
    return index;
  }

  /**
   * Catches `index` up inline when it is at most `INLINE_PAGES` pages behind, else leaves it
   * catching up in the background (failures logged) and answers at once: a search then uses what
   * the index holds, and no turn pays for pages of a long session's oldest messages; `caughtUp`
   * says which, and is false for an index found stale (see `PagedSessionIndex`). With `storedUpTo`
   * (the store's newest seq as the caller last saw it) and an index at it, reads nothing. Rejects
   * when the store fails.
   */
  async catchUpInline(index: Index, sessionId: string, storedUpTo?: number): Promise<void> {
    index.caughtUp = false;
    if (storedUpTo !== undefined && index.indexedUpTo >= storedUpTo) {
      // At it: nothing to read, and no probe to ask (two queries of every prompt, about 0.2 ms of
      // it at 50,000 messages). Past it: the session was written anew with fewer messages, or the
      // caller's figure is older than a read made since; one read tells which.
      index.caughtUp = index.indexedUpTo === storedUpTo ? index.live : await index.holdsNewest();
      return;
    }
    const report = (error: unknown) => this.report(sessionId, error);
    if (await index.isFarBehind(INLINE_PAGES)) {
      // The probe cannot tell a session written anew: searches must not use the old messages'
      // index while the background reads, so its newest message is checked first.
      if (await index.holdsNewest()) index.catchUpInBackground(report);
    }
    // One page more than the probe allowed for: messages stored meanwhile.
    else if (await index.catchUp(INLINE_PAGES + 1)) index.caughtUp = index.live;
    else index.catchUpInBackground(report);
  }

  /**
   * Brings the session's index up to date, in background steps (see `BACKGROUND_PAGE`), making it
   * again when it was found stale. Never throws.
   */
  async warm(store: LosslessStore, sessionId: string): Promise<void> {
    try {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const index = await this.indexOf(store, sessionId);
        await index.catchUpInBackground((error) => this.report(sessionId, error));
        if (!index.stale) return;
      }
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
