import type { AgentTool } from "@mariozechner/pi-agent-core";
import { type Static, Type } from "typebox";
import { isoTime } from "../recall/message-text.js";
import { type RecallHit, recallSearch } from "../recall/recall-search.js";
import { ParentRecallError } from "../subagents/parent-recall-error.js";
import { earlierAccessNote, earlierHistories, earlierTarget } from "./earlier-sessions.js";
import { parentAccessNote, parentIfGranted, parentTarget } from "./parent-recall.js";
import { type RecallScope, requireStore } from "./recall-scope.js";
import type { OtherHistory, RecallSession, RecallTarget } from "./recall-target.js";

const DEFAULT_LIMIT = 8;
/**
 * Messages ranked at most per earlier session: a search reaches up to eight of them besides this
 * one, and unbounded, each ranked every match of a common word across the whole store.
 */
const EARLIER_MAX_RANKED = 200;

const parameters = Type.Object({
  query: Type.String({
    description: "Words, codes, paths, commands or error text to look for; results match any of them",
  }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: "Most results (default 8)" })),
});

export type RecallSearchParameters = Static<typeof parameters>;

/** A hit with the history it comes from; another history's hits carry its ids (`parent:m12`, `prev1:m12`). */
export interface SessionRecallHit extends RecallHit {
  session: RecallSession;
  /** Where a hit from another history comes from (`earlier session prev1 (…)`). */
  from?: string;
}

export interface RecallSearchDetails {
  hits: SessionRecallHit[];
  /** Why the parent conversation was not searched, for a subagent whose access ended or expired. */
  parentRefusal?: string;
}

/**
 * `recall_search`: finds earlier messages and summaries of this conversation (BM25 over message
 * text, summary text and anchors, fused by rank). Returns ids for recall_read and recall_describe.
 * A forked subagent's search also covers its parent's history within its grant, labelled so; once
 * the grant ended or expired, the answer says so and covers the subagent's own history only.
 */
export function createRecallSearchTool(
  scope: RecallScope,
): AgentTool<typeof parameters, RecallSearchDetails> {
  return {
    name: "recall_search",
    label: "Recall search",
    description:
      "Search the whole stored history of this conversation, including parts shown only as summaries. " +
      "Returns message ids (m12) and summary ids (sum_…) with snippets; read them with recall_read." +
      `${earlierAccessNote(scope)}${parentAccessNote(scope)}`,
    parameters,
    async execute(_toolCallId, params) {
      const limit = params.limit ?? DEFAULT_LIMIT;
      const own = await recallSearch(
        requireStore(scope),
        scope.sessionId,
        params.query,
        limit,
        scope.meaning,
      );
      const parent = parentIfGranted(scope);
      const hits: SessionRecallHit[] = own.map((hit) => ({ ...hit, session: "current" }));
      if (parent !== undefined && !(parent instanceof ParentRecallError))
        hits.push(...(await searchOther(parentTarget(parent), params.query, limit)));
      const earlier: SessionRecallHit[] = [];
      for (const history of await earlierHistories(scope))
        earlier.push(...(await searchOther(earlierTarget(history), params.query, limit, EARLIER_MAX_RANKED)));
      const top = withEarlier(byScore(hits), byScore(earlier), limit);
      const refusal = parent instanceof ParentRecallError ? parent.message : undefined;
      const text = formatHits(params.query, top);
      return {
        content: [{ type: "text", text: refusal === undefined ? text : `${text}\n(${refusal}.)` }],
        details: { hits: top, ...(refusal === undefined ? {} : { parentRefusal: refusal }) },
      };
    },
  };
}

/**
 * Ranks are fused per history, so scores across histories only roughly compare: a parent's exact
 * match and a loose match by meaning here can tie, and then the word match goes first. Stable, so
 * among equals the newer history (the order searched) goes first.
 */
function byScore(hits: SessionRecallHit[]): SessionRecallHit[] {
  return hits.sort(
    (left, right) => right.score - left.score || Number(byMeaningOnly(left)) - Number(byMeaningOnly(right)),
  );
}

/**
 * This conversation's hits (and a parent's) first, earlier sessions' after them: in a quarter of
 * the places (rounded down, so none below four) when they have hits, and in any places left. The
 * top hit of every earlier session scores what the top hit here scores, so sorted together a loose
 * match in each earlier session pushed out this session's good ones; given no place of their own,
 * an exact match from before a /new showed only when this session had few hits.
 */
function withEarlier(
  current: SessionRecallHit[],
  earlier: SessionRecallHit[],
  limit: number,
): SessionRecallHit[] {
  const held = Math.min(earlier.length, Math.floor(limit / 4));
  const fromCurrent = current.slice(0, Math.max(limit - held, 0));
  return [...fromCurrent, ...earlier.slice(0, limit - fromCurrent.length)];
}

function byMeaningOnly(hit: RecallHit): boolean {
  return hit.matchedBy.length > 0 && hit.matchedBy.every((match) => match === "meaning");
}

/**
 * Another history's hits (words only), with its ids and where they come from; `maxRanked` bounds
 * its message ranking.
 */
async function searchOther(
  target: RecallTarget,
  query: string,
  limit: number,
  maxRanked?: number,
): Promise<SessionRecallHit[]> {
  const other = target.other as OtherHistory;
  const id = (value: string) => `${other.prefix}${value}`;
  const hits = await recallSearch(target.store, target.sessionId, query, limit, undefined, maxRanked);
  return hits.map((hit) => ({
    ...hit,
    id: id(hit.id),
    session: other.session,
    from: other.label,
    ...(hit.anchors === undefined
      ? {}
      : { anchors: hit.anchors.map((anchor) => ({ ...anchor, messages: anchor.messages.map(id) })) }),
  }));
}

function formatHits(query: string, hits: readonly SessionRecallHit[]): string {
  if (hits.length === 0) return `No stored message or summary matches "${echoOf(query)}".`;
  const lines = hits.map((hit, index) => {
    const kind = hit.kind === "message" ? `message, ${hit.role ?? "?"}` : "summary";
    const what = hit.from === undefined ? kind : `${hit.from}, ${kind}`;
    const anchors =
      hit.anchors === undefined
        ? ""
        : `\n   anchors: ${hit.anchors.map((anchor) => `${anchor.value} (${anchor.messages.join(", ")})`).join("; ")}`;
    return `${index + 1}. ${hit.id} (${what}, ${isoTime(hit.createdAt)}; matched by ${hit.matchedBy.join(", ")})\n   ${hit.snippet}${anchors}`;
  });
  return `${hits.length} results for "${query}":\n${lines.join("\n")}`;
}

/** Characters of the query a "no match" answer repeats: a pasted log must not come back whole. */
const ECHO_CHARS = 200;

function echoOf(query: string): string {
  const chars = [...query];
  return chars.length <= ECHO_CHARS ? query : `${chars.slice(0, ECHO_CHARS).join("")}…`;
}
