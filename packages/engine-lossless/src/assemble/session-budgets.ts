/**
 * The engine's budget arithmetic, shared by assembly and compaction so both work toward the same
 * figure: the last budget each session was assembled with, the recall policy that goes in front
 * of the system prompt (the "addition"), and what is left for the conversation once the addition
 * and the safety margin are taken off. None of it reads the store or throws.
 */
import type { CompactParams, TokenCounter } from "@clew/core";
import { type CompactionTarget, compactionTarget } from "../compaction/compaction-target.js";
import { recallPolicy } from "../recall-policy.js";

/** The recall policy is left out of contexts where it would take more than this share. */
const MAX_ADDITION_SHARE = 0.1;

export interface SessionBudgetOptions {
  counter: TokenCounter;
  /** Share of the budget kept free (`budgetMargin`). */
  budgetMargin: number;
  /** The budget of a session never assembled in this process. */
  defaultTokenBudget: number;
}

export class SessionBudgets {
  private readonly remembered = new Map<string, number>();
  /** Token counts of the (few, constant) addition texts. */
  private readonly additionTokens = new Map<string, number>();

  constructor(private readonly options: SessionBudgetOptions) {}

  /**
   * Keeps `tokenBudget` (floored) as the session's budget and returns it; a missing, non-finite or
   * non-positive budget is ignored and answers undefined.
   */
  remember(sessionId: string, tokenBudget: number | undefined): number | undefined {
    if (typeof tokenBudget !== "number" || !Number.isFinite(tokenBudget) || tokenBudget <= 0)
      return undefined;
    const budget = Math.floor(tokenBudget);
    this.remembered.set(sessionId, budget);
    return budget;
  }

  /**
   * Keeps `tokenBudget` only when the session has none yet: the whole-context budget a host gives
   * `afterTurn`, `maintain` and `bootstrap` fills a gap, while the budget assembly was given (net
   * of the system prompt) is the better figure.
   */
  fillGap(sessionId: string, tokenBudget: unknown): void {
    if (this.remembered.has(sessionId) || typeof tokenBudget !== "number") return;
    this.remember(sessionId, tokenBudget);
  }

  /**
   * The recall policy, or nothing when it would take more than `MAX_ADDITION_SHARE` of the budget
   * (a context that small is better spent on the conversation).
   */
  additionFor(budget: number, availableTools: ReadonlySet<string> | undefined): string {
    const policy = recallPolicy(availableTools);
    return this.tokensOf(policy) <= budget * MAX_ADDITION_SHARE ? policy : "";
  }

  /** What assembly may fill: the budget less the addition and the safety margin (never below 0). */
  usable(budget: number, addition: string): number {
    return Math.max(0, budget - this.tokensOf(addition) - Math.ceil(budget * this.options.budgetMargin));
  }

  /**
   * The target of a threshold compaction: the session's budget, as assembly would fill it
   * (`defaultTokenBudget` while no host has named one).
   */
  sessionTarget(sessionId: string): CompactionTarget {
    const budgetTokens = this.remembered.get(sessionId) ?? this.options.defaultTokenBudget;
    return { budgetTokens, targetTokens: this.usableWithoutTools(budgetTokens), source: "session" };
  }

  /** The target of a host-requested compaction (see `compactionTarget`). */
  compactTarget(params: CompactParams): CompactionTarget {
    return compactionTarget(
      params,
      this.remembered.get(params.sessionId),
      this.options.defaultTokenBudget,
      (budget) => this.usableWithoutTools(budget),
    );
  }

  private usableWithoutTools(budget: number): number {
    return this.usable(budget, this.additionFor(budget, undefined));
  }

  private tokensOf(text: string): number {
    let tokens = this.additionTokens.get(text);
    if (tokens === undefined) {
      tokens = this.options.counter.countText(text);
      this.additionTokens.set(text, tokens);
    }
    return tokens;
  }
}
