import { describe, expect, it } from "vitest";
import { type AgentMessage, serializeConversation, truncateForSummary } from "../../src/index.js";
import { assistantMessage, userMessage } from "../support.js";
import { bashExecutionMessage, toolCallMessage, toolResultMessage } from "./session-fixtures.js";

describe("serializeConversation", () => {
  it("writes each part in pi's layout, separated by blank lines", () => {
    const assistant: AgentMessage = {
      ...assistantMessage(""),
      content: [
        { type: "thinking", thinking: "check the file first" },
        { type: "text", text: "Reading it now." },
        { type: "toolCall", id: "call_1", name: "read", arguments: { path: "src/a.ts", limit: 20 } },
        { type: "toolCall", id: "call_2", name: "bash", arguments: { command: "ls" } },
      ],
    };
    const text = serializeConversation([
      userMessage("fix the bug"),
      assistant,
      toolResultMessage("read", "export const a = 1;"),
    ]);
    expect(text).toBe(
      [
        "[User]: fix the bug",
        "[Assistant thinking]: check the file first",
        "[Assistant]: Reading it now.",
        '[Assistant tool calls]: read(path="src/a.ts", limit=20); bash(command="ls")',
        "[Tool result]: export const a = 1;",
      ].join("\n\n"),
    );
  });

  it("truncates tool results to 2,000 characters and says how much was cut", () => {
    const text = serializeConversation([toolResultMessage("read", "x".repeat(2_500))]);
    expect(text).toBe(`[Tool result]: ${"x".repeat(2_000)}\n\n[... 500 more characters truncated]`);
  });

  it("keeps user and assistant text whole", () => {
    const long = "y".repeat(5_000);
    expect(serializeConversation([userMessage(long)])).toBe(`[User]: ${long}`);
  });

  it("writes bash executions as the command and truncated output, with a non-zero exit code", () => {
    expect(serializeConversation([bashExecutionMessage("ls", "a.ts\nb.ts")])).toBe(
      "[Bash]: $ ls\na.ts\nb.ts",
    );
    const failed = serializeConversation([bashExecutionMessage("npm test", "z".repeat(2_001), 1)]);
    expect(failed).toBe(
      `[Bash]: $ npm test (exit 1)\n${"z".repeat(2_000)}\n\n[... 1 more characters truncated]`,
    );
  });

  it("cuts huge tool-call argument values like tool output", () => {
    const text = serializeConversation([
      toolCallMessage("write", { path: "a.txt", content: "c".repeat(3_000) }),
    ]);
    expect(text).toContain('write(path="a.txt", content="ccc');
    expect(text).toContain("[... 1002 more characters truncated]");
  });

  it("shows images as placeholders and other messages by their role", () => {
    const withImage: AgentMessage = {
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
      timestamp: 1,
    };
    const custom = { role: "notice", content: "deployed", timestamp: 2 } as unknown as AgentMessage;
    expect(serializeConversation([withImage, custom])).toBe("[User]: look\n[image]\n\n[notice]: deployed");
  });
});

describe("truncateForSummary", () => {
  it("leaves text at the limit untouched", () => {
    expect(truncateForSummary("abc", 3)).toBe("abc");
    expect(truncateForSummary("abcd", 3)).toBe("abc\n\n[... 1 more characters truncated]");
  });
});
