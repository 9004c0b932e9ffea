/**
 * Which context window a run budgets against, resolved the way OpenClaw does: the configured
 * value, else the model catalog, else 200,000 tokens; then capped by `contextTokens` when that is
 * smaller.
 */
import type { KnownProvider } from "@mariozechner/pi-ai";

/** The window assumed when neither config nor catalog knows the model. */
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 200_000;

export type ContextWindowSource = "config" | "catalog" | "default" | "cap";

export interface ContextWindowInputs {
  /** The model's window from config (`models.providers.<p>.models[id].contextTokens ?? contextWindow`). */
  configured?: number;
  /** The model's window from the catalog (`catalogContextWindow`). */
  catalog?: number;
  /** `agents.defaults.contextTokens`: a budget below the model's window. */
  contextTokensCap?: number;
}

export interface ResolvedContextWindow {
  tokens: number;
  source: ContextWindowSource;
}

/**
 * Resolves the window. Absent (`undefined`) inputs are skipped; fractional values are floored.
 *
 * @throws RangeError naming the field when a given value is not a positive finite number: a zero or
 *   NaN window would silently turn every budget into nonsense.
 */
export function resolveContextWindow(inputs: ContextWindowInputs): ResolvedContextWindow {
  const configured = checkedTokens(inputs.configured, "configured");
  const catalog = checkedTokens(inputs.catalog, "catalog");
  const cap = checkedTokens(inputs.contextTokensCap, "contextTokensCap");
  const base: ResolvedContextWindow =
    configured !== undefined
      ? { tokens: configured, source: "config" }
      : catalog !== undefined
        ? { tokens: catalog, source: "catalog" }
        : { tokens: DEFAULT_CONTEXT_WINDOW_TOKENS, source: "default" };
  if (cap !== undefined && cap < base.tokens) return { tokens: cap, source: "cap" };
  return base;
}

/**
 * The context window pi-ai's model catalog lists for `provider`/`modelId`, or undefined when the
 * provider or model is unknown (or the entry has no usable window). Never throws. Async because
 * pi-ai loads every provider SDK on import, which core must not pay for at start-up.
 */
export async function catalogContextWindow(provider: string, modelId: string): Promise<number | undefined> {
  try {
    const { getModels } = await import("@mariozechner/pi-ai");
    // getModels answers [] for a provider it does not know, so the cast cannot lead to a throw.
    const model = getModels(provider as KnownProvider).find((entry) => entry.id === modelId);
    const window = model?.contextWindow;
    return typeof window === "number" && Number.isFinite(window) && window > 0 ? window : undefined;
  } catch {
    return undefined;
  }
}

function checkedTokens(value: number | undefined, field: keyof ContextWindowInputs): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 1) {
    throw new RangeError(
      `resolveContextWindow: ${field} must be a positive number of tokens, got ${String(value)}`,
    );
  }
  return Math.floor(value);
}
