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

/**
 * Records of `messages`, one list; `seen` carries identity ordinals over from earlier parts of the
 * same list (see `identifyMessages`), and `ingestedAt` is the creation time of messages without
 * a timestamp of their own.
 */
export function prepareMessages(
  sessionId: string,
  messages: readonly AgentMessage[],
  counter: TokenCounter,
  ingestedAt: number,
  seen?: Map<string, number>,
): PreparedMessage[] {
  return identifyMessages(sessionId, messages, seen).map(({ message, json, identity }) => {
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
        ...(typeof timestamp === "number" ? { timestamp } : {}),
      },
    };
  });
}
