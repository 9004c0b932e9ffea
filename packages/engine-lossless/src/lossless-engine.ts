/**
 * The lossless context engine: every message is stored once, verbatim; older history is folded
 * into a DAG of summaries with anchors; assembly fits the budget exactly from a materialized view;
 * recall tools read any of it back.
 *
 * Fail-open: without a usable store (it could not be opened), `assemble` returns the host's
 * messages (with `promptAuthority: "preassembly_may_overflow"`, so the host keeps its overflow
 * check), `compact` delegates to the runtime's compaction, and ingestion does nothing. A store
 * error during a call is handled the same way for that call and logged; no method throws for it.
 */
import {
  type AfterTurnParams,
  type AgentMessage,
  type AssembleParams,
  type AssembleResult,
  type BootstrapParams,
  type BootstrapResult,
  type CompactParams,
  type CompactResult,
  type ContextEngine,
  type ContextEngineInfo,
  type ContextEngineMaintenanceResult,
  countMessagesTokens,
  delegateCompactionToRuntime,
  describeError,
  type IngestBatchParams,
  type IngestBatchResult,
  type IngestParams,
  type IngestResult,
  isAbortForSignal,
  type MaintainParams,
} from "@clew/core";
import { assembleView } from "./assemble/assemble-view.js";
import { type CompactionSettings, type CompactViewOutcome, compactView } from "./compaction/compact-view.js";
import { type CompactionTarget, compactionTarget, compactResultOf } from "./compaction/compaction-target.js";
import { LosslessStoreError } from "./errors.js";
import { prepareMessages } from "./ingest/prepare-messages.js";
import { readTranscriptMessages } from "./ingest/read-transcript.js";
import { type LosslessEngineOptions, type ResolvedOptions, resolveOptions } from "./options.js";
import { recallPolicy } from "./recall-policy.js";
import type { LosslessStore } from "./store/store.js";
import { createRecallTools, type RecallTool } from "./tools/recall-tools.js";
import { SessionView } from "./view/session-view.js";
import { ViewCache } from "./view/view-cache.js";

export const LOSSLESS_ENGINE_VERSION = "0.1.0";

/** The recall policy is left out of contexts where it would take more than this share. */
const MAX_ADDITION_SHARE = 0.1;

const NO_MAINTENANCE: ContextEngineMaintenanceResult = { changed: false, bytesFreed: 0, rewrittenEntries: 0 };

export class LosslessEngine implements ContextEngine {
  readonly info: ContextEngineInfo = {
    id: "lossless",
    name: "Lossless context engine",
    version: LOSSLESS_ENGINE_VERSION,
    ownsCompaction: true,
    turnMaintenanceMode: "background",
  };
  private readonly options: ResolvedOptions;
  private readonly compaction: CompactionSettings;
  private readonly views: ViewCache | undefined;
  private readonly budgets = new Map<string, number>();
  private readonly compactions = new Map<string, Promise<unknown>>();
  /** Sessions whose last write failed: the next afterTurn stores the whole snapshot again. */
  private readonly resync = new Set<string>();
  private readonly additionTokens = new Map<string, number>();
  /** Sessions already warned about: the warning would otherwise repeat on every call. */
  private readonly unmatchedHistory = new Set<string>();
  private disposed = false;

  /**
   * @param store the agent's store, or undefined when it could not be opened (`storeFailure`
   *   says why); the engine then fails open.
   * @throws InvalidOptionError for a bad option.
   */
  constructor(
    private readonly store: LosslessStore | undefined,
    options: LosslessEngineOptions = {},
    readonly storeFailure?: string,
  ) {
    this.options = resolveOptions(options);
    this.compaction = { ...this.options, counter: this.options.tokenCounter };
    this.views = store === undefined ? undefined : new ViewCache(store);
  }

  async ingest(params: IngestParams): Promise<IngestResult> {
    return { ingested: (await this.storeMessages(params.sessionId, [params.message])) > 0 };
  }

  async ingestBatch(params: IngestBatchParams): Promise<IngestBatchResult> {
    return { ingestedCount: await this.storeMessages(params.sessionId, params.messages) };
  }

  /** Stores the turn (`messages.slice(prePromptMessageCount)`), or the whole snapshot for a new session. */
  async afterTurn(params: AfterTurnParams): Promise<void> {
    // The assembled budget (net of the system prompt) is the better figure; this one only fills a gap.
    if (!this.budgets.has(params.sessionId)) this.rememberBudget(params.sessionId, params.tokenBudget);
    const known =
      this.views !== undefined && (await this.safely(() => this.hasStoredMessages(params.sessionId)));
    const whole = known !== true || this.resync.has(params.sessionId);
    await this.storeMessages(
      params.sessionId,
      whole ? params.messages : params.messages.slice(params.prePromptMessageCount),
    );
  }

  /** Imports the messages of an existing JSONL transcript; ids are stable, so a re-import stores nothing. */
  async bootstrap(params: BootstrapParams): Promise<BootstrapResult> {
    if (this.store === undefined)
      return { bootstrapped: false, reason: `lossless store unavailable: ${this.storeFailure}` };
    const transcript = await readTranscriptMessages(params.sessionFile, params.sessionId);
    if (!transcript.ok) return { bootstrapped: false, reason: transcript.reason };
    const importedMessages = await this.storeMessages(params.sessionId, transcript.messages);
    return { bootstrapped: true, importedMessages };
  }

  /** Compacts in the background once the view passes `compactionThreshold` of the session's budget. */
  async maintain(params: MaintainParams): Promise<ContextEngineMaintenanceResult> {
    if (this.views === undefined) return NO_MAINTENANCE;
    try {
      const view = await this.views.get(params.sessionId);
      const target = this.targetFor(params.sessionId);
      if (view.assembledTokens <= target.targetTokens * this.options.compactionThreshold)
        return NO_MAINTENANCE;
      await this.serialized(params.sessionId, () =>
        this.runCompaction(params.sessionId, target, true, params.abortSignal),
      );
    } catch (error) {
      if (isAbortForSignal(error, params.abortSignal)) throw error;
      this.options.logger.warn("lossless: background compaction failed", { error: describeError(error) });
    }
    return NO_MAINTENANCE;
  }

  async assemble(params: AssembleParams): Promise<AssembleResult> {
    const budget =
      this.rememberBudget(params.sessionId, params.tokenBudget) ?? this.options.defaultTokenBudget;
    const addition = this.additionFor(budget, params.availableTools);
    if (this.views === undefined) return this.passThrough(params.messages);
    try {
      let view = await this.views.get(params.sessionId);
      if (!view.hasMessages && params.messages.length > 0) {
        await this.storeMessages(params.sessionId, params.messages);
        view = await this.views.get(params.sessionId);
      }
      const assembled = assembleView(
        view,
        params.messages,
        this.usableBudget(budget, addition),
        this.options.tokenCounter,
      );
      if (!assembled.liveFound && !this.unmatchedHistory.has(params.sessionId)) {
        this.unmatchedHistory.add(params.sessionId);
        this.options.logger.warn("lossless: the host's history holds none of the newest stored messages", {
          sessionId: params.sessionId,
        });
      }
      return {
        messages: assembled.messages,
        estimatedTokens: assembled.tokens,
        promptAuthority: "assembled",
        ...(addition.length === 0 ? {} : { systemPromptAddition: addition }),
      };
    } catch (error) {
      this.options.logger.warn("lossless: assemble failed; using the host's messages", {
        error: describeError(error),
      });
      return this.passThrough(params.messages);
    }
  }

  async compact(params: CompactParams): Promise<CompactResult> {
    if (this.views === undefined) return this.delegate(params, this.storeFailure ?? "no store");
    const target = compactionTarget(
      params,
      this.budgets.get(params.sessionId),
      this.options.defaultTokenBudget,
      (budget) => this.usableBudget(budget, this.additionFor(budget, undefined)),
    );
    try {
      const outcome = await this.serialized(params.sessionId, () =>
        this.runCompaction(
          params.sessionId,
          target,
          params.force === true,
          params.abortSignal,
          params.customInstructions,
        ),
      );
      return compactResultOf(outcome, target);
    } catch (error) {
      if (isAbortForSignal(error, params.abortSignal)) throw error;
      // Only an unusable store hands compaction to the runtime: with a working store, the
      // runtime's summary would never reach this engine's view, so "compacted" would be a lie.
      if (error instanceof LosslessStoreError) {
        this.options.logger.warn("lossless: the store failed during compaction; delegating to the runtime", {
          error: describeError(error),
        });
        return this.delegate(params, describeError(error));
      }
      return { ok: false, compacted: false, reason: `lossless compaction failed: ${describeError(error)}` };
    }
  }

  /** recall_search, recall_read and recall_describe, bound to one session. */
  tools(scope: { sessionId: string }): RecallTool[] {
    return createRecallTools({
      sessionId: scope.sessionId,
      store: () => (this.disposed ? undefined : this.store),
      counter: this.options.tokenCounter,
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.views?.clear();
    await Promise.allSettled([...this.compactions.values()]);
    await this.store?.close();
  }

  private async runCompaction(
    sessionId: string,
    target: CompactionTarget,
    force: boolean,
    signal: AbortSignal | undefined,
    customInstructions?: string,
  ): Promise<CompactViewOutcome> {
    const views = this.views as ViewCache;
    const view = await views.get(sessionId);
    const startVersion = view.version;
    const outcome = await compactView(this.compaction, {
      sessionId,
      items: view.items,
      targetTokens: target.targetTokens,
      budgetTokens: target.budgetTokens,
      force,
      ...(customInstructions === undefined ? {} : { customInstructions }),
      ...(signal === undefined ? {} : { signal }),
    });
    if (outcome.write.edits.length > 0) {
      const { viewVersion } = await (this.store as LosslessStore).applyCompaction(sessionId, outcome.write);
      // An append that landed while summaries were written is missing from `outcome.items`.
      if (viewVersion === startVersion + 1)
        views.replace(sessionId, SessionView.fromItems(viewVersion, outcome.items));
      else views.forget(sessionId);
    }
    if (outcome.aborted !== undefined) throw outcome.aborted;
    return outcome;
  }

  /** Stores messages not stored yet; returns how many were new. Logs and returns 0 on a store error. */
  private async storeMessages(sessionId: string, messages: readonly AgentMessage[]): Promise<number> {
    if (this.store === undefined || this.views === undefined || messages.length === 0) return 0;
    try {
      const prepared = prepareMessages(sessionId, messages, this.options.tokenCounter, this.options.now);
      const result = await this.store.appendMessages(
        sessionId,
        prepared.map((entry) => entry.record),
      );
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
      this.views.appended(sessionId, result.viewVersion, items);
      this.resync.delete(sessionId);
      return result.inserted.length;
    } catch (error) {
      this.resync.add(sessionId);
      this.options.logger.warn("lossless: storing messages failed", {
        sessionId,
        error: describeError(error),
      });
      return 0;
    }
  }

  private async hasStoredMessages(sessionId: string): Promise<boolean> {
    return (await (this.views as ViewCache).get(sessionId)).hasMessages;
  }

  private async safely<T>(body: () => Promise<T>): Promise<T | undefined> {
    try {
      return await body();
    } catch (error) {
      this.options.logger.warn("lossless: store read failed", { error: describeError(error) });
      return undefined;
    }
  }

  /** One compaction per session at a time; ingestion never waits for one. */
  private serialized<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.compactions.get(sessionId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.compactions.set(sessionId, settled);
    void settled.then(() => {
      if (this.compactions.get(sessionId) === settled) this.compactions.delete(sessionId);
    });
    return next;
  }

  private targetFor(sessionId: string): CompactionTarget {
    const budgetTokens = this.budgets.get(sessionId) ?? this.options.defaultTokenBudget;
    const targetTokens = this.usableBudget(budgetTokens, this.additionFor(budgetTokens, undefined));
    return { budgetTokens, targetTokens, source: "session" };
  }

  /**
   * The recall policy, or nothing when it would take more than `MAX_ADDITION_SHARE` of the budget
   * (a context that small is better spent on the conversation).
   */
  private additionFor(budget: number, availableTools: ReadonlySet<string> | undefined): string {
    const policy = recallPolicy(availableTools);
    return this.tokensOf(policy) <= budget * MAX_ADDITION_SHARE ? policy : "";
  }

  private tokensOf(text: string): number {
    let tokens = this.additionTokens.get(text);
    if (tokens === undefined) {
      tokens = this.options.tokenCounter.countText(text);
      this.additionTokens.set(text, tokens);
    }
    return tokens;
  }

  /** What assembly may fill: the budget less the recall policy and the safety margin (never below 0). */
  private usableBudget(budget: number, addition: string): number {
    return Math.max(0, budget - this.tokensOf(addition) - Math.ceil(budget * this.options.budgetMargin));
  }

  private rememberBudget(sessionId: string, tokenBudget: number | undefined): number | undefined {
    if (typeof tokenBudget !== "number" || !Number.isFinite(tokenBudget) || tokenBudget <= 0)
      return undefined;
    const budget = Math.floor(tokenBudget);
    this.budgets.set(sessionId, budget);
    return budget;
  }

  private passThrough(messages: AgentMessage[]): AssembleResult {
    return {
      messages,
      estimatedTokens: countMessagesTokens(this.options.tokenCounter, messages),
      promptAuthority: "preassembly_may_overflow",
    };
  }

  private async delegate(params: CompactParams, why: string): Promise<CompactResult> {
    try {
      return await delegateCompactionToRuntime(params);
    } catch (error) {
      if (isAbortForSignal(error, params.abortSignal)) throw error;
      return {
        ok: false,
        compacted: false,
        reason: `lossless store unavailable (${why}); runtime compaction failed: ${describeError(error)}`,
      };
    }
  }
}
