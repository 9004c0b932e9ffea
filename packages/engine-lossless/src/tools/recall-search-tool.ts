import type { AgentTool } from "@mariozechner/pi-agent-core";
import { type Static, Type } from "typebox";
import { isoTime } from "../recall/message-text.js";
import { type RecallHit, recallSearch } from "../recall/recall-search.js";
import { type RecallScope, requireStore } from "./recall-scope.js";

const DEFAULT_LIMIT = 8;

const parameters = Type.Object({
  query: Type.String({
    description: "Words, codes, paths, commands or error text to look for; results match any of them",
  }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: "Most results (default 8)" })),
});

export type RecallSearchParameters = Static<typeof parameters>;

export interface RecallSearchDetails {
  hits: RecallHit[];
}

/**
 * `recall_search`: finds earlier messages and summaries of this conversation (BM25 over message
 * text, summary text and anchors, fused by rank). Returns ids for recall_read and recall_describe.
 */
export function createRecallSearchTool(
  scope: RecallScope,
): AgentTool<typeof parameters, RecallSearchDetails> {
  return {
    name: "recall_search",
    label: "Recall search",
    description:
      "Search the whole stored history of this conversation, including parts shown only as summaries. " +
      "Returns message ids (m12) and summary ids (sum_…) with snippets; read them with recall_read.",
    parameters,
    async execute(_toolCallId, params) {
      const hits = await recallSearch(
        requireStore(scope),
        scope.sessionId,
        params.query,
        params.limit ?? DEFAULT_LIMIT,
      );
      return { content: [{ type: "text", text: formatHits(params.query, hits) }], details: { hits } };
    },
  };
}

function formatHits(query: string, hits: readonly RecallHit[]): string {
  if (hits.length === 0) return `No stored message or summary matches "${query}".`;
  const lines = hits.map((hit, index) => {
    const what = hit.kind === "message" ? `message, ${hit.role ?? "?"}` : "summary";
    const anchors =
      hit.anchors === undefined
        ? ""
        : `\n   anchors: ${hit.anchors.map((anchor) => `${anchor.value} (${anchor.messages.join(", ")})`).join("; ")}`;
    return `${index + 1}. ${hit.id} (${what}, ${isoTime(hit.createdAt)}; matched by ${hit.matchedBy.join(", ")})\n   ${hit.snippet}${anchors}`;
  });
  return `${hits.length} results for "${query}":\n${lines.join("\n")}`;
}
