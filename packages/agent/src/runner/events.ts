/**
 * What a run tells its caller while it happens. One grammar: `<noun>-<verb>` with the verbs
 * `start`, `delta`, `end` and `error`. Every run ends with exactly one `run-end` or `run-error`.
 * Events are data: a listener that throws is ignored, never breaks the run.
 */
import type { AgentMessage, AssistantMessage, ToolResultMessage, Usage } from "@clew/core";

export type TurnEvent =
  | { type: "run-start"; sessionKey: string; sessionId: string; model: string }
  | { type: "text-delta"; delta: string }
  | { type: "thinking-delta"; delta: string }
  | { type: "tool-start"; toolCallId: string; name: string; arguments: unknown }
  | { type: "tool-end"; toolCallId: string; name: string; result: ToolResultMessage; isError: boolean }
  | { type: "message-end"; message: AssistantMessage }
  | { type: "compaction-start"; trigger: string }
  | {
      type: "compaction-end";
      trigger: string;
      compacted: boolean;
      reason?: string;
      tokensBefore?: number;
      tokensAfter?: number;
    }
  | { type: "run-end"; messages: AgentMessage[]; usage: Usage; text: string }
  | { type: "run-error"; message: string; code?: string; aborted: boolean };

export type TurnEventListener = (event: TurnEvent) => void;
