import type { AgentTool } from "@mariozechner/pi-agent-core";
import { type Static, Type } from "typebox";
import { DEFAULT_READ_TOKENS, MAX_READ_TOKENS, type RecallPage, recallRead } from "../recall/recall-read.js";
import { type RecallScope, requireStore } from "./recall-scope.js";

const parameters = Type.Object({
  summaryId: Type.Optional(
    Type.String({ description: "Read the original messages under this summary (sum_…)" }),
  ),
  messageIds: Type.Optional(Type.Array(Type.String(), { description: "Read these messages (m12, m13, …)" })),
  from: Type.Optional(Type.String({ description: "Read messages from this time (ISO 8601)" })),
  to: Type.Optional(Type.String({ description: "Read messages up to this time (ISO 8601)" })),
  cursor: Type.Optional(Type.String({ description: "nextCursor of the previous page, to continue" })),
  maxTokens: Type.Optional(
    Type.Integer({
      minimum: 200,
      maximum: MAX_READ_TOKENS,
      description: `Page size in tokens (default ${DEFAULT_READ_TOKENS})`,
    }),
  ),
});

export type RecallReadParameters = Static<typeof parameters>;

/**
 * `recall_read`: the stored messages, exactly as they were, under a summary id, by message ids or
 * in a time range; paginated within a token bound.
 */
export function createRecallReadTool(scope: RecallScope): AgentTool<typeof parameters, RecallPage> {
  return {
    name: "recall_read",
    label: "Recall read",
    description:
      "Read earlier messages of this conversation verbatim: give one of summaryId, messageIds, or from/to. " +
      "Long results come in pages; pass nextCursor to continue.",
    parameters,
    async execute(_toolCallId, params) {
      const page = await recallRead(requireStore(scope), scope.sessionId, scope.counter, params);
      const body = page.messages.map((message) => message.text).join("\n\n");
      const more =
        page.nextCursor === undefined
          ? ""
          : `\n\n[More: call recall_read again with cursor "${page.nextCursor}"]`;
      const text = page.messages.length === 0 ? "No stored messages match." : `${body}${more}`;
      return { content: [{ type: "text", text }], details: page };
    },
  };
}
