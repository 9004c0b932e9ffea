/**
 * How the recall tools reach a forked subagent's parent history. Parent ids carry a `parent:`
 * prefix (`parent:m12`, `parent:sum_…`) because message ids count per session: the child's m12 and
 * the parent's m12 are different messages. A bare summary id the child does not hold is looked up
 * in the parent (summary ids are unique across the store, and a fork inherits the parent's
 * `<lossless-summary>` blocks).
 */
import { messageLabel } from "../recall/message-text.js";
import { ParentRecallError } from "../subagents/parent-recall-error.js";
import { earlierHistories, earlierTarget, requireEarlier, splitEarlierId } from "./earlier-sessions.js";
import type { ParentHistory, RecallScope } from "./recall-scope.js";
import type { RecallTarget } from "./recall-target.js";

export const PARENT_ID_PREFIX = "parent:";

/** `parent:m12` → `{ fromParent: true, id: "m12" }`; other ids unchanged. */
export function splitRecallId(id: string): { fromParent: boolean; id: string } {
  const trimmed = id.trim();
  return trimmed.startsWith(PARENT_ID_PREFIX)
    ? { fromParent: true, id: trimmed.slice(PARENT_ID_PREFIX.length) }
    : { fromParent: false, id: trimmed };
}

/** @throws ParentRecallError when the session may not read its parent now. */
export function requireParent(scope: RecallScope): ParentHistory {
  if (scope.parent === undefined) {
    throw new ParentRecallError("no-grant", "This conversation has no access to a parent conversation");
  }
  return scope.parent();
}

/**
 * The parent history when readable; `undefined` for sessions with no grant at all; the refusal
 * (ended, expired) as a value, for tools that still answer from the session's own history.
 */
export function parentIfGranted(scope: RecallScope): ParentHistory | ParentRecallError | undefined {
  try {
    return requireParent(scope);
  } catch (error) {
    if (!(error instanceof ParentRecallError)) throw error;
    return error.refusal === "no-grant" ? undefined : error;
  }
}

/** `m<seq>` of the parent beyond the grant: the refusal names the newest readable message. */
export function outOfScope(history: ParentHistory, seq: number): ParentRecallError {
  return new ParentRecallError(
    "out-of-scope",
    `${messageLabel(seq)} of the parent conversation ${history.sessionKey} is beyond this subagent's access, ` +
      `which ends at ${messageLabel(history.maxSeq)} (the parent's newest message when the subagent was spawned)`,
  );
}

export function parentTarget(history: ParentHistory): RecallTarget {
  return {
    store: history.store,
    sessionId: history.sessionId,
    other: {
      session: "parent",
      prefix: PARENT_ID_PREFIX,
      heading: `From the parent conversation ${history.sessionKey}:`,
      label: `parent conversation ${history.sessionKey}`,
    },
  };
}

/**
 * The target of a summary id: `parent:sum_…` reads the parent (refused without a live grant),
 * `prev1:sum_…` an earlier session; a bare id the session does not hold reads the parent when the
 * parent holds it within the grant, else the earlier session that holds it.
 */
export async function summaryTarget(
  scope: RecallScope,
  own: RecallTarget,
  summaryId: string,
): Promise<{ target: RecallTarget; summaryId: string }> {
  const earlier = splitEarlierId(summaryId);
  if (earlier !== undefined)
    return { target: earlierTarget(await requireEarlier(scope, earlier.index)), summaryId: earlier.id };
  const split = splitRecallId(summaryId);
  if (split.fromParent) return { target: parentTarget(requireParent(scope)), summaryId: split.id };
  const holds = async (target: RecallTarget) =>
    (await target.store.readSummaries(target.sessionId, [split.id])).length > 0;
  if (await holds(own)) return { target: own, summaryId: split.id };
  const parent = parentIfGranted(scope);
  if (parent !== undefined && !(parent instanceof ParentRecallError) && (await holds(parentTarget(parent))))
    return { target: parentTarget(parent), summaryId: split.id };
  // Summary ids are unique across the store: one lookup names the session, whichever it is.
  const holder = await own.store.findSummarySession(split.id);
  const holding =
    holder === undefined
      ? undefined
      : (await earlierHistories(scope)).find((history) => history.sessionId === holder);
  return { target: holding === undefined ? own : earlierTarget(holding), summaryId: split.id };
}

/** A sentence for tool descriptions while the session may read a parent; empty otherwise. */
export function parentAccessNote(scope: RecallScope): string {
  let parent: ReturnType<typeof parentIfGranted>;
  try {
    parent = parentIfGranted(scope);
  } catch {
    // An unusable store: the tools say so when called; their descriptions stay plain.
    return "";
  }
  if (parent === undefined || parent instanceof ParentRecallError) return "";
  return (
    ` You are a forked subagent: this also covers the parent conversation up to ${messageLabel(parent.maxSeq)}, ` +
    `whose ids are written ${PARENT_ID_PREFIX}m12 and ${PARENT_ID_PREFIX}sum_…; message ids inside summaries ` +
    `inherited from the parent belong to the parent, so prefix them with ${PARENT_ID_PREFIX}.`
  );
}
