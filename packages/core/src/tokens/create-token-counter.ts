import type { ClewConfig } from "../config/types.js";
import { withSafetyFactor, withTokenCache } from "./cached-counter.js";
import { charEstimateTokenCounter } from "./estimate.js";
import { loadO200kTokenCounter } from "./o200k-counter.js";
import type { TokenCounter } from "./token-counter.js";

export type TokenCounterKind = "estimate" | "o200k";

/**
 * The counter config asks for (`agents.defaults.tokens`): `counter` is `estimate` (OpenClaw's
 * `ceil(chars/4)`, the default) or `o200k` (exact, loaded on demand), scaled by `safetyFactor`
 * (default 1) and cached per message.
 */
export async function createTokenCounter(config: ClewConfig | undefined): Promise<TokenCounter> {
  const settings = config?.agents?.defaults?.tokens;
  const kind: TokenCounterKind = settings?.counter ?? "estimate";
  const base = kind === "o200k" ? await loadO200kTokenCounter() : charEstimateTokenCounter;
  const factor = settings?.safetyFactor ?? 1;
  return withTokenCache(withSafetyFactor(base, factor));
}
