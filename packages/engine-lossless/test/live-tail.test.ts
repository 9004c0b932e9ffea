import type { AgentMessage } from "@clew/core";
import { charEstimateTokenCounter } from "@clew/core";
import { orphanToolResults } from "@clew/plugin-sdk/testing";
import { afterAll, describe, expect, it } from "vitest";
import { assembleView } from "../src/assemble/assemble-view.js";
import { SessionView } from "../src/view/session-view.js";
import { assistantText, assistantToolCall, toolResult, userText } from "./support/conversations.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());

const T = 1_700_000_000_000;
const stored: AgentMessage[] = [userText("hello", T), assistantText("hi", T + 1)];

/** An engine that stored `stored` as a finished turn of session "s". */
const engineWithHistory = () => engines.engineWithTurn(stored);

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
    const engine = await engineWithHistory();
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
    const engine = await engineWithHistory();
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
  it("keeps the prompt of a tool loop that outgrew the budget, after the note, with its newest steps", async () => {
    const engine = await engineWithHistory();
    const turn = longToolLoop(150);
    const tokenBudget = 1_500;
    const result = await engine.assemble({ sessionId: "s", messages: [...stored, ...turn], tokenBudget });
    expect(result.estimatedTokens).toBeLessThanOrEqual(tokenBudget);
    // Before: the oldest steps and the prompt itself were cut, leaving steps with no instruction.
    expect(result.messages[1]).toEqual(turn[0]);
    expect(JSON.stringify(result.messages[0])).toMatch(/\d+ messages of this turn/);
    // They are not stored before the turn ends: the note does not send the model to recall them.
    expect(JSON.stringify(result.messages[0])).toContain(
      "return the earlier ones verbatim; this turn's are stored when it ends, and recall_search and recall_read find them from then on.",
    );
    expect(JSON.stringify(result.messages[0])).not.toContain("return them verbatim");
    const newest = result.messages.slice(2);
    expect(newest.length).toBeGreaterThan(10);
    expect(newest).toEqual(turn.slice(-newest.length));
    expect(orphanToolResults(result.messages)).toEqual([]);
  });

  it("keeps the prompt beside a newest step too large for the budget, shortened to fit", async () => {
    const engine = await engineWithHistory();
    const turn = [
      ...longToolLoop(3),
      assistantToolCall("big", "exec", { command: "cat build.log" }, T + 100),
      toolResult("big", "exec", "log line with details\n".repeat(2_000), T + 101),
    ];
    const tokenBudget = 1_000;
    const result = await engine.assemble({ sessionId: "s", messages: [...stored, ...turn], tokenBudget });
    expect(result.estimatedTokens).toBeLessThanOrEqual(tokenBudget);
    expect(result.messages[1]).toEqual(turn[0]);
    expect(result.messages.at(-2)).toEqual(turn.at(-2));
    expect(JSON.stringify(result.messages.at(-1))).toContain("left out to fit the context");
    expect(orphanToolResults(result.messages)).toEqual([]);
  });
  it("keeps the prompt on a session's first assemble too, with history before it", async () => {
    const engine = await engines.engine();
    const turn = longToolLoop(150);
    const tokenBudget = 1_500;
    // Nothing stored yet: the first assemble stores the history, and leaves the turn to afterTurn.
    const result = await engine.assemble({ sessionId: "s", messages: [...stored, ...turn], tokenBudget });
    expect(result.estimatedTokens).toBeLessThanOrEqual(tokenBudget);
    expect(result.messages[1]).toEqual(turn[0]);
    expect(result.messages.at(-1)).toEqual(turn.at(-1));
    expect(orphanToolResults(result.messages)).toEqual([]);
  });

  it("keeps the prompt, with the digest in the note's place, when the budget has room for one", async () => {
    const engine = await engineWithHistory();
    const turn = longToolLoop(300);
    const tokenBudget = 3_000;
    const result = await engine.assemble({ sessionId: "s", messages: [...stored, ...turn], tokenBudget });
    expect(result.estimatedTokens).toBeLessThanOrEqual(tokenBudget);
    expect(JSON.stringify(result.messages[0])).toContain("messages of this turn");
    expect(JSON.stringify(result.messages[0])).toContain("Below is a digest");
    expect(JSON.stringify(result.messages[0])).toContain("this turn's are stored when it ends");
    expect(result.messages[1]).toEqual(turn[0]);
    expect(result.messages.at(-1)).toEqual(turn.at(-1));
  });
  it("keeps a session's whole first turn when the user steers it, prompt and first steps included", async () => {
    const turn: AgentMessage[] = [
      userText("find the flag", T + 10),
      assistantToolCall("c0", "exec", { command: "grep -r flag src" }, T + 11),
      toolResult("c0", "exec", "src: no match", T + 12),
      userText("also skip vendor/", T + 13),
      assistantToolCall("c1", "exec", { command: "grep -r flag lib" }, T + 14),
      toolResult("c1", "exec", "lib/flag.ts: FLAG=1", T + 15),
    ];
    // Nothing stored: the turn starts the session, so the first assemble stores nothing before it.
    const engine = await engines.engine();
    const result = await engine.assemble({ sessionId: "s", messages: turn, tokenBudget: 100_000 });
    expect(result.messages).toEqual(turn);
  });

  it("pins the running turn's prompt, not the oldest message, when the view holds nothing", () => {
    // A view that stored nothing (the first write failed): every host message is live.
    const older: AgentMessage[] = [];
    for (let turn = 0; turn < 20; turn++)
      older.push(
        userText(`old question ${turn}`, T + turn * 2),
        assistantText(`old answer ${turn}`, T + turn * 2 + 1),
      );
    const turn = longToolLoop(150);
    const assembled = assembleView(
      new SessionView(0),
      [...stored, ...older, ...turn],
      1_000,
      charEstimateTokenCounter,
    );
    expect(assembled.tokens).toBeLessThanOrEqual(1_000);
    expect(assembled.messages[1]).toEqual(turn[0]);
    expect(assembled.messages.at(-1)).toEqual(turn.at(-1));
    expect(orphanToolResults(assembled.messages)).toEqual([]);
  });

  it("keeps the prompt when the history is unrecognizable and the user steered the loop", async () => {
    const engine = await engineWithHistory();
    const rewritten = stored.map(
      (message, index) => ({ ...message, timestamp: T - 100 + index }) as AgentMessage,
    );
    const loop = longToolLoop(3);
    const turn = [...loop.slice(0, 3), userText("also skip vendor/", T + 100), ...loop.slice(3)];
    const result = await engine.assemble({
      sessionId: "s",
      messages: [...rewritten, ...turn],
      tokenBudget: 100_000,
    });
    expect(result.messages.slice(-turn.length)).toEqual(turn);
    expect(orphanToolResults(result.messages)).toEqual([]);
  });

  it("keeps the turn's own prompt, not a steering message typed during the loop", async () => {
    const loop = longToolLoop(160);
    const steering = userText("also skip the vendored packages", T + 200);
    // The steering message arrives after a tool result, halfway through the loop.
    const turn = [...loop.slice(0, 161), steering, ...loop.slice(161)];
    for (const engine of [await engineWithHistory(), await engines.engine()]) {
      const result = await engine.assemble({
        sessionId: "s",
        messages: [...stored, ...turn],
        tokenBudget: 1_500,
      });
      expect(result.estimatedTokens).toBeLessThanOrEqual(1_500);
      expect(result.messages[1]).toEqual(turn[0]);
      expect(result.messages.at(-1)).toEqual(turn.at(-1));
      expect(orphanToolResults(result.messages)).toEqual([]);
    }
  });
});
