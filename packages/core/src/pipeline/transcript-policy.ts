/**
 * Which history repairs a provider needs before stored messages are replayed to it. Each provider
 * rejects a different set of malformed transcripts (Anthropic: tool ids outside
 * `[A-Za-z0-9_-]{1,64}`, unanswered tool calls, two user turns in a row; Gemini: two model turns in
 * a row or a model turn first; Mistral: ids that are not exactly nine alphanumerics), so the
 * pipeline asks the policy instead of guessing from the transcript.
 */

/** How tool-call ids are rewritten: not at all, Anthropic's rule, or Mistral's nine alphanumerics. */
export type ToolCallIdMode = "none" | "strict" | "strict9";

export interface TranscriptPolicy {
  /** Rewrite tool-call ids (in the call and its result alike) to this provider's id rule. */
  toolCallIdMode: ToolCallIdMode;
  /** Move tool results right after their call and drop duplicate and orphan results. */
  repairToolPairing: boolean;
  /** During repair, answer a call that has no result with a synthetic error result. */
  syntheticToolResults: boolean;
  /** Merge user messages that follow each other into one. */
  mergeConsecutiveUser: boolean;
  /** Merge assistant messages that follow each other into one. */
  mergeConsecutiveAssistant: boolean;
  /** Put a synthetic user message in front when the history starts with an assistant message. */
  assistantFirstFix: boolean;
  /** Remove thinking blocks from assistant messages. */
  dropThinking: boolean;
}

export interface TranscriptPolicyTarget {
  /** The model's wire API (`anthropic-messages`, `openai-completions`, …). */
  api: string;
  /** The model's provider id (`anthropic`, `mistral`, …). */
  provider: string;
}

const GOOGLE_APIS = new Set(["google-generative-ai", "google-vertex", "google-gemini-cli"]);
const RESPONSES_APIS = new Set(["openai-responses", "azure-openai-responses", "openai-codex-responses"]);

const BASE_POLICY: TranscriptPolicy = {
  toolCallIdMode: "none",
  repairToolPairing: true,
  syntheticToolResults: false,
  mergeConsecutiveUser: false,
  mergeConsecutiveAssistant: false,
  assistantFirstFix: false,
  dropThinking: false,
};

/**
 * The transcript policy for a model, from its API and provider (reference §13, transport fallback):
 * - Anthropic Messages: strict ids, synthetic results, merge consecutive user messages.
 * - Google (Gemini, Vertex): strict ids, synthetic results, merge consecutive assistant messages,
 *   assistant-first fix.
 * - OpenAI-compatible completions: strict ids, assistant-first fix, both merges.
 * - OpenAI Responses family: strict ids.
 * - Mistral (provider `mistral` or API `mistral-conversations`): nine-character ids.
 * - Anything else: pairing repair only.
 * Every policy repairs tool pairing, because no provider accepts orphan tool results. Returns a new
 * object on each call; never throws.
 */
export function resolveTranscriptPolicy(target: TranscriptPolicyTarget): TranscriptPolicy {
  const { api, provider } = target;
  if (provider === "mistral" || api === "mistral-conversations") {
    return { ...BASE_POLICY, toolCallIdMode: "strict9" };
  }
  if (api === "anthropic-messages") {
    return {
      ...BASE_POLICY,
      toolCallIdMode: "strict",
      syntheticToolResults: true,
      mergeConsecutiveUser: true,
    };
  }
  if (GOOGLE_APIS.has(api)) {
    return {
      ...BASE_POLICY,
      toolCallIdMode: "strict",
      syntheticToolResults: true,
      mergeConsecutiveAssistant: true,
      assistantFirstFix: true,
    };
  }
  if (api === "openai-completions") {
    return {
      ...BASE_POLICY,
      toolCallIdMode: "strict",
      mergeConsecutiveUser: true,
      mergeConsecutiveAssistant: true,
      assistantFirstFix: true,
    };
  }
  if (RESPONSES_APIS.has(api)) return { ...BASE_POLICY, toolCallIdMode: "strict" };
  return { ...BASE_POLICY };
}
