import { describe, expect, it } from "vitest";
import {
  type AgentMessage,
  estimateStringChars,
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

  it("falls back to JSON for a message whose content has the wrong shape", () => {
    const broken = { role: "user", content: 42 } as unknown as AgentMessage;
    expect(modelVisibleParts(broken)).toEqual([{ kind: "text", text: JSON.stringify(broken) }]);
  });
});

describe("readableTextParts", () => {
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
