import type { AgentMessage } from "@clew/core";
import { assistantText, assistantToolCall, toolResult, userText } from "@clew/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { qualityPreset } from "../../suites/quality/presets.js";
import { generateConversation } from "../../workloads/locomo/generate-conversation.js";
import { interleaveConversation, turnsOfMessages } from "../../workloads/long-transcript.js";

describe("long agent transcripts with a conversation inside", () => {
  it("cuts a recording into turns of steps, leaving out what cannot be replayed", () => {
    const recorded: AgentMessage[] = [
      assistantText("before any prompt", 0),
      userText("fix it", 1),
      assistantToolCall("call_1", "read", { path: "a.ts" }, 2),
      toolResult("call_1", "read", "code", 3),
      assistantText("fixed", 4),
      assistantText("a second answer nobody asked for", 5),
      userText("thanks", 6),
      assistantText("welcome", 7),
    ];
    const turns = turnsOfMessages(recorded);
    expect(turns.map((turn) => [turn.prompt.content, turn.steps.map((step) => step.length)])).toEqual([
      ["fix it", [2, 1]],
      ["thanks", [1]],
    ]);
  });

  it("puts one conversation session after each chunk of agent turns, ending with the conversation", () => {
    const conversation = generateConversation(qualityPreset("tiny").conversation);
    const agent = turnsOfMessages(
      Array.from({ length: 10 }, (_, index) => [
        userText(`task ${index}`, index),
        assistantText("ok", index),
      ]).flat(),
    );
    const turns = interleaveConversation(agent, conversation);
    expect(turns).toHaveLength(agent.length + conversation.turns.length / 2);
    expect(turns.at(-1)?.prompt).toBe(conversation.turns.at(-2)?.message);
    expect(turns[0]?.prompt.content).toBe("task 0");
    const firstConversationTurn = turns.findIndex((turn) => turn.prompt === conversation.turns[0]?.message);
    expect(firstConversationTurn).toBeGreaterThan(0);
  });
});
