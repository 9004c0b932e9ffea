/**
 * The per-session budget of summarizer tokens, and the limit on model calls in flight, in front of
 * every summary the engine makes (prepared in the background or made by a compaction).
 *
 * Budget: `limitTokens` per session over a rolling window of `windowMs`. Before a model call the
 * gate reserves its estimate (input tokens plus the summary's cap, by the engine's counter) in the
 * store's ledger, atomically against what the session spent in the window; after the call the
 * reservation is settled to what it took: the tokens the summarizer reported, else input plus the
 * summary's tokens by the engine's counter (input alone when the call failed, since a provider
 * bills a request it received; nothing when it never started).
 * When the reservation does not fit, the node is written by the extractive summarizer (no model,
 * instant) and the estimate is recorded as debt, so the shortfall stays visible.
 *
 * The extractive summarizer costs nothing: with it configured, nothing is metered or limited.
 */
import {
  createExtractiveSummarizer,
  EXTRACTIVE_SUMMARIZER_ID,
  type SummarizeInput,
  type Summarizer,
  type TokenCounter,
} from "@clew/core";
import type { GrantRequest, SummarizerGrant, SummarizerGrants } from "../compaction/leaf-supply.js";
import type { LosslessStore } from "../store/store.js";
import type { ConcurrencyLimiter } from "./concurrency-limiter.js";

export interface SpendGateOptions {
  store: LosslessStore;
  /** The configured summarizer. */
  summarizer: Summarizer;
  limiter: ConcurrencyLimiter;
  counter: TokenCounter;
  limitTokens: number;
  windowMs: number;
  now: () => number;
}

const NOTHING_TO_SETTLE = async () => undefined;

export class SummarySpendGate implements SummarizerGrants {
  private readonly extractive = createExtractiveSummarizer();

  constructor(private readonly options: SpendGateOptions) {}

  /** Throws `LosslessStoreError` when the ledger cannot be read or written. */
  async grant(request: GrantRequest): Promise<SummarizerGrant> {
    const { store, summarizer } = this.options;
    // The extractive summarizer itself, not `summarizer`: a host's model bound while this node is
    // made (see `HostModelSummarizer`) must not be called without a reservation.
    if (summarizer.id === EXTRACTIVE_SUMMARIZER_ID)
      return { summarizer: this.extractive, settle: NOTHING_TO_SETTLE };
    const at = this.options.now();
    const granted = await this.reserved(request, at);
    if (granted !== undefined) return granted;
    const tokens = request.inputTokens + request.maxOutputTokens;
    await store.recordSummaryDebt(request.sessionId, { at, tokens, chunks: 1 });
    return { summarizer: this.extractive, settle: NOTHING_TO_SETTLE, standInFor: summarizer.id };
  }

  /** Throws `LosslessStoreError` when the ledger cannot be read or written. */
  async modelGrant(request: GrantRequest): Promise<SummarizerGrant | undefined> {
    if (this.options.summarizer.id === EXTRACTIVE_SUMMARIZER_ID) return undefined;
    // Refused without a write on the ledger.
    if (!this.canEverFit(request)) return undefined;
    return this.reserved(request, this.options.now());
  }

  canEverFit(request: GrantRequest): boolean {
    return request.inputTokens + request.maxOutputTokens <= this.options.limitTokens;
  }

  /** The metered model call, once its estimate is reserved; undefined when it does not fit. */
  private async reserved(request: GrantRequest, at: number): Promise<SummarizerGrant | undefined> {
    const { store, summarizer } = this.options;
    const reservation = await store.reserveSummarySpend(request.sessionId, {
      at,
      tokens: request.inputTokens + request.maxOutputTokens,
      // Spend ages out of the window `windowMs` after it was made.
      windowStart: at - this.options.windowMs + 1,
      limitTokens: this.options.limitTokens,
    });
    if (reservation === undefined) return undefined;
    const call = new MeteredCall(summarizer, this.options, request.waitForSlot);
    return {
      summarizer: call.summarizer,
      settle: () =>
        store.settleSummarySpend(request.sessionId, reservation, call.tokens(request.inputTokens)),
    };
  }
}

/**
 * One granted call: waits for a slot when asked to, and remembers what it took: the tokens the
 * summarizer reported (`onUsage`), else the engine's count of the input and the summary.
 */
class MeteredCall {
  readonly summarizer: Summarizer;
  private started = false;
  private outputTokens = 0;
  private reportedTokens: number | undefined;

  constructor(inner: Summarizer, options: SpendGateOptions, waitForSlot: boolean) {
    const call = async (input: SummarizeInput) => {
      this.started = true;
      const text = await inner.summarize({
        ...input,
        onUsage: (usage) => {
          this.reportedTokens = (this.reportedTokens ?? 0) + usage.inputTokens + usage.outputTokens;
          input.onUsage?.(usage);
        },
      });
      this.outputTokens = options.counter.countText(text);
      return text;
    };
    this.summarizer = {
      id: inner.id,
      summarize: (input) =>
        waitForSlot ? options.limiter.run(() => call(input), input.signal) : call(input),
    };
  }

  tokens(inputTokens: number): number {
    if (this.reportedTokens !== undefined) return this.reportedTokens;
    return this.started ? inputTokens + this.outputTokens : 0;
  }
}
