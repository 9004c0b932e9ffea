import type { AgentMessage } from "../messages.js";
import { countMessagesTokens } from "../tokens/estimate.js";
import { chooseToolResultCap } from "./choose-tool-result-cap.js";
import type { CompactionOutcome, CompactionRequest } from "./compaction.js";
import type { ContextEngineHost, HostModel } from "./context-engine-host.js";
import { MAX_OVERFLOW_COMPACTION_ATTEMPTS, PRECHECK_SAFETY_MARGIN } from "./host-options.js";
import type { PreparedContext } from "./prepare-context.js";

export interface OverflowRecoveryOptions {
  host: ContextEngineHost;
  model: HostModel;
  /** Compacts the turn's session (the caller adopts the successor and reloads history). */
  compact(request: CompactionRequest): Promise<CompactionOutcome>;
  signal?: AbortSignal;
}

export interface OverflowRecoveryAnswer {
  retry: boolean;
  /** Why compaction could not make room, for the overflow error. */
  compactionReason?: string;
}

/**
 * What a turn does when a request does not fit, in OpenClaw's order: compaction toward the budget
 * (at most 3 per model call), then cutting oversized tool results in the request (head and tail
 * with a marker) to a cap that fits the check's budget. After a provider overflow the cut happens
 * once (the estimate already fit, so a smaller cap would be a guess); after a precheck overflow the
 * cap tightens until nothing is left to cut. When the turn's new messages alone exceed the budget,
 * nothing is compacted: no summary could make room, and raw history would be lost for nothing.
 *
 * Never touches stored history itself: compaction appends an entry, the cap is request-only.
 * Every answer either shrinks the request or says not to retry, so a turn always terminates.
 */
export class OverflowRecovery {
  private compactionAttempts = 0;
  private cap: number | undefined;

  constructor(private readonly options: OverflowRecoveryOptions) {}

  /** The tool-result cap (characters) in force for the rest of the turn, if any. */
  get toolResultCap(): number | undefined {
    return this.cap;
  }

  /** A model call went through: the next one gets its own compaction attempts, as pi's in-loop compactions do. */
  stepSucceeded(): void {
    this.compactionAttempts = 0;
  }

  /** Makes room for `prepared` plus `pending`; says whether to retry the call. */
  async recover(
    prepared: PreparedContext,
    pending: readonly AgentMessage[],
    trigger: "precheck" | "overflow",
    figures: { tokenBudget: number; currentTokenCount?: number },
  ): Promise<OverflowRecoveryAnswer> {
    const { host } = this.options;
    const fixedTokens =
      host.tokenCounter.countText(prepared.systemPrompt) + countMessagesTokens(host.tokenCounter, pending);
    if (Math.ceil(fixedTokens * PRECHECK_SAFETY_MARGIN) > prepared.promptBudgetTokens) {
      return {
        retry: false,
        compactionReason: `the system prompt and the new messages alone take about ${fixedTokens} tokens, over the budget of ${prepared.promptBudgetTokens}`,
      };
    }
    let compactionReason: string | undefined;
    if (this.compactionAttempts < MAX_OVERFLOW_COMPACTION_ATTEMPTS) {
      this.compactionAttempts += 1;
      const outcome = await this.options.compact({
        trigger,
        compactionTarget: "budget",
        model: this.options.model,
        ...figures,
        ...(this.options.signal === undefined ? {} : { signal: this.options.signal }),
      });
      if (outcome.result.compacted) return { retry: true };
      compactionReason = outcome.result.reason;
    }
    const cap =
      trigger === "overflow" && this.cap !== undefined ? undefined : this.nextCap(prepared, fixedTokens);
    if (cap !== undefined) {
      this.cap = cap;
      return { retry: true };
    }
    return compactionReason === undefined ? { retry: false } : { retry: false, compactionReason };
  }

  private nextCap(prepared: PreparedContext, fixedTokens: number): number | undefined {
    const { host } = this.options;
    return chooseToolResultCap({
      messages: prepared.messages,
      fixedTokens,
      budgetTokens: prepared.promptBudgetTokens,
      contextWindow: host.contextWindow(this.options.model),
      counter: host.tokenCounter,
      ...(this.cap === undefined ? {} : { currentCap: this.cap }),
    });
  }
}
