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
import { earlierIdsNote, earlierTarget, requireEarlier, splitEarlierId } from "./earlier-sessions.js";
import {
  outOfScope,
  parentAccessNote,
  parentTarget,
  requireParent,
  splitRecallId,
  summaryTarget,
} from "./parent-recall.js";
import { type RecallScope, requireStore } from "./recall-scope.js";
import { headingOf, pageWithIds, type RecallSession, type RecallTarget, sessionOf } from "./recall-target.js";

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

/** A page, with the history it comes from; another history's pages carry its ids (`parent:m12`, `prev1:m12`). */
export interface RecallReadDetails extends RecallPage {
  session: RecallSession;
}

/**
 * `recall_read`: the stored messages, exactly as they were, under a summary id, by message ids or
 * in a time range; paginated within a token bound. A forked subagent reads its parent's messages
 * by `parent:` ids (time ranges read its own history); ids beyond its grant, or any parent id once
 * the grant ended or expired, fail with a `ParentRecallError` naming the reason. Earlier sessions
 * of the conversation are read by `prev1:` ids, one session per call.
 */
export function createRecallReadTool(scope: RecallScope): AgentTool<typeof parameters, RecallReadDetails> {
  return {
    name: "recall_read",
    label: "Recall read",
    description:
      "Read earlier messages of this conversation verbatim: give one of summaryId, messageIds, or from/to. " +
      `Long results come in pages; pass nextCursor to continue.${earlierIdsNote(scope)}${parentAccessNote(scope)}`,
    parameters,
    async execute(_toolCallId, params) {
      const { target, request } = await readTarget(scope, params);
      const page = await recallRead(target.store, target.sessionId, scope.counter, request);
      const details = { ...pageWithIds(page, target), session: sessionOf(target) };
      const body = details.messages.map((message) => message.text).join("\n\n");
      const more =
        page.nextCursor === undefined
          ? ""
          : `\n\n[More: call recall_read again with cursor "${page.nextCursor}"]`;
      const text =
        page.messages.length === 0 ? "No stored messages match." : `${headingOf(target)}${body}${more}`;
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
  const earlier = params.messageIds.map(splitEarlierId);
  const sessions = new Set(earlier.map((id) => id?.index));
  if (sessions.size > 1) throw oneConversationAtATime();
  const [index] = sessions;
  if (index !== undefined) {
    const history = await requireEarlier(scope, index);
    const messageIds = earlier.map((id) => (id as { id: string }).id);
    return { target: earlierTarget(history), request: { ...params, messageIds } };
  }
  const split = params.messageIds.map(splitRecallId);
  const fromParent = split.filter((id) => id.fromParent).length;
  if (fromParent === 0) return { target: own, request: params };
  if (fromParent < split.length) throw oneConversationAtATime();
  const parent = requireParent(scope);
  for (const { id } of split) {
    const seq = parseMessageLabel(id);
    if (seq !== undefined && seq > parent.maxSeq) throw outOfScope(parent, seq);
  }
  return { target: parentTarget(parent), request: { ...params, messageIds: split.map(({ id }) => id) } };
}

function oneConversationAtATime(): Error {
  return new Error(
    "recall_read reads one session at a time: give ids with the same prefix (parent:, prev1:, …) or only ids of this session",
  );
}
