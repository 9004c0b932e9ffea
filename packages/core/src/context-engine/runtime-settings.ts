import type { ContextEngineReasonCode, ContextEngineRuntimeSettings } from "./types.js";

export interface RuntimeSettingsInput {
  host?: string;
  mode?: "normal" | "fallback" | "degraded";
  harnessId?: unknown;
  runtimeId?: unknown;
  requestedModel?: unknown;
  resolvedModel?: unknown;
  provider?: unknown;
  /** Only when attested by the provider catalog; a model id does not imply a family. */
  family?: unknown;
  selectedEngineId?: unknown;
  executionHost?: { id?: unknown; label?: unknown };
  promptTokenBudget?: unknown;
  maxOutputTokens?: unknown;
  fallbackReason?: unknown;
  degradedReason?: unknown;
}

const REASON_CODES: readonly ContextEngineReasonCode[] = [
  "provider_timeout",
  "provider_unavailable",
  "rate_limited",
  "context_overflow",
  "runtime_unavailable",
  "unknown",
];

/**
 * Builds schema v1 of the run facts. Strings are trimmed and empty ones become null; numbers must
 * be finite; free-text reasons are folded into the closed reason codes. The discriminators
 * (`mode`, `source`) are never null.
 */
export function buildContextEngineRuntimeSettings(input: RuntimeSettingsInput): ContextEngineRuntimeSettings {
  const requested = text(input.requestedModel);
  const resolved = text(input.resolvedModel) ?? requested;
  const fallbackReason = reasonCode(input.fallbackReason);
  const degradedReason = reasonCode(input.degradedReason);
  const selectedId = text(input.selectedEngineId);
  return {
    schemaVersion: 1,
    runtime: {
      host: text(input.host) ?? "clew",
      mode: input.mode ?? inferMode(fallbackReason, degradedReason, requested, resolved),
      harnessId: text(input.harnessId),
      runtimeId: text(input.runtimeId),
    },
    model: { requested, resolved, provider: text(input.provider), family: text(input.family) },
    contextEngineSelection: {
      selectedId,
      source: selectedId === null ? "unknown" : selectedId === "legacy" ? "default" : "configured",
    },
    executionHost: { id: text(input.executionHost?.id), label: text(input.executionHost?.label) },
    limits: {
      promptTokenBudget: finite(input.promptTokenBudget),
      maxOutputTokens: finite(input.maxOutputTokens),
    },
    diagnostics: { fallbackReason, degradedReason },
  };
}

/** Folds a free-text reason into a closed code; the order of the tests matters. */
export function normalizeReasonCode(value: string): ContextEngineReasonCode {
  if ((REASON_CODES as readonly string[]).includes(value)) return value as ContextEngineReasonCode;
  const lower = value.toLowerCase();
  if (lower.includes("timeout")) return "provider_timeout";
  if (lower.includes("rate") || lower.includes("limit") || lower.includes("429")) return "rate_limited";
  if (lower.includes("overflow") || lower.includes("context") || lower.includes("pressure"))
    return "context_overflow";
  if (lower.includes("runtime")) return "runtime_unavailable";
  if (lower.includes("provider") || lower.includes("primary") || lower.includes("unavailable")) {
    return "provider_unavailable";
  }
  return "unknown";
}

function inferMode(
  fallbackReason: ContextEngineReasonCode | null,
  degradedReason: ContextEngineReasonCode | null,
  requested: string | null,
  resolved: string | null,
): "normal" | "fallback" | "degraded" {
  if (degradedReason !== null) return "degraded";
  if (fallbackReason !== null) return "fallback";
  if (requested !== null && resolved !== null && requested !== resolved) return "fallback";
  return "normal";
}

function reasonCode(value: unknown): ContextEngineReasonCode | null {
  const reason = text(value);
  return reason === null ? null : normalizeReasonCode(reason);
}

function text(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const trimmed = value.trim();
  return trimmed.length > 0 ? trimmed : null;
}

function finite(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}
