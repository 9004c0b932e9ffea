/**
 * Background preparation of summaries: as chunks of raw messages leave the fresh tail, each gets
 * its leaf made and stored as prepared (the view does not change), and once the summaries fill
 * half their share of the budget, so does the condensed node of the run compaction will condense
 * first; the compaction at the threshold publishes them without waiting for a summarizer.
 *
 * Each chunk is a job in the store, claimed with a lease (owner id, expiry), so engines sharing a
 * database never summarize the same chunk at once, and a crashed worker's job is taken over once
 * its lease expired. A lease lasts two summarizer timeouts: a live worker always finishes (or its
 * call times out and the extractive fallback finishes) before it runs out. A slot of the engine's
 * concurrency limit is taken before the claim, so no lease is held while waiting for a slot.
 *
 * Passes run in the background, one at a time per session; a pass asked for while one runs is
 * run again after it. Failures are logged, never thrown: preparation only saves time later.
 */
import { setMaxListeners } from "node:events";
import { describeError, EXTRACTIVE_SUMMARIZER_ID, isAbortForSignal, type Logger } from "@clew/core";
import { buildNode, type NodeSettings } from "../compaction/build-node.js";
import { condensedCap, leafCap } from "../compaction/leaf-chunk.js";
import { grantedSettings, type SummarizerGrants } from "../compaction/leaf-supply.js";
import type { LosslessStore, PreparedSummary } from "../store/store.js";
import type { SessionView, ViewItem } from "../view/session-view.js";
import type { ConcurrencyLimiter } from "./concurrency-limiter.js";
import { chunksToPrepare, type PreparableChunk, staleJobs } from "./preparable-chunks.js";
import { upgradeSources } from "./upgrade-sources.js";

export interface PreparerOptions {
  store: LosslessStore;
  node: NodeSettings;
  leafChunkTokens: number;
  leafTargetTokens: number;
  condensedTargetTokens: number;
  condenseFanIn: number;
  freshTailShare: number;
  summaryShare: number;
  grants: SummarizerGrants;
  limiter: ConcurrencyLimiter;
  /** Names this engine in leases; unique among the processes sharing the store. */
  owner: string;
  leaseMs: number;
  now: () => number;
  logger: Logger;
}

/** What a pass works on: the session's current view and the budget its fresh tail is a share of. */
export interface PreparationInput {
  view: SessionView;
  budgetTokens: number;
}

/**
 * Upgrades over sources of more than this many leaf chunks are not made: a root node that folded
 * a whole history would be one model call over all of it.
 */
const UPGRADE_MAX_CHUNKS = 2;

/**
 * After the spend budget refused an upgrade for lack of room, the session's upgrades wait this
 * long: spend leaves the window only as it ages, and each ask reads the sources and takes the
 * ledger's write lock, in every pass (a pass follows every turn).
 */
const UPGRADE_RETRY_MS = 10 * 60_000;

export class SummaryPreparer {
  private readonly passes = new Map<string, Promise<void>>();
  /**
   * Upgrades this engine will not make (`session chunkKey`): sources over `UPGRADE_MAX_CHUNKS`,
   * or a call larger than the whole spend budget. Kept so their sources are read once.
   */
  private readonly unmade = new Set<string>();
  /** When the budget last refused an upgrade of the session for lack of room. */
  private readonly refusedAt = new Map<string, number>();
  private readonly again = new Set<string>();
  private readonly controller = new AbortController();

  constructor(private readonly options: PreparerOptions) {
    // Every job of a pass waiting for a slot listens to this one signal; a pass after a bootstrap
    // holds dozens.
    setMaxListeners(0, this.controller.signal);
  }

  /** Starts a pass over the session in the background (or one more after the running one). Never throws. */
  schedule(sessionId: string, input: () => Promise<PreparationInput>): void {
    if (this.controller.signal.aborted) return;
    if (this.passes.has(sessionId)) {
      this.again.add(sessionId);
      return;
    }
    const passes = async () => {
      do {
        this.again.delete(sessionId);
        await this.pass(sessionId, await input());
      } while (this.again.has(sessionId) && !this.controller.signal.aborted);
    };
    const running = passes()
      .catch((error) => this.report(sessionId, error))
      .finally(() => this.passes.delete(sessionId));
    this.passes.set(sessionId, running);
  }

  /** Resolves once no pass runs (passes scheduled meanwhile included). */
  async idle(): Promise<void> {
    while (this.passes.size > 0) await Promise.allSettled([...this.passes.values()]);
  }

  /** Cancels every pass (leases of cancelled jobs are released) and waits for them to end. */
  async stop(): Promise<void> {
    this.controller.abort(new Error("the lossless engine is disposed"));
    await this.idle();
  }

  private async pass(sessionId: string, input: PreparationInput): Promise<void> {
    const { store, leafChunkTokens } = this.options;
    const items = input.view.items;
    const jobs = await store.listSummaryJobs(sessionId);
    const now = this.options.now();
    const stale = staleJobs(items, leafChunkTokens, jobs, now);
    if (stale.length > 0) await store.deleteSummaryJobs(sessionId, stale);
    const chunks = chunksToPrepare(items, jobs, now, {
      tailTokens: Math.floor(input.budgetTokens * this.options.freshTailShare),
      condenseFanIn: this.options.condenseFanIn,
      leafChunkTokens,
      summaryLimit: Math.floor(input.budgetTokens * this.options.summaryShare),
      upgrades:
        this.options.node.summarizer.id !== EXTRACTIVE_SUMMARIZER_ID && !this.waitingForRoom(sessionId),
    });
    await Promise.all(chunks.map((chunk) => this.prepareChunk(sessionId, chunk)));
  }

  /** One job: slot, lease, summary, result. Logs instead of throwing, except for cancellation. */
  private async prepareChunk(sessionId: string, chunk: PreparableChunk): Promise<void> {
    const signal = this.controller.signal;
    try {
      const work =
        chunk.kind === "upgrade"
          ? () => this.claimAndUpgrade(sessionId, chunk, signal)
          : () => this.claimAndPrepare(sessionId, chunk, signal);
      await this.options.limiter.run(work, signal);
    } catch (error) {
      if (!isAbortForSignal(error, signal)) this.report(sessionId, error);
    }
  }

  private async claimAndPrepare(
    sessionId: string,
    chunk: PreparableChunk,
    signal: AbortSignal,
  ): Promise<void> {
    if (!(await this.claim(sessionId, chunk))) return;
    await this.prepareClaimed(sessionId, chunk, () => this.summarize(sessionId, chunk, signal));
  }

  /** Takes the chunk's job with a lease of this engine's; false when another worker holds it or it is done. */
  private claim(sessionId: string, chunk: PreparableChunk): Promise<boolean> {
    const { store, owner } = this.options;
    const now = this.options.now();
    const job = {
      chunkKey: chunk.chunkKey,
      kind: chunk.kind,
      firstPosition: chunk.firstPosition,
      lastPosition: chunk.lastPosition,
    };
    return store.claimSummaryJob(sessionId, job, { owner, now, expiresAt: now + this.options.leaseMs });
  }

  /** Stores what `make` prepares for a claimed job, or releases the job. */
  private async prepareClaimed(
    sessionId: string,
    chunk: PreparableChunk,
    make: () => Promise<PreparedSummary | undefined>,
  ): Promise<void> {
    const { store, owner } = this.options;
    try {
      const prepared = await make();
      if (prepared === undefined) await store.releaseSummaryJob(sessionId, chunk.chunkKey, owner);
      else if (!(await store.completeSummaryJob(sessionId, chunk.chunkKey, owner, prepared))) {
        this.options.logger.warn("lossless: a prepared summary was dropped: its lease was taken over", {
          sessionId,
          chunk: chunk.chunkKey,
        });
      }
    } catch (error) {
      // Work cancelled by `stop` was not tried: its claim does not count toward an upgrade's attempts.
      const attempted = !isAbortForSignal(error, this.controller.signal);
      await store.releaseSummaryJob(sessionId, chunk.chunkKey, owner, { attempted }).catch(() => undefined);
      throw error;
    }
  }

  /** The chunk's node, made exactly as compaction would make it (same items, same cap). */
  private async summarize(
    sessionId: string,
    chunk: PreparableChunk,
    signal: AbortSignal,
  ): Promise<PreparedSummary | undefined> {
    const maxTokens =
      chunk.kind === "leaf"
        ? leafCap(this.options.leafTargetTokens, chunk.tokens)
        : condensedCap(this.options.condensedTargetTokens, chunk.tokens);
    const grant = await this.options.grants.grant({
      sessionId,
      inputTokens: chunk.items.reduce((sum, item) => sum + item.tokens, 0),
      maxOutputTokens: maxTokens,
      waitForSlot: false,
    });
    try {
      const node = await buildNode(grantedSettings(this.options.node, grant), {
        sessionId,
        items: chunk.items,
        maxTokens,
        signal,
      });
      return node === undefined ? undefined : { summary: node.summary, edit: node.edit };
    } finally {
      await grant.settle();
    }
  }

  /**
   * An upgrade job: the summary written again by the model from its sources read back from the
   * store (see `upgradeSources`), at most as large as the summary it replaces (so publishing it
   * never grows the view). The model's spend is reserved before the claim: with no room in the
   * budget nothing is claimed and no debt recorded (the summary's debt was recorded when it was
   * written), so the upgrade waits for a later pass. A model that falls back to the extractive
   * summarizer again makes no upgrade: the job is released, and given up after `UPGRADE_ATTEMPTS`
   * tries (a claim cancelled by `stop` is not one). Once the budget refused one for lack of room,
   * the pass's upgrades not yet started are not asked for, and the session's next passes make none
   * for `UPGRADE_RETRY_MS`. One that can never be made (see `unmade`) is skipped without an ask
   * and without stopping the others.
   */
  private async claimAndUpgrade(
    sessionId: string,
    chunk: PreparableChunk,
    signal: AbortSignal,
  ): Promise<void> {
    const item = chunk.items[0] as ViewItem;
    const facts = item.summary;
    const key = `${sessionId} ${chunk.chunkKey}`;
    if (facts === undefined || this.waitingForRoom(sessionId) || this.unmade.has(key)) return;
    const sources = await upgradeSources(this.options.store, sessionId, item);
    const inputTokens = sources.reduce((sum, source) => sum + source.tokens, 0);
    const cap =
      facts.kind === "leaf"
        ? leafCap(this.options.leafTargetTokens, inputTokens)
        : condensedCap(this.options.condensedTargetTokens, inputTokens);
    const request = {
      sessionId,
      inputTokens,
      maxOutputTokens: Math.min(cap, item.tokens),
      waitForSlot: false,
    };
    const { grants, leafChunkTokens } = this.options;
    if (inputTokens > UPGRADE_MAX_CHUNKS * leafChunkTokens || !grants.canEverFit(request)) {
      this.unmade.add(key);
      return;
    }
    if (signal.aborted) return;
    const grant = await grants.modelGrant(request);
    if (grant === undefined) {
      this.refusedAt.set(sessionId, this.options.now());
      return;
    }
    const maxTokens = request.maxOutputTokens;
    try {
      if (signal.aborted || !(await this.claim(sessionId, chunk))) return;
      await this.prepareClaimed(sessionId, chunk, async () => {
        const node = await buildNode(grantedSettings(this.options.node, grant), {
          sessionId,
          items: sources,
          maxTokens,
          signal,
          replaces: item,
        });
        if (node === undefined || node.summary.summarizer !== grant.summarizer.id) return undefined;
        return { summary: node.summary, edit: node.edit };
      });
    } finally {
      await grant.settle();
    }
  }

  /** Whether the budget refused one of the session's upgrades less than `UPGRADE_RETRY_MS` ago. */
  private waitingForRoom(sessionId: string): boolean {
    const refusedAt = this.refusedAt.get(sessionId);
    return refusedAt !== undefined && this.options.now() < refusedAt + UPGRADE_RETRY_MS;
  }

  private report(sessionId: string, error: unknown): void {
    this.options.logger.warn("lossless: preparing summaries failed", {
      sessionId,
      error: describeError(error),
    });
  }
}
