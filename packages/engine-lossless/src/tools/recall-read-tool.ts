import type { AgentTool } from "@mariozechner/pi-agent-core";
import { type Static, Type } from "typebox";
import { parseMessageLabel } from "../recall/message-text.js";
import {
  DEFAULT_READ_TOKENS,
  MAX_READ_TOKENS,
  type RecallPage,
  type RecallReadRequest,
  recallRead,
} from "../recall/recall-read.js";
import {
  outOfScope,
  parentAccessNote,
  parentId,
  parentTarget,
  type RecallTarget,
  requireParent,
  splitRecallId,
  summaryTarget,
} from "./parent-recall.js";
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

/** A page, with the conversation it comes from; parent pages carry `parent:` ids. */
export interface RecallReadDetails extends RecallPage {
  session: "current" | "parent";
}

/**
 * `recall_read`: the stored messages, exactly as they were, under a summary id, by message ids or
 * in a time range; paginated within a token bound. A forked subagent reads its parent's messages
 * by `parent:` ids (time ranges read its own history); ids beyond its grant, or any parent id once
 * the grant ended or expired, fail with a `ParentRecallError` naming the reason.
 */
export function createRecallReadTool(scope: RecallScope): AgentTool<typeof parameters, RecallReadDetails> {
  return {
    name: "recall_read",
    label: "Recall read",
    description:
      "Read earlier messages of this conversation verbatim: give one of summaryId, messageIds, or from/to. " +
      `Long results come in pages; pass nextCursor to continue.${parentAccessNote(scope)}`,
    parameters,
    async execute(_toolCallId, params) {
      const { target, request } = await readTarget(scope, params);
      const page = await recallRead(target.store, target.sessionId, scope.counter, request);
      const details =
        target.parent === undefined ? { ...page, session: "current" as const } : asParentPage(page);
      const body = details.messages.map((message) => message.text).join("\n\n");
      const more =
        page.nextCursor === undefined
          ? ""
          : `\n\n[More: call recall_read again with cursor "${page.nextCursor}"]`;
      const from =
        target.parent === undefined ? "" : `From the parent conversation ${target.parent.sessionKey}:\n\n`;
      const text = page.messages.length === 0 ? "No stored messages match." : `${from}${body}${more}`;
      return { content: [{ type: "text", text }], details };
    },
  };
}

async function readTarget(
  scope: RecallScope,
  params: RecallReadParameters,
): Promise<{ target: RecallTarget; request: RecallReadRequest }> {
  const own: RecallTarget = { store: requireStore(scope), sessionId: scope.sessionId };
  if (params.summaryId !== undefined) {
    const { target, summaryId } = await summaryTarget(scope, own, params.summaryId);
    return { target, request: { ...params, summaryId } };
  }
  if (params.messageIds === undefined || params.messageIds.length === 0)
    return { target: own, request: params };
  const split = params.messageIds.map(splitRecallId);
  const fromParent = split.filter((id) => id.fromParent).length;
  if (fromParent === 0) return { target: own, request: params };
  if (fromParent < split.length) {
    throw new Error(
      "recall_read reads one conversation at a time: give only parent: ids or only ids of this conversation",
    );
  }
  const parent = requireParent(scope);
  for (const { id } of split) {
    const seq = parseMessageLabel(id);
    if (seq !== undefined && seq > parent.maxSeq) throw outOfScope(parent, seq);
  }
  return { target: parentTarget(parent), request: { ...params, messageIds: split.map(({ id }) => id) } };
}

/** The page with `parent:` ids, in the details and in each message's header. */
function asParentPage(page: RecallPage): RecallReadDetails {
  return {
    ...page,
    session: "parent",
    messages: page.messages.map((message) => ({
      ...message,
      id: parentId(message.id),
      // Headers read `[m12 · role · time]` (see readingHeader).
      text: message.text.startsWith(`[${message.id} `) ? `[${parentId(message.text.slice(1))}` : message.text,
    })),
  };
}
