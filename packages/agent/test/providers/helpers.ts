/** Builds resolved models that point at a fake provider, through the real `resolveModel`. */

import type { FakeProvider } from "@clew/agent/testing";
import type { AssistantMessage, Message, Tool } from "@mariozechner/pi-ai";
import { Type } from "typebox";
import { type ResolvedModel, resolveModel } from "../../src/providers/resolve-model.js";

/** $ per million tokens, chosen so costs are easy to check by hand. */
export const FAKE_PRICES = { input: 2, output: 10, cacheRead: 0.5, cacheWrite: 0 };

export const FAKE_CONTEXT_WINDOW = 1_000;

/** A custom provider `fake` speaking the fake's protocol, with one configured model. */
export function resolveFake(fake: FakeProvider): ResolvedModel {
  return resolveModel(
    {
      models: {
        providers: {
          fake: {
            api: fake.protocol,
            baseUrl: fake.baseUrl,
            models: [
              { id: "fake-model", cost: FAKE_PRICES, contextWindow: FAKE_CONTEXT_WINDOW, maxTokens: 256 },
            ],
          },
        },
      },
      agents: { defaults: { model: "fake/fake-model" } },
    },
    { agentId: "main", purpose: "chat", env: {} },
  );
}

export const READ_TOOL: Tool = {
  name: "read_file",
  description: "Read a file from the workspace.",
  parameters: Type.Object({ path: Type.String({ description: "Relative path" }) }),
};

export function userMessage(text: string): Message {
  return { role: "user", content: text, timestamp: 1 };
}

/**
 * A finished tool round of `resolved`'s own model (so pi-ai keeps ids as they are): the model
 * asked for `read_file`, the tool answered.
 */
export function toolRound(resolved: ResolvedModel, toolCallId: string): Message[] {
  const assistant: AssistantMessage = {
    role: "assistant",
    content: [{ type: "toolCall", id: toolCallId, name: "read_file", arguments: { path: "notes.txt" } }],
    api: resolved.model.api,
    provider: resolved.model.provider,
    model: resolved.model.id,
    usage: {
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 2,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "toolUse",
    timestamp: 2,
  };
  return [
    assistant,
    {
      role: "toolResult",
      toolCallId,
      toolName: "read_file",
      content: [{ type: "text", text: "port=8080" }],
      isError: false,
      timestamp: 3,
    },
  ];
}
