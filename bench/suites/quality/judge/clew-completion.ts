/**
 * The judge's completion function over Clew's own providers: the model is resolved from the
 * user's `clew.json` exactly as `clew chat --model <ref>` resolves it (provider entries, base URL,
 * API key variables), and each call is one pi-ai call through `@clew/agent`'s `callModel`.
 */

import { callModel, type ModelRequest, replyText, resolveModel } from "@clew/agent";
import { type AgentMessage, loadConfig } from "@clew/core";
import type { JudgeCompletion } from "./judge.js";

export interface ClewCompletionOptions {
  /** `provider/model-id`. */
  model: string;
  /** Folder holding `clew.json`. */
  clewHome: string;
  /** Where API keys are read (usually `process.env`). */
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Resolves the model once and returns its completion function. Throws `ConfigError` for an
 * unreadable or invalid `clew.json`, and `ModelConfigError` naming the setting or variable to set
 * when the model cannot be resolved (unknown provider, missing base URL or API key). The function
 * rejects with `ModelCallError` when the provider answered with an error (after the SDK's own
 * retries) or the reply stopped as aborted.
 */
export async function createClewCompletion(options: ClewCompletionOptions): Promise<JudgeCompletion> {
  const { config, path } = await loadConfig(options.clewHome);
  const resolved = resolveModel(config, {
    agentId: "main",
    sessionModel: options.model,
    purpose: "chat",
    env: options.env,
    configPath: path,
  });
  return async (request) => {
    const reply = await callModel(
      resolved,
      { systemPrompt: request.systemPrompt, messages: providerMessages(request.messages), tools: [] },
      { maxTokens: request.maxTokens },
    );
    return replyText(reply, resolved);
  };
}

/**
 * The host's pipeline has already turned custom messages (summaries, bash runs) into model
 * roles before the engine assembled; anything else could not be sent to a provider.
 */
function providerMessages(messages: readonly AgentMessage[]): ModelRequest["messages"] {
  return messages.filter((message): message is ModelRequest["messages"][number] => {
    const role = (message as { role?: unknown }).role;
    return role === "user" || role === "assistant" || role === "toolResult";
  });
}
