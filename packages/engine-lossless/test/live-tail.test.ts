import type { AgentMessage } from "@clew/core";
import { orphanToolResults } from "@clew/plugin-sdk/testing";
import { afterAll, describe, expect, it } from "vitest";
import { assistantText, assistantToolCall, toolResult, userText } from "./support/conversations.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());

const T = 1_700_000_000_000;
const stored: AgentMessage[] = [userText("hello", T), assistantText("hi", T + 1)];

/** A turn still running: its prompt and `steps` tool calls with their results, none stored yet. */
function longToolLoop(steps: number): AgentMessage[] {
  const turn: AgentMessage[] = [userText("grep every package for the flag", T + 10)];
  for (let step = 0; step < steps; step++) {
    const id = `call_${step}`;
    turn.push(
      assistantToolCall(id, "exec", { command: `grep -r flag packages/p${step}` }, T + 11 + step * 2),
      toolResult(id, "exec", `p${step}: no match`, T + 12 + step * 2),
    );
  }
  return turn;
}

describe("the host's messages the engine has not stored yet", () => {
  it("keeps a tool loop of 150 steps whole and last, however long it grew", async () => {
    const engine = await engines.engine();
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: stored,
      prePromptMessageCount: 0,
    });
    const turn = longToolLoop(150);
    const result = await engine.assemble({
      sessionId: "s",
      messages: [...stored, ...turn],
      tokenBudget: 100_000,
    });
    expect(result.messages.slice(-turn.length)).toEqual(turn);
    expect(orphanToolResults(result.messages)).toEqual([]);
  });

  it("keeps the current turn, from its prompt, when nothing stored can be found in the host's history", async () => {
    const engine = await engines.engine();
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: stored,
      prePromptMessageCount: 0,
    });
    // A host whose history no longer shows the stored messages as they were (here: re-timed).
    const rewritten = stored.map(
      (message, index) => ({ ...message, timestamp: T - 100 + index }) as AgentMessage,
    );
    const turn = longToolLoop(2);
    const result = await engine.assemble({
      sessionId: "s",
      messages: [...rewritten, ...turn],
      tokenBudget: 100_000,
    });
    expect(result.messages.slice(-turn.length)).toEqual(turn);
  });
});
