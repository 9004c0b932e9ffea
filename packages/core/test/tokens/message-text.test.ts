import { describe, expect, it } from "vitest";
import {
  type AgentMessage,
  charEstimateTokenCounter,
  estimateStringChars,
  loadO200kTokenCounter,
  messageChars,
  modelVisibleParts,
  readableTextParts,
} from "../../src/index.js";
import {
  bashExecutionMessage,
  loadPiSessionMessages,
  PI_SESSION_NAMES,
  toolCallMessage,
} from "../summarizer/session-fixtures.js";

/** Chars of the visible parts, the way `messageChars` weighs them (images 4,800). */
function partChars(message: AgentMessage): number {
  return modelVisibleParts(message).reduce(
    (sum, part) => sum + (part.kind === "text" ? estimateStringChars(part.text) : 4_800),
    0,
  );
}

describe("modelVisibleParts", () => {
  it.each(PI_SESSION_NAMES)("measures exactly what messageChars measures on %s", (name) => {
    for (const message of loadPiSessionMessages(name)) expect(partChars(message)).toBe(messageChars(message));
  });

  it.each([
    ["an assistant whose content is a string", { role: "assistant", content: "hi", timestamp: 1 }],
    ["a toolResult whose content is a string", { role: "toolResult", toolCallId: "c", content: "out" }],
    ["a text block without its text", { role: "assistant", content: [{ type: "text" }], timestamp: 1 }],
    ["a user text block whose text is a number", { role: "user", content: [{ type: "text", text: 7 }] }],
    ["content that is null", { role: "user", content: null }],
  ])("never throws on %s, and both counters measure the same parts", async (_, odd) => {
    const message = odd as unknown as AgentMessage;
    expect(messageChars(message)).toBeGreaterThan(0);
    expect(partChars(message)).toBe(messageChars(message));
    const o200k = await loadO200kTokenCounter();
    expect(Number.isInteger(o200k.countMessage(message))).toBe(true);
    expect(Number.isInteger(charEstimateTokenCounter.countMessage(message))).toBe(true);
  });

  it("falls back to JSON for a message whose content has the wrong shape", () => {
    const broken = { role: "user", content: 42 } as unknown as AgentMessage;
    expect(modelVisibleParts(broken)).toEqual([{ kind: "text", text: JSON.stringify(broken) }]);
  });
});

describe("readableTextParts", () => {
  it("reads a message whose text blocks are not strings by its string leaves, never a number", () => {
    const odd = {
      role: "user",
      content: [
        { type: "text", text: 0 },
        { type: "text", text: "kept" },
      ],
    };
    const parts = readableTextParts(odd as unknown as AgentMessage);
    expect(parts.every((part) => typeof part === "string")).toBe(true);
    expect(parts).toContain("kept");
  });

  it("reads tool-call arguments as their string values, not as escaped JSON", () => {
    const call = toolCallMessage("write", {
      path: "C:\\work\\a.ts",
      content: "line 1\nline 2",
      options: { mode: "x" },
    });
    expect(readableTextParts(call)).toEqual(["write", "C:\\work\\a.ts", "line 1\nline 2", "x"]);
  });

  it("reads a bash execution's command and output but not its bookkeeping", () => {
    expect(readableTextParts(bashExecutionMessage("ls -la", "a.ts"))).toEqual(["ls -la", "a.ts"]);
  });
});
