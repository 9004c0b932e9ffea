/**
 * The assembly half of the flight recorder. `note` runs inside `assemble` and only does O(change)
 * arithmetic in memory; records are written later, in batches (after the call returns, by
 * maintenance, or when asked), and the store keeps only the newest N per session. Nothing here
 * throws into a caller: a failed write is logged and its records dropped.
 */
import { describeError, type Logger } from "@clew/core";
import type { LosslessStore, NewAssemblyRecord } from "../store/store.js";
import type { SessionView, ViewItem } from "../view/session-view.js";

/** Records waiting beyond this many are dropped, oldest first, so a stuck store cannot grow memory. */
const MAX_PENDING = 1_024;
/** A write is scheduled once this many records wait. */
const FLUSH_BATCH = 16;
/** Sessions whose previous assembly is remembered for the prefix comparison. */
const MAX_REMEMBERED_SESSIONS = 256;

/** What `assemble` knows about one call. */
export interface AssemblyObservation {
  sessionId: string;
  view: SessionView;
  assembledAt: number;
  durationMs: number;
  budgetTokens: number;
  /** Tokens and messages returned. */
  tokens: number;
  messageCount: number;
  /** Index in `view.assembledItems` of the oldest item kept; earlier ones were left out. */
  keptFrom: number;
  clipped: number;
}

export interface AssemblyRecorderOptions {
  store: LosslessStore;
  /** Newest records kept per session; 0 records nothing. */
  keepPerSession: () => number;
  logger: Logger;
  /** Runs a write after the current call has returned. Default `setImmediate`. */
  defer?: (work: () => void) => void;
}

/** What the next assembly of a session is compared with. */
interface PreviousAssembly {
  keptFrom: number;
  keptEnd: number;
  firstLabel: string | undefined;
  lastLabel: string | undefined;
  clipped: number;
}

export class AssemblyRecorder {
  private pending: Array<{ sessionId: string; record: NewAssemblyRecord }> = [];
  private readonly previous = new Map<string, PreviousAssembly>();
  private scheduled = false;
  private closed = false;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly options: AssemblyRecorderOptions) {}

  /** Describes one assembly and queues its record. Never throws. */
  note(observation: AssemblyObservation): void {
    if (this.closed || this.options.keepPerSession() <= 0) return;
    try {
      this.pending.push({ sessionId: observation.sessionId, record: this.describe(observation) });
      if (this.pending.length > MAX_PENDING) this.pending.splice(0, this.pending.length - MAX_PENDING);
      if (this.pending.length >= FLUSH_BATCH) this.schedule();
    } catch (error) {
      this.options.logger.warn("lossless: recording an assembly failed", { error: describeError(error) });
    }
  }

  /** Writes what waits, in one store call. Resolves after the write; never rejects. */
  flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0 || this.closed) return this.writing;
    this.writing = this.writing.then(async () => {
      try {
        await this.options.store.recordAssemblies(batch, this.options.keepPerSession());
      } catch (error) {
        this.options.logger.warn("lossless: writing assembly records failed; they are dropped", {
          records: batch.length,
          error: describeError(error),
        });
      }
    });
    return this.writing;
  }

  /** Writes what waits and accepts nothing more. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const defer = this.options.defer ?? ((work: () => void) => void setImmediate(work));
    defer(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private describe(observation: AssemblyObservation): NewAssemblyRecord {
    const { view, sessionId } = observation;
    const length = view.assembledItems.length;
    const keptFrom = Math.max(0, Math.min(observation.keptFrom, length));
    const kept = view.rangeTally(keptFrom, length);
    const evicted = view.rangeTally(0, keptFrom);
    const keptItems = kept.raw + kept.summaries;
    const current: PreviousAssembly = {
      keptFrom,
      keptEnd: length,
      firstLabel: labelAt(view, keptFrom),
      lastLabel: labelAt(view, length - 1),
      clipped: observation.clipped,
    };
    const prefixStable = this.compareWithPrevious(sessionId, view, current);
    const storedTokens = kept.rawTokens + kept.summaryTokens;
    return {
      assembledAt: observation.assembledAt,
      durationMs: observation.durationMs,
      viewVersion: view.version,
      budgetTokens: observation.budgetTokens,
      tokens: observation.tokens,
      items: {
        raw: kept.raw,
        summary: kept.summaries,
        other: Math.max(0, observation.messageCount - keptItems),
      },
      tokensByKind: {
        raw: kept.rawTokens,
        summary: kept.summaryTokens,
        other: Math.max(0, observation.tokens - storedTokens),
      },
      evicted: {
        items: keptFrom,
        raw: evicted.raw,
        summaries: evicted.summaries,
        ...(keptFrom === 0 ? {} : { first: labelAt(view, 0), last: labelAt(view, keptFrom - 1) }),
      },
      clipped: observation.clipped,
      orphans: view.items.length - length,
      prefixStable,
    };
  }

  /**
   * Stable when the previous assembly kept no clipped message and its stored part is still the
   * start of this one: same first kept item at the same index, and its last item still in place
   * (views change only by appends between compactions, so the items between are the same too).
   */
  private compareWithPrevious(
    sessionId: string,
    view: SessionView,
    current: PreviousAssembly,
  ): boolean | null {
    const previous = this.previous.get(sessionId);
    this.previous.delete(sessionId);
    this.previous.set(sessionId, current);
    if (this.previous.size > MAX_REMEMBERED_SESSIONS) {
      const oldest = this.previous.keys().next().value;
      if (oldest !== undefined) this.previous.delete(oldest);
    }
    if (previous === undefined) return null;
    if (previous.clipped > 0 || previous.keptFrom !== current.keptFrom) return false;
    if (previous.keptEnd === previous.keptFrom) return true;
    return (
      previous.keptEnd <= current.keptEnd &&
      labelAt(view, current.keptFrom) === previous.firstLabel &&
      labelAt(view, previous.keptEnd - 1) === previous.lastLabel
    );
  }
}

function labelAt(view: SessionView, index: number): string | undefined {
  const item = view.assembledItems[index] as ViewItem | undefined;
  if (item === undefined) return undefined;
  return item.ref.kind === "message" ? `m${item.ref.seq}` : item.ref.summaryId;
}
