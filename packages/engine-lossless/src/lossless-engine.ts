/**
 * The lossless context engine: every message is stored once, verbatim; older history is folded
 * into a DAG of summaries with anchors; assembly fits the budget exactly from a materialized view;
 * recall tools read any of it back.
 *
 * Fail-open: without a usable store (it could not be opened), `assemble` returns the host's
 * messages (with `promptAuthority: "preassembly_may_overflow"`, so the host keeps its overflow
 * check), `compact` delegates to the runtime's compaction, and ingestion does nothing. A store
 * error during a call is handled the same way for that call and logged; no method throws for it.
 *
 * Subagents (`src/subagents/`): a `fork` child gets a grant to read its parent's history up to the
 * parent's newest message at spawn, until `subagentGrantTtlMs` passes or `onSubagentEnded`;
 * `isolated` children get none. Grants live in memory: they do not survive a restart, and that is
 * safe because children do not either (a child runs inside its parent's tool call).
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
  type ContextEngineStatusSection,
  countMessagesTokens,
  delegateCompactionToRuntime,
  describeError,
  type IngestBatchParams,
  type IngestBatchResult,
  type IngestParams,
  type IngestResult,
  isAbortForSignal,
  type MaintainParams,
  type SubagentEndedParams,
  type SubagentSpawnParams,
  type SubagentSpawnPreparation,
} from "@clew/core";
import type { AssembledView } from "./assemble/assemble-view.js";
import { assembleWithDigest, DigestCache } from "./assemble/history-digest.js";
import { type RecalledEvidence, recallEvidence } from "./assemble/recall-evidence.js";
import { type CompactionSettings, type CompactViewOutcome, compactView } from "./compaction/compact-view.js";
import { type CompactionTarget, compactionTarget, compactResultOf } from "./compaction/compaction-target.js";
import { LosslessStoreError } from "./errors.js";
import { prepareMessages } from "./ingest/prepare-messages.js";
import { readTranscriptMessages } from "./ingest/read-transcript.js";
import { formatStatusLines } from "./inspect/format-report.js";
import { type LosslessSessionReport, readSessionReport } from "./inspect/session-report.js";
import { type LosslessEngineOptions, type ResolvedOptions, resolveOptions } from "./options.js";
import { SummaryPreparation, spendReportOf } from "./prepare/preparation.js";
import type { SummarySpendReport } from "./prepare/spend-report.js";
import { recallPolicy } from "./recall-policy.js";
import { FlightRecorder } from "./recorder/flight-recorder.js";
import { PeriodicUpkeep } from "./retention/upkeep.js";
import type { CompactionTrigger, LosslessStore } from "./store/store.js";
import { SubagentAccess } from "./subagents/subagent-access.js";
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
  /** The last evidence block per session and what it was made for. */
  private readonly evidence = new Map<string, { key: string; evidence: RecalledEvidence | undefined }>();
  /** Sessions already warned about: the warning would otherwise repeat on every call. */
  private readonly unmatchedHistory = new Set<string>();
  private disposed = false;
  private readonly subagents: SubagentAccess;
  private readonly recorder: FlightRecorder | undefined;
  private readonly upkeep: PeriodicUpkeep | undefined;
  private readonly preparation: SummaryPreparation | undefined;
  /** Digests of history left out while the view does not fit (see `history-digest.ts`). */
  private readonly digests = new DigestCache();

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
    this.preparation = store === undefined ? undefined : new SummaryPreparation(store, this.options);
    this.compaction = {
      ...this.options,
      counter: this.options.tokenCounter,
      ...(this.preparation === undefined ? {} : { grants: this.preparation.grants }),
    };
    this.views = store === undefined ? undefined : new ViewCache(store);
    this.subagents = new SubagentAccess({
      store: () => (this.disposed ? undefined : this.store),
      now: this.options.now,
      grantTtlMs: this.options.subagentGrantTtlMs,
      logger: this.options.logger,
    });
    if (store !== undefined) {
      this.recorder = new FlightRecorder(store, { ...this.options, summarizer: this.options.summarizer.id });
      this.upkeep = new PeriodicUpkeep(store, this.options, this.options.now, this.options.logger);
    }
  }

  /**
   * The store's state and one session's figures with its newest flight-recorder records (assembly
   * records still queued are written first). Never throws: an unusable store answers
   * `store.available: false` with the reason, and an unknown session answers zeros.
   */
  async inspect(sessionId: string): Promise<LosslessSessionReport> {
    await this.recorder?.flush();
    if (this.disposed) return readSessionReport(undefined, "the engine is disposed", sessionId);
    const report = await readSessionReport(this.store, this.storeFailure, sessionId);
    return { ...report, summarySpend: await this.spendReport(sessionId) };
  }

  /**
   * A session's summarizer spend against `summarySpendTokensPerSession`, its debt (summaries
   * written extractively because the budget was exhausted) and its prepared summaries. Never
   * throws: an unusable store answers `available: false` with the reason.
   */
  spendReport(sessionId: string): Promise<SummarySpendReport> {
    const store = this.disposed ? undefined : this.store;
    return spendReportOf(store, this.storeFailure ?? "the engine is disposed", sessionId, this.options);
  }

  /** Resolves once no summary is being prepared in the background (tests, benchmarks, shutdown). */
  async preparationIdle(): Promise<void> {
    await this.preparation?.idle();
  }

  /** The status section (`/status`, `clew context`): store, view, last compaction, last assembly. */
  async describeStatus(params: { sessionId: string }): Promise<ContextEngineStatusSection> {
    const report = await this.inspect(params.sessionId);
    return {
      title: "Lossless store",
      lines: formatStatusLines(report, this.options.now()),
      data: { ...report },
    };
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
        this.runCompaction(params.sessionId, target, true, params.abortSignal, undefined, "maintain"),
      );
    } catch (error) {
      if (isAbortForSignal(error, params.abortSignal)) throw error;
      this.options.logger.warn("lossless: background compaction failed", { error: describeError(error) });
    } finally {
      if (params.abortSignal?.aborted !== true) this.schedulePreparation(params.sessionId);
      await this.afterMaintenance();
    }
    return NO_MAINTENANCE;
  }

  /** Prepares, in the background, the summaries of chunks that left the fresh tail (see `src/prepare/`). */
  private schedulePreparation(sessionId: string): void {
    const views = this.views;
    if (views === undefined || this.disposed) return;
    this.preparation?.schedule(sessionId, async () => ({
      view: await views.get(sessionId),
      budgetTokens: this.targetFor(sessionId).budgetTokens,
    }));
  }

  /**
   * Writes queued assembly records, settles the store (deferred indexing, journal size) and runs
   * upkeep when due; none of it ever throws.
   */
  private async afterMaintenance(): Promise<void> {
    await this.recorder?.flush();
    await this.safely(() => (this.store as LosslessStore).settle());
    await this.upkeep?.runIfDue();
  }

  async assemble(params: AssembleParams): Promise<AssembleResult> {
    const started = this.options.elapsed();
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
      const usable = this.usableBudget(budget, addition);
      const assembled = await assembleWithDigest({
        sessionId: params.sessionId,
        view,
        hostMessages: params.messages,
        budget: usable,
        counter: this.options.tokenCounter,
        cache: this.digests,
      });
      const evidence = await this.evidenceFor(params, view, assembled, budget, usable);
      if (!assembled.liveFound && !this.unmatchedHistory.has(params.sessionId)) {
        this.unmatchedHistory.add(params.sessionId);
        this.options.logger.warn("lossless: the host's history holds none of the newest stored messages", {
          sessionId: params.sessionId,
        });
      }
      this.noteAssembly(params.sessionId, view, assembled, usable, started, evidence?.tokens);
      return {
        messages: evidence === undefined ? assembled.messages : [...assembled.messages, evidence.message],
        estimatedTokens: assembled.tokens + (evidence?.tokens ?? 0),
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

  /**
   * Earlier messages matching the pending prompt, for the room the stable part leaves (see
   * `recallShare`). The same prompt over the same view gets the same block, so the calls of one
   * turn's tool loop send identical requests. A failure costs the block, never the assembly.
   */
  private async evidenceFor(
    params: AssembleParams,
    view: SessionView,
    assembled: AssembledView,
    budget: number,
    usable: number,
  ): Promise<RecalledEvidence | undefined> {
    const query = params.prompt?.trim() ?? "";
    const room = Math.min(
      Math.floor(budget * this.options.recallShare),
      this.options.recallMaxTokens,
      usable - assembled.tokens,
    );
    if (query.length === 0 || room <= 0 || this.store === undefined) return undefined;
    const key = `${view.version}\u0000${assembled.keptFrom}\u0000${room}\u0000${query}`;
    const cached = this.evidence.get(params.sessionId);
    if (cached?.key === key) return cached.evidence;
    try {
      const evidence = await recallEvidence({
        store: this.store,
        sessionId: params.sessionId,
        query,
        inContext: (seq) => view.hasRawFrom(seq, assembled.keptFrom),
        roomTokens: room,
        counter: this.options.tokenCounter,
      });
      this.evidence.set(params.sessionId, { key, evidence });
      return evidence;
    } catch (error) {
      this.options.logger.warn("lossless: recalling evidence for the prompt failed", {
        error: describeError(error),
      });
      return undefined;
    }
  }

  /** Queues the assembly's flight-recorder record (in memory; written after the call). */
  private noteAssembly(
    sessionId: string,
    view: SessionView,
    assembled: AssembledView,
    budgetTokens: number,
    started: number,
    evidenceTokens: number | undefined,
  ): void {
    this.recorder?.noteAssembly({
      sessionId,
      view,
      assembledAt: this.options.now(),
      durationMs: this.options.elapsed() - started,
      budgetTokens,
      tokens: assembled.tokens + (evidenceTokens ?? 0),
      messageCount: assembled.messages.length + (evidenceTokens === undefined ? 0 : 1),
      keptFrom: assembled.keptFrom,
      clipped: assembled.clipped,
    });
  }

  /**
   * A `fork` child gets a grant on the parent's history (its rollback deletes it); other modes get
   * nothing. Never throws: without a grant a fork still runs, so problems are logged instead.
   */
  async prepareSubagentSpawn(params: SubagentSpawnParams): Promise<SubagentSpawnPreparation | undefined> {
    return this.subagents.prepare(params);
  }

  /** Ends the child's grant, whatever the reason. */
  async onSubagentEnded(params: SubagentEndedParams): Promise<void> {
    this.subagents.end(params);
  }

  /**
   * recall_search, recall_read and recall_describe, bound to one session. With `sessionKey` (or,
   * without one, by child session id) a forked subagent's tools also read its parent's history
   * while its grant lasts.
   */
  tools(scope: { sessionId: string; sessionKey?: string }): RecallTool[] {
    return createRecallTools({
      sessionId: scope.sessionId,
      store: () => (this.disposed ? undefined : this.store),
      counter: this.options.tokenCounter,
      parent: () => this.subagents.parentFor(scope),
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.views?.clear();
    this.evidence.clear();
    this.digests.clear();
    await this.preparation?.stop();
    await Promise.allSettled([...this.compactions.values()]);
    await this.recorder?.close();
    await this.store?.close();
  }

  private async runCompaction(
    sessionId: string,
    target: CompactionTarget,
    force: boolean,
    signal: AbortSignal | undefined,
    customInstructions?: string,
    trigger: CompactionTrigger = force ? "force" : "compact",
  ): Promise<CompactViewOutcome> {
    const views = this.views as ViewCache;
    const view = await views.get(sessionId);
    const recording = (this.recorder as FlightRecorder).beginPass(sessionId, trigger, view, target);
    // The threshold compaction publishes what was prepared; it summarizes live only when that
    // leaves the view above the threshold.
    const liveLeavesAbove =
      trigger === "maintain" ? Math.floor(target.targetTokens * this.options.compactionThreshold) : undefined;
    try {
      const outcome = await this.compactAndPublish(sessionId, view, target, {
        force,
        signal,
        customInstructions,
        liveLeavesAbove,
      });
      await recording.finish(outcome.outcome, outcome.viewVersion);
      if (outcome.outcome.aborted !== undefined) throw outcome.outcome.aborted;
      return outcome.outcome;
    } catch (error) {
      await recording.fail(error);
      throw error;
    }
  }

  /** One compaction worked out and written; the view version after it. */
  private async compactAndPublish(
    sessionId: string,
    view: SessionView,
    target: CompactionTarget,
    how: {
      force: boolean;
      signal: AbortSignal | undefined;
      customInstructions: string | undefined;
      liveLeavesAbove: number | undefined;
    },
  ): Promise<{ outcome: CompactViewOutcome; viewVersion: number }> {
    const views = this.views as ViewCache;
    const startVersion = view.version;
    const { force, signal, customInstructions, liveLeavesAbove } = how;
    const outcome = await compactView(this.compaction, {
      sessionId,
      items: view.items,
      targetTokens: target.targetTokens,
      budgetTokens: target.budgetTokens,
      force,
      // Prepared summaries were written without the `/compact` instructions: not used with them.
      ...(customInstructions === undefined
        ? { supply: await (this.preparation as SummaryPreparation).leafSupply(sessionId) }
        : { customInstructions }),
      ...(signal === undefined ? {} : { signal }),
      ...(liveLeavesAbove === undefined ? {} : { liveLeavesAbove }),
    });
    if (outcome.write.edits.length === 0) return { outcome, viewVersion: startVersion };
    const { viewVersion } = await (this.store as LosslessStore).applyCompaction(sessionId, outcome.write);
    // An append that landed while summaries were written is missing from `outcome.items`.
    if (viewVersion === startVersion + 1)
      views.replace(sessionId, SessionView.fromItems(viewVersion, outcome.items));
    else views.forget(sessionId);
    return { outcome, viewVersion };
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
