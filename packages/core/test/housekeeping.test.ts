import { describe, expect, it } from "vitest";
import {
  type AgentMessage,
  isHousekeepingMessage,
  MEMORY_FLUSH_PROMPT_START,
  SILENT_REPLY_TOKEN,
} from "../src/index.js";

const FLUSH = `${MEMORY_FLUSH_PROMPT_START}. Store durable memories now; if nothing, reply ${SILENT_REPLY_TOKEN}.`;
const user = (content: AgentMessage["content"]) => ({ role: "user", content, timestamp: 1 }) as AgentMessage;
const assistant = (content: unknown[]) =>
  ({ role: "assistant", content, timestamp: 2 }) as unknown as AgentMessage;

describe("housekeeping messages", () => {
  it("are a memory flush prompt, as text or a text block, and a reply that is only the silent token", () => {
    expect(isHousekeepingMessage(user(`\n ${FLUSH}`))).toBe(true);
    expect(isHousekeepingMessage(user([{ type: "text", text: FLUSH }]))).toBe(true);
    expect(isHousekeepingMessage(assistant([{ type: "text", text: ` ${SILENT_REPLY_TOKEN}\n` }]))).toBe(true);
    // A reasoning model's thinking before the token does not make it a reply.
    const thought = assistant([
      { type: "thinking", thinking: "Nothing new is worth a note." },
      { type: "text", text: SILENT_REPLY_TOKEN },
    ]);
    expect(isHousekeepingMessage(thought)).toBe(true);
  });

  it("are not a user writing about the flush, a reply that says or does more, or another role", () => {
    expect(isHousekeepingMessage(user(`Why did the ${MEMORY_FLUSH_PROMPT_START} run twice?`))).toBe(false);
    expect(isHousekeepingMessage(user(`${MEMORY_FLUSH_PROMPT_START} ran twice today, why?`))).toBe(false);
    expect(
      isHousekeepingMessage(
        assistant([{ type: "text", text: `${SILENT_REPLY_TOKEN}, but I stored two notes.` }]),
      ),
    ).toBe(false);
    const wrote = assistant([
      { type: "toolCall", id: "c1", name: "write", arguments: { path: "memory/today.md" } },
      { type: "text", text: SILENT_REPLY_TOKEN },
    ]);
    expect(isHousekeepingMessage(wrote)).toBe(false);
    const result = {
      role: "toolResult",
      toolCallId: "c1",
      toolName: "write",
      content: [{ type: "text", text: SILENT_REPLY_TOKEN }],
      isError: false,
      timestamp: 3,
    };
    expect(isHousekeepingMessage(result as unknown as AgentMessage)).toBe(false);
    expect(isHousekeepingMessage({ role: "assistant", content: "odd" } as unknown as AgentMessage)).toBe(
      false,
    );
  });
});
