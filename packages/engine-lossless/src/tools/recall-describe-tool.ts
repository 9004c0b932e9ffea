import type { AgentTool } from "@mariozechner/pi-agent-core";
import { type Static, Type } from "typebox";
import {
  type MessageDescription,
  recallDescribe,
  type SummaryDescription,
} from "../recall/recall-describe.js";
import { type RecallScope, requireStore } from "./recall-scope.js";

const parameters = Type.Object({
  id: Type.String({ description: "A summary id (sum_…) or a message id (m12)" }),
});

export type RecallDescribeParameters = Static<typeof parameters>;

/** `recall_describe`: a summary's coverage, children, parent and anchors, or a message's facts. */
export function createRecallDescribeTool(
  scope: RecallScope,
): AgentTool<typeof parameters, SummaryDescription | MessageDescription> {
  return {
    name: "recall_describe",
    label: "Recall describe",
    description:
      "Describe a summary (which messages it covers, its child summaries and its anchors: exact paths, ids, " +
      "commands and numbers with the messages they come from) or a message (which summaries cover it).",
    parameters,
    async execute(_toolCallId, params) {
      const description = await recallDescribe(requireStore(scope), scope.sessionId, params.id);
      return { content: [{ type: "text", text: formatDescription(description) }], details: description };
    },
  };
}

function formatDescription(description: SummaryDescription | MessageDescription): string {
  if (description.kind === "message") {
    const covered =
      description.summarizedBy.length === 0
        ? "not summarized"
        : `summarized by ${description.summarizedBy.join(", ")}`;
    return `${description.id}: ${description.role} message, ${description.createdAt}, ${description.tokens} tokens, ${covered}.`;
  }
  const anchors = description.anchors.map((anchor) => `- ${anchor.value} (${anchor.messages.join(", ")})`);
  const more =
    description.anchorCount > anchors.length
      ? [`- …and ${description.anchorCount - anchors.length} more`]
      : [];
  return [
    `${description.id}: ${description.summaryKind} summary, depth ${description.depth}`,
    `covers ${description.covers} (${description.messageCount} messages, ${description.sourceTokens} tokens) from ${description.from} to ${description.to}`,
    `children: ${description.children.length === 0 ? "none" : description.children.join(", ")}`,
    `parent: ${description.parent ?? "none"}; written by ${description.summarizer}`,
    `anchors (${description.anchorCount}):`,
    ...anchors,
    ...more,
    "",
    description.content,
  ].join("\n");
}
