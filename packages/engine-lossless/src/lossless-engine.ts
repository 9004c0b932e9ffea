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
  type ContextEngineRuntimeContext,
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
  type SessionDeletedParams,
  type SubagentEndedParams,
  type SubagentSpawnParams,
  type SubagentSpawnPreparation,
} from "@clew/core";
import { SessionBudgets } from "./assemble/session-budgets.js";
import { TurnAssembler } from "./assemble/turn-assembler.js";
import { compactResultOf } from "./compaction/compaction-target.js";
import { ConversationSessions } from "./conversations/conversation-sessions.js";
import { createStoreParts, type StoreParts } from "./engine-parts.js";
import { LosslessStoreError } from "./errors.js";
import { bootstrapFromTranscript } from "./ingest/transcript-bootstrap.js";
import { formatStatusLines } from "./inspect/format-report.js";
import { type LosslessSessionReport, readSessionReport } from "./inspect/session-report.js";
import { type LosslessEngineOptions, type ResolvedOptions, resolveOptions } from "./options.js";
import { spendReportOf } from "./prepare/preparation.js";
import type { SummarySpendReport } from "./prepare/spend-report.js";
import type { LosslessStore } from "./store/store.js";
import { SubagentAccess } from "./subagents/subagent-access.js";
import { HostModelSummarizer } from "./summarizer/host-model-summarizer.js";
import { createRecallTools, type RecallTool } from "./tools/recall-tools.js";

export const LOSSLESS_ENGINE_VERSION = "0.1.0";

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
  private readonly parts: StoreParts | undefined;
  private readonly budgets: SessionBudgets;
  private disposed = false;
  private readonly conversations: ConversationSessions;
  private readonly subagents: SubagentAccess;
  /** Assembly per turn, with digests of history left out while the view does not fit. */
  private readonly turns: TurnAssembler;

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
    this.budgets = new SessionBudgets({ ...this.options, counter: this.options.tokenCounter });
    this.turns = new TurnAssembler({ ...this.options, counter: this.options.tokenCounter });
    this.parts = store === undefined ? undefined : createStoreParts(store, this.options);
    this.conversations = new ConversationSessions({
      store: () => (this.disposed ? undefined : this.store),
      logger: this.options.logger,
    });
    this.subagents = new SubagentAccess({
      store: () => (this.disposed ? undefined : this.store),
      now: this.options.now,
      grantTtlMs: this.options.subagentGrantTtlMs,
      logger: this.options.logger,
    });
  }

  /**
   * The store's state and one session's figures with its newest flight-recorder records (assembly
   * records still queued are written first). Never throws: an unusable store answers
   * `store.available: false` with the reason, and an unknown session answers zeros.
   */
  async inspect(sessionId: string, sessionKey?: string): Promise<LosslessSessionReport> {
    await this.parts?.recorder.flush();
    if (this.disposed) return readSessionReport(undefined, "the engine is disposed", sessionId);
    const report = await readSessionReport(this.store, this.storeFailure, sessionId);
    const earlier = await this.conversations.earlier(
      sessionId,
      sessionKey ?? this.conversations.keyOf(sessionId),
    );
    return {
      ...report,
      summarySpend: await this.spendReport(sessionId),
      ...(earlier === undefined ? {} : { earlierSessions: earlier.length }),
    };
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
    await this.parts?.preparation.idle();
  }

  /** The status section (`/status`, `clew context`): store, view, last compaction, last assembly. */
  async describeStatus(params: {
    sessionId: string;
    sessionKey?: string;
  }): Promise<ContextEngineStatusSection> {
    const report = await this.inspect(params.sessionId, params.sessionKey);
    return {
      title: "Lossless store",
      lines: formatStatusLines(report, this.options.now()),
      data: { ...report },
    };
  }

  async ingest(params: IngestParams): Promise<IngestResult> {
    const ingested = (await this.storeMessages(params.sessionId, [params.message])) > 0;
    await this.conversations.note(params.sessionId, params.sessionKey);
    return { ingested };
  }

  async ingestBatch(params: IngestBatchParams): Promise<IngestBatchResult> {
    const ingestedCount = await this.storeMessages(params.sessionId, params.messages);
    await this.conversations.note(params.sessionId, params.sessionKey);
    return { ingestedCount };
  }

  /** Stores the turn (`messages.slice(prePromptMessageCount)`), or the whole snapshot for a new session. */
  async afterTurn(params: AfterTurnParams): Promise<void> {
    this.noteHost(params.runtimeContext);
    this.budgets.fillGap(params.sessionId, params.tokenBudget);
    await this.parts?.writer.storeTurn(params);
    await this.conversations.note(params.sessionId, params.sessionKey);
  }

  /**
   * Imports the messages of an existing JSONL transcript that the store lacks; ids are stable, so
   * a re-import stores nothing, and a watermark lets a restart read only what was appended since.
   */
  async bootstrap(params: BootstrapParams): Promise<BootstrapResult> {
    this.noteHost(params.runtimeContext);
    this.budgets.fillGap(params.sessionId, params.runtimeContext?.tokenBudget);
    if (this.store === undefined || this.parts === undefined)
      return { bootstrapped: false, reason: `lossless store unavailable: ${this.storeFailure}` };
    const result = await bootstrapFromTranscript({
      store: this.store,
      writer: this.parts.writer,
      logger: this.options.logger,
      sessionId: params.sessionId,
      sessionFile: params.sessionFile,
    });
    await this.conversations.note(params.sessionId, params.sessionKey);
    return result;
  }

  /**
   * Compacts in the background once the view passes `compactionThreshold` of the session's budget:
   * assemble's, else the `tokenBudget` of `afterTurn` or of `runtimeContext` in `maintain` and
   * `bootstrap` (a host's first maintain comes before its first assemble), else the default.
   */
  async maintain(params: MaintainParams): Promise<ContextEngineMaintenanceResult> {
    this.noteHost(params.runtimeContext);
    this.budgets.fillGap(params.sessionId, params.runtimeContext?.tokenBudget);
    const parts = this.parts;
    if (parts === undefined) return NO_MAINTENANCE;
    try {
      const view = await parts.views.get(params.sessionId);
      const target = this.budgets.sessionTarget(params.sessionId);
      if (view.assembledTokens <= target.targetTokens * this.options.compactionThreshold)
        return NO_MAINTENANCE;
      const outcome = await parts.compactions.run({
        sessionId: params.sessionId,
        target,
        force: true,
        signal: params.abortSignal,
        trigger: "maintain",
      });
      // Told to the host (a Clew extension other hosts ignore), so its count sees this compaction.
      if (outcome.tokensAfter < outcome.tokensBefore)
        return {
          ...NO_MAINTENANCE,
          compaction: { tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter },
        };
    } catch (error) {
      if (isAbortForSignal(error, params.abortSignal)) throw error;
      this.options.logger.warn("lossless: background compaction failed", { error: describeError(error) });
    } finally {
      if (params.abortSignal?.aborted !== true) this.schedulePreparation(parts, params.sessionId);
      await parts.meaning?.warm(parts.store, params.sessionId);
      await this.afterMaintenance(parts);
    }
    return NO_MAINTENANCE;
  }

  /** Prepares, in the background, the summaries of chunks that left the fresh tail (see `src/prepare/`). */
  private schedulePreparation(parts: StoreParts, sessionId: string): void {
    if (this.disposed) return;
    parts.preparation.schedule(sessionId, async () => ({
      view: await parts.views.get(sessionId),
      budgetTokens: this.budgets.sessionTarget(sessionId).budgetTokens,
    }));
  }

  /**
   * Writes queued assembly records, settles the store (deferred indexing, journal size) and runs
   * upkeep when due; none of it ever throws.
   */
  private async afterMaintenance(parts: StoreParts): Promise<void> {
    await parts.recorder.flush();
    try {
      await parts.store.settle();
    } catch (error) {
      this.options.logger.warn("lossless: store read failed", { error: describeError(error) });
    }
    await parts.upkeep.runIfDue();
  }

  async assemble(params: AssembleParams): Promise<AssembleResult> {
    this.noteHost(params.runtimeContext);
    const started = this.options.elapsed();
    const budget =
      this.budgets.remember(params.sessionId, params.tokenBudget) ?? this.options.defaultTokenBudget;
    const addition = this.budgets.additionFor(budget, params.availableTools);
    const parts = this.parts;
    if (parts === undefined) return this.passThrough(params.messages);
    try {
      const assembled = await this.turns.assemble(parts, {
        sessionId: params.sessionId,
        messages: params.messages,
        prompt: params.prompt,
        budget,
        usable: this.budgets.usable(budget, addition),
        started,
      });
      return { ...assembled, ...(addition.length === 0 ? {} : { systemPromptAddition: addition }) };
    } catch (error) {
      this.options.logger.warn("lossless: assemble failed; using the host's messages", {
        error: describeError(error),
      });
      return this.passThrough(params.messages);
    }
  }

  async compact(params: CompactParams): Promise<CompactResult> {
    this.noteHost(params.runtimeContext);
    if (this.parts === undefined) return this.delegate(params, this.storeFailure ?? "no store");
    const target = this.budgets.compactTarget(params);
    const force = params.force === true;
    try {
      const outcome = await this.parts.compactions.run({
        sessionId: params.sessionId,
        target,
        force,
        signal: params.abortSignal,
        customInstructions: params.customInstructions,
        trigger: force ? "force" : "compact",
      });
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
   * A `fork` child gets a grant on the parent's history (its rollback deletes it); other modes get
   * nothing. Never throws: without a grant a fork still runs, so problems are logged instead.
   */
  async prepareSubagentSpawn(params: SubagentSpawnParams): Promise<SubagentSpawnPreparation | undefined> {
    return this.subagents.prepare(params);
  }

  /**
   * The user deleted a session: it, and every earlier session of its conversation, leave that
   * conversation, so a new session under the same key reaches none of them. Their messages stay,
   * as the host keeps the deleted transcript; `clew lossless prune` removes them.
   */
  async onSessionDeleted(params: SessionDeletedParams): Promise<void> {
    await this.conversations.deletedByUser(params.sessionId, params.sessionKey);
  }

  /** Ends the child's grant, whatever the reason. */
  async onSubagentEnded(params: SubagentEndedParams): Promise<void> {
    this.subagents.end(params);
  }

  /**
   * recall_search, recall_read and recall_describe, bound to one session. With `sessionKey` they
   * also reach the conversation's earlier sessions (before a `/new` or `/reset`), and (or, without
   * one, by child session id) a forked subagent's tools read its parent's history while its grant
   * lasts.
   */
  tools(scope: { sessionId: string; sessionKey?: string }): RecallTool[] {
    const { sessionId, sessionKey } = scope;
    return createRecallTools({
      sessionId,
      store: () => (this.disposed ? undefined : this.store),
      counter: this.options.tokenCounter,
      ...(this.parts?.meaning === undefined ? {} : { meaning: this.parts.meaning }),
      parent: () => this.subagents.parentFor(scope),
      ...(sessionKey === undefined
        ? {}
        : { earlier: async () => (await this.conversations.earlier(sessionId, sessionKey)) ?? [] }),
    });
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    this.parts?.views.clear();
    this.parts?.evidence.clear();
    this.parts?.meaning?.clear();
    this.turns.clear();
    this.parts?.upkeep.stop();
    await this.parts?.preparation.stop();
    await this.parts?.compactions.settled();
    await this.parts?.recorder.close();
    await this.store?.close();
  }

  /** Binds the host's model call for a `"host-model"` summarizer (see `HostModelSummarizer`). */
  private noteHost(runtimeContext: ContextEngineRuntimeContext | undefined): void {
    const summarizer = this.options.summarizer;
    if (summarizer instanceof HostModelSummarizer) summarizer.offer(runtimeContext);
  }

  /** Stores messages not stored yet; returns how many were new (0 without a store or on a store error). */
  private async storeMessages(sessionId: string, messages: readonly AgentMessage[]): Promise<number> {
    return (await this.parts?.writer.store(sessionId, messages)) ?? 0;
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
