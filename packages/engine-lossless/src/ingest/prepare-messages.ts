/**
 * Turns messages into store records: identity, canonical JSON, token count (counted here, once,
 * and never again) and creation time.
 */
import type { AgentMessage, TokenCounter } from "@clew/core";
import type { NewStoredMessage } from "../store/store.js";
import { identifyMessages } from "./message-identity.js";

export interface PreparedMessage {
  record: NewStoredMessage;
  message: AgentMessage;
}

export function prepareMessages(
  sessionId: string,
  messages: readonly AgentMessage[],
  counter: TokenCounter,
  now: () => number,
): PreparedMessage[] {
  const ingestedAt = now();
  return identifyMessages(sessionId, messages).map(({ message, json, identity }) => {
    const record = message as unknown as Record<string, unknown>;
    const timestamp = record.timestamp;
    return {
      message,
      record: {
        identity,
        role: typeof record.role === "string" ? record.role : "unknown",
        createdAt: typeof timestamp === "number" && Number.isFinite(timestamp) ? timestamp : ingestedAt,
        tokens: counter.countMessage(message),
        json,
      },
    };
  });
}
