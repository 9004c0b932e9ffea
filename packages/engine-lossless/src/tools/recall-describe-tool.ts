import type { AgentTool } from "@mariozechner/pi-agent-core";
import { type Static, Type } from "typebox";
import { parseMessageLabel } from "../recall/message-text.js";
import {
  type MessageDescription,
  recallDescribe,
  type SummaryDescription,
} from "../recall/recall-describe.js";
import { earlierIdsNote, earlierTarget, requireEarlier, splitEarlierId } from "./earlier-sessions.js";
import { outOfScope, parentTarget, requireParent, splitRecallId, summaryTarget } from "./parent-recall.js";
import { type RecallScope, requireStore } from "./recall-scope.js";
import { descriptionWithIds, headingOf, type RecallTarget } from "./recall-target.js";

const parameters = Type.Object({
  id: Type.String({ description: "A summary id (sum_…) or a message id (m12)" }),
});

export type RecallDescribeParameters = Static<typeof parameters>;

/**
 * `recall_describe`: a summary's coverage, children, parent and anchors, or a message's facts. A
 * forked subagent describes its parent's summaries and messages by `parent:` ids (and bare summary
 * ids it inherited from the parent), within its grant; earlier sessions of the conversation are
 * described by `prev1:` ids (and bare summary ids only they hold).
 */
export function createRecallDescribeTool(
  scope: RecallScope,
): AgentTool<typeof parameters, SummaryDescription | MessageDescription> {
  return {
    name: "recall_describe",
    label: "Recall describe",
    description:
      "Describe a summary (which messages it covers, its child summaries and its anchors: exact paths, ids, " +
      "commands and numbers with the messages they come from) or a message (which summaries cover it)." +
      earlierIdsNote(scope),
    parameters,
    async execute(_toolCallId, params) {
      const { target, id } = await describeTarget(scope, params.id);
      const found = await recallDescribe(target.store, target.sessionId, id).catch((error: unknown) => {
        // The store's message names the bare id: say which history it was looked for in.
        if (target.other === undefined || !(error instanceof Error)) throw error;
        // A function as replacement: the id comes from the model, and `$&` in a string means more.
        const named = error.message.replace(`"${id}"`, () => `"${params.id.trim()}"`);
        throw new Error(`${target.other.label}: ${named}`);
      });
      const description = descriptionWithIds(found, target);
      // The summary's own text names messages as its session does; say how to read them from here.
      const idsNote =
        target.other === undefined || description.kind !== "summary"
          ? ""
          : `Message ids in the text below are its own: write m12 as ${target.other.prefix}m12.\n`;
      return {
        content: [
          { type: "text", text: `${headingOf(target, "\n")}${idsNote}${formatDescription(description)}` },
        ],
        details: description,
      };
    },
  };
}

async function describeTarget(scope: RecallScope, id: string): Promise<{ target: RecallTarget; id: string }> {
  const own: RecallTarget = { store: requireStore(scope), sessionId: scope.sessionId };
  const earlier = splitEarlierId(id);
  if (earlier !== undefined && !earlier.id.startsWith("sum_"))
    return { target: earlierTarget(await requireEarlier(scope, earlier.index)), id: earlier.id };
  const split = splitRecallId(id);
  if ((earlier?.id ?? split.id).startsWith("sum_")) {
    const { target, summaryId } = await summaryTarget(scope, own, id);
    return { target, id: summaryId };
  }
  if (!split.fromParent) return { target: own, id: split.id };
  const parent = requireParent(scope);
  const seq = parseMessageLabel(split.id);
  if (seq !== undefined && seq > parent.maxSeq) throw outOfScope(parent, seq);
  return { target: parentTarget(parent), id: split.id };
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
