/**
 * The recall policy the engine puts in front of the system prompt: what summaries are and how to
 * get the exact history back. Kept under 200 tokens (it is paid on every call) and constant, so
 * the system prompt stays byte-stable for provider prompt caches.
 */

export const RECALL_TOOL_NAMES = ["recall_search", "recall_read", "recall_describe"] as const;

const WITH_TOOLS = [
  "Lossless memory: every earlier message of this conversation is stored verbatim, even when older",
  "parts appear only as <lossless-summary> blocks or a context note. To get details back:",
  "recall_search finds messages and summaries by words, codes, paths or errors;",
  "recall_describe shows what a summary covers and its anchors;",
  "recall_read returns the original messages of a summary id, message ids (m12) or a time range.",
  "Before relying on an exact value (path, id, command, number, error) seen only in a summary,",
  "check it with recall_read. Newer messages override older summaries.",
].join(" ");

const WITHOUT_TOOLS = [
  "Lossless memory: older parts of this conversation may appear as <lossless-summary> blocks or a",
  "context note. They summarize messages that are stored verbatim; newer messages override them.",
].join(" ");

/**
 * The addition for a run. `availableTools` undefined means the host did not say, and the tools
 * are assumed present.
 */
export function recallPolicy(availableTools: ReadonlySet<string> | undefined): string {
  if (availableTools === undefined) return WITH_TOOLS;
  return RECALL_TOOL_NAMES.every((name) => availableTools.has(name)) ? WITH_TOOLS : WITHOUT_TOOLS;
}
