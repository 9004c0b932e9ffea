import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/messages.js";
import { convertCustomMessages } from "../../src/pipeline/custom-messages.js";
import { prepareHistory } from "../../src/pipeline/prepare-history.js";
import {
  repairToolResultPairingWithReport,
  SYNTHETIC_TOOL_RESULT_TEXT,
} from "../../src/pipeline/repair-tool-pairing.js";
import { STRICT_TOOL_CALL_ID } from "../../src/pipeline/tool-call-ids.js";
import { resolveTranscriptPolicy } from "../../src/pipeline/transcript-policy.js";

// Real pi transcripts, read in place (their licence note asks that they are not copied).
const SESSIONS_DIR = "/work/shared/data/pi-sessions";

function readSessionMessages(file: string): unknown[] {
  const lines = readFileSync(path.join(SESSIONS_DIR, file), "utf8").split("\n");
  const messages: unknown[] = [];
  for (const line of lines) {
    if (line.trim() === "") continue;
    const entry = JSON.parse(line) as { type?: string; message?: unknown };
    if (entry.type === "message") messages.push(entry.message);
  }
  return messages;
}

function countRole(messages: readonly unknown[], role: string): number {
  return messages.filter((message) => (message as { role?: string }).role === role).length;
}

function isSynthetic(message: AgentMessage): boolean {
  return (
    message.role === "toolResult" &&
    message.content.some((block) => block.type === "text" && block.text === SYNTHETIC_TOOL_RESULT_TEXT)
  );
}

const anthropic = resolveTranscriptPolicy({ api: "anthropic-messages", provider: "anthropic" });

describe.each([
  // One finished turn of before-compaction.jsonl (message 621, a `bash` call) was cut off before its
  // result was stored; every other unanswered call belongs to an aborted or failed turn.
  { file: "before-compaction.jsonl", toolResults: 448, bashExecutions: 3, synthetic: 1 },
  { file: "large-session.jsonl", toolResults: 373, bashExecutions: 0, synthetic: 0 },
])("prepareHistory over the real pi session $file", ({ file, toolResults, bashExecutions, synthetic }) => {
  const stored = readSessionMessages(file);
  const prepared = prepareHistory(stored, { policy: anthropic });

  it("holds the tool results and bash executions the fixture notes say it does", () => {
    expect(countRole(stored, "toolResult")).toBe(toolResults);
    expect(countRole(stored, "bashExecution")).toBe(bashExecutions);
  });

  it("keeps every stored tool result, dropping none as orphan or duplicate", () => {
    const repair = repairToolResultPairingWithReport(convertCustomMessages(stored));
    expect(repair).toMatchObject({ droppedOrphans: 0, droppedDuplicates: 0, droppedDuplicateCalls: 0 });

    const results = prepared.filter((message) => message.role === "toolResult");
    expect(results.filter((message) => !isSynthetic(message))).toHaveLength(toolResults);
  });

  it("needs synthetic results only for finished calls whose result was never stored", () => {
    const repair = repairToolResultPairingWithReport(convertCustomMessages(stored));
    expect(repair.syntheticResults).toBe(synthetic);
    expect(prepared.filter(isSynthetic)).toHaveLength(synthetic);
  });

  it("places each result right after the call that owns it, with ids Anthropic accepts", () => {
    let open: string[] = [];
    for (const message of prepared) {
      if (message.role === "toolResult") {
        expect(open[0]).toBe(message.toolCallId);
        expect(message.toolCallId).toMatch(STRICT_TOOL_CALL_ID);
        open = open.slice(1);
        continue;
      }
      expect(open).toEqual([]);
      const finished =
        message.role === "assistant" && message.stopReason !== "aborted" && message.stopReason !== "error";
      open = finished
        ? message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
        : [];
    }
  });

  it("turns bash executions into user text and never sends details", () => {
    const bashTexts = prepared.flatMap((message) =>
      message.role === "user"
        ? typeof message.content === "string"
          ? [message.content]
          : message.content.flatMap((block) => (block.type === "text" ? [block.text] : []))
        : [],
    );
    expect(bashTexts.filter((value) => value.startsWith("Ran `"))).toHaveLength(bashExecutions);
    expect(prepared.some((message) => "details" in message)).toBe(false);
  });

  it("is idempotent on a real transcript", () => {
    const once = prepareHistory(stored, { policy: anthropic, maxUserTurns: 20 });
    expect(prepareHistory(once, { policy: anthropic, maxUserTurns: 20 })).toEqual(once);
  });
});
