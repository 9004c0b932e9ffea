import {
  type AgentMessage,
  countMessagesTokens,
  loadO200kTokenCounter,
  MEMORY_FLUSH_PROMPT_START,
  SILENT_REPLY_TOKEN,
  type TokenCounter,
} from "@clew/core";
import { orphanToolResults } from "@clew/plugin-sdk/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRecalledContext, placeEvidence } from "../src/assemble/recall-evidence.js";
import { queryWords } from "../src/recall/query-words.js";
import {
  assistantText,
  assistantToolCall,
  fillerText,
  longConversation,
  toolResult,
  userText,
} from "./support/conversations.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
let o200k: TokenCounter;

beforeAll(async () => {
  o200k = await loadO200kTokenCounter();
});
afterAll(() => engines.cleanup());

const FACT = "The staging database password rotates every Tuesday at 09:00 UTC, ask Priya first.";

/** 120 turns of filler with one fact near the start, so the fact leaves any small context. */
function chatWithFact(): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let turn = 0; turn < 120; turn++) {
    const at = 1_700_000_000_000 + turn * 1_000;
    const text = turn === 3 ? FACT : `Notes ${turn}: ${fillerText(300, turn + 1)}`;
    messages.push(userText(text, at), assistantText(`Reply ${turn}: ${fillerText(200, turn + 500)}`, at + 1));
  }
  return messages;
}

function textOf(messages: readonly AgentMessage[]): string {
  return JSON.stringify(messages);
}

/** How the describe block running now searches: the engine's default, or words alone. */
let searchMode: { wordVectors?: false } = {};

const engineWith = (messages: AgentMessage[], options = {}) =>
  engines.engineWithTurn(messages, { tokenCounter: o200k, ...searchMode, ...options });

const LOOP_PROMPT = "When does the staging database password rotate?";

/**
 * The compacted fact chat and the first step of a tool loop asking about the fact: its prompt,
 * one call and its result.
 */
async function compactedChatAndLoop() {
  const messages = chatWithFact();
  const engine = await engineWith(messages);
  await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
  const turn: AgentMessage[] = [
    userText(LOOP_PROMPT, 1_800_000_000_000),
    assistantToolCall("call_1", "read", { path: "ops/rotation.md" }, 1_800_000_000_001),
    toolResult("call_1", "read", "rotation schedule: see the runbook", 1_800_000_000_002),
  ];
  const assemble = (hostMessages: AgentMessage[]) =>
    engine.assemble({ sessionId: "s", messages: hostMessages, tokenBudget: 4_000, prompt: LOOP_PROMPT });
  return { messages, turn, assemble };
}

// Word vectors choose evidence hit by hit, words alone whole exchanges (see `evidence-units.ts`):
// every promise below holds both ways.
describe.each([
  ["with search by meaning (the default)", {}],
  ["with words alone", { wordVectors: false as const }],
])("query-aware assembly, %s", (_name, mode) => {
  beforeAll(() => {
    searchMode = mode;
  });

  it("adds the earlier message matching the prompt, verbatim, last, after compaction summarized it", async () => {
    const messages = chatWithFact();
    const engine = await engineWith(messages);
    await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const prompt = "When does the staging database password rotate?";
    const result = await engine.assemble({ sessionId: "s", messages, tokenBudget: 4_000, prompt });
    const last = result.messages.at(-1) as AgentMessage;
    expect(isRecalledContext(last)).toBe(true);
    expect(textOf([last])).toContain(FACT.replaceAll('"', '\\"'));
    expect(result.messages.slice(0, -1).some(isRecalledContext)).toBe(false);
    expect(countMessagesTokens(o200k, result.messages)).toBeLessThanOrEqual(4_000);
    expect(result.estimatedTokens).toBe(countMessagesTokens(o200k, result.messages));
  });

  it("leaves a host's housekeeping out of the block: a memory flush prompt and its silent reply", async () => {
    const messages = chatWithFact();
    const flush = `${MEMORY_FLUSH_PROMPT_START}: note the staging database password rotation rules before compaction, else reply ${SILENT_REPLY_TOKEN}.`;
    // The reply of a reasoning model: its thinking, then the token.
    const reply = {
      ...assistantText(SILENT_REPLY_TOKEN, 1_700_000_005_501),
      content: [
        { type: "thinking", thinking: "The staging database password rotation is noted already." },
        { type: "text", text: SILENT_REPLY_TOKEN },
      ],
    } as AgentMessage;
    messages.splice(10, 0, userText(flush, 1_700_000_005_500), reply);
    const engine = await engineWith(messages);
    await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const prompt = "When does the staging database password rotate?";
    const result = await engine.assemble({ sessionId: "s", messages, tokenBudget: 4_000, prompt });
    const block = textOf([result.messages.at(-1) as AgentMessage]);
    expect(block).toContain(FACT.replaceAll('"', '\\"'));
    expect(block).not.toContain(MEMORY_FLUSH_PROMPT_START);
    expect(block).not.toContain(SILENT_REPLY_TOKEN);
  });

  it("leaves the stable part unchanged: without the block it is what assembly gives with no prompt", async () => {
    const messages = chatWithFact();
    const engine = await engineWith(messages);
    await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const plain = await engine.assemble({ sessionId: "s", messages, tokenBudget: 4_000 });
    const aware = await engine.assemble({
      sessionId: "s",
      messages,
      tokenBudget: 4_000,
      prompt: "staging database password",
    });
    expect(aware.messages.slice(0, -1)).toEqual(plain.messages);
    expect(plain.messages.some(isRecalledContext)).toBe(false);
    expect(plain.cacheBoundary).toBeUndefined();
  });

  it("never repeats a message that is already raw in the context", async () => {
    const messages = chatWithFact();
    const engine = await engineWith(messages);
    // Nothing compacted and a budget that holds everything: the fact is raw, so no block.
    const result = await engine.assemble({
      sessionId: "s",
      messages,
      tokenBudget: 200_000,
      prompt: "staging database password",
    });
    expect(result.messages.some(isRecalledContext)).toBe(false);
    expect(textOf(result.messages).split("staging database password").length - 1).toBe(1);
  });

  it("gives the same request for the same prompt, so the calls of a tool loop match", async () => {
    const messages = chatWithFact();
    const engine = await engineWith(messages);
    await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const params = { sessionId: "s", messages, tokenBudget: 4_000, prompt: "staging password Priya" };
    const first = await engine.assemble(params);
    const second = await engine.assemble(params);
    expect(second.messages).toEqual(first.messages);
    expect(isRecalledContext(first.messages.at(-1) as AgentMessage)).toBe(true);
  });

  it("puts the block before the turn's own steps in a tool loop, so the tool exchange stays last", async () => {
    const { messages, turn, assemble } = await compactedChatAndLoop();
    // A later call of the tool loop: the host's history already holds this turn's first step.
    const first = await assemble(messages);
    const result = await assemble([...messages, ...turn]);
    expect(result.messages.slice(-3)).toEqual(turn);
    const block = result.messages.at(-4) as AgentMessage;
    expect(isRecalledContext(block)).toBe(true);
    // The same block as the turn's first call, so the loop's requests only grow at the end.
    expect(block).toEqual(first.messages.at(-1));
    // The host is told where the part that changes with the prompt starts, in both calls.
    expect(result.cacheBoundary).toBe(result.messages.length - 4);
    expect(first.cacheBoundary).toBe(first.messages.length - 1);
    expect(orphanToolResults(result.messages)).toEqual([]);
    expect(countMessagesTokens(o200k, result.messages)).toBeLessThanOrEqual(4_000);
  });

  it("keeps the block before the turn's prompt when the user steers the loop", async () => {
    const { messages, turn, assemble } = await compactedChatAndLoop();
    const steered: AgentMessage[] = [
      ...turn,
      userText("also check the on-call notes", 1_800_000_000_003),
      assistantToolCall("call_2", "read", { path: "ops/on-call.md" }, 1_800_000_000_004),
      toolResult("call_2", "read", "on-call: Priya this week", 1_800_000_000_005),
    ];
    const before = await assemble([...messages, ...turn]);
    const after = await assemble([...messages, ...steered]);
    // The request before the steering message is a prefix of the one after it.
    expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
    expect(after.messages.slice(-steered.length)).toEqual(steered);
    expect(isRecalledContext(after.messages.at(-steered.length - 1) as AgentMessage)).toBe(true);
    expect(orphanToolResults(after.messages)).toEqual([]);
  });

  it("puts the block last, after the view's answer to its newest call, when nothing is unstored", async () => {
    const messages = [
      ...chatWithFact(),
      userText("read the runbook", 1_700_000_200_000),
      assistantToolCall("call_lost", "read", { path: "ops/runbook.md" }, 1_700_000_200_001),
    ];
    const engine = await engineWith(messages);
    await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const plain = await engine.assemble({ sessionId: "s", messages, tokenBudget: 4_000 });
    const prompted = await engine.assemble({
      sessionId: "s",
      messages,
      tokenBudget: 4_000,
      prompt: LOOP_PROMPT,
    });
    expect(isRecalledContext(prompted.messages.at(-1) as AgentMessage)).toBe(true);
    expect(prompted.messages.slice(0, -1)).toEqual(plain.messages);
  });

  it("places the block before the turn's prompt, and never between a call and its result", () => {
    const block = userText("(the evidence block)", 0);
    const view = [userText("earlier", 1), assistantText("noted", 2)];
    const prompt = userText("find the flag", 3);
    const call = assistantToolCall("c0", "exec", { command: "grep -r flag" }, 4);
    const result = toolResult("c0", "exec", "no match", 5);
    const steer = userText("also skip vendor/", 6);
    const at = (messages: AgentMessage[], live: number) =>
      placeEvidence(messages, live, block).indexOf(block);
    expect(at([...view, prompt, call, result], 3)).toBe(2);
    expect(at(view, 0)).toBe(2);
    // A steering message alone in the live part, typed between a call and its result.
    expect(at([...view, call, steer, result], 2)).toBe(2);
    // A live part that starts with the result of the view's last call.
    expect(at([...view, call, result], 1)).toBe(2);
  });

  it("is off with recallShare 0, and a prompt with only function words recalls nothing", async () => {
    const messages = chatWithFact();
    const off = await engineWith(messages, { recallShare: 0 });
    await off.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const offResult = await off.assemble({ sessionId: "s", messages, tokenBudget: 4_000, prompt: "staging" });
    expect(offResult.messages.some(isRecalledContext)).toBe(false);
    const on = await engineWith(messages);
    await on.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const vague = await on.assemble({ sessionId: "s", messages, tokenBudget: 4_000, prompt: "what is it?" });
    expect(vague.messages.some(isRecalledContext)).toBe(false);
  });

  it("stays within every budget with a prompt, and never leaves a tool result without its call", async () => {
    const messages = longConversation(40);
    const engine = await engineWith(messages);
    const prompt = "read logs/huge.log and the screenshot, alpha build cache";
    for (const tokenBudget of [300, 700, 1_500, 4_000, 9_000, 25_000]) {
      await engine.compact({ sessionId: "s", tokenBudget, force: true });
      const result = await engine.assemble({ sessionId: "s", messages, tokenBudget, prompt });
      const sent =
        countMessagesTokens(o200k, result.messages) + o200k.countText(result.systemPromptAddition ?? "");
      expect(sent, `budget ${tokenBudget}`).toBeLessThanOrEqual(tokenBudget);
      expect(orphanToolResults(result.messages)).toEqual([]);
      const block = result.messages.filter(isRecalledContext);
      expect(block.length).toBeLessThanOrEqual(1);
      // Half the budget at most, and the cap.
      if (block[0] !== undefined) expect(o200k.countMessage(block[0])).toBeLessThanOrEqual(tokenBudget / 2);
    }
  });

  it("rejects a recall share of 1 or more with the option's name", async () => {
    await expect(engines.engine({ recallShare: 1 })).rejects.toThrow(/lossless\.recallShare/);
  });
});

describe("query words", () => {
  it("drops punctuation, possessives and function words, and keeps codes and paths as written", () => {
    expect(queryWords("What is the name of Alice's dog?", 12)).toEqual(["name", "Alice", "dog"]);
    expect(queryWords("Where is NDL-7K2M9QXA in src/app.ts, (deploy)?", 12)).toEqual([
      "NDL-7K2M9QXA",
      "src/app.ts",
      "deploy",
    ]);
    expect(queryWords("the a of ? !!", 12)).toEqual([]);
  });

  it("keeps each word once and, past the limit, the longest words in written order", () => {
    expect(queryWords("cache Cache CACHE build", 12)).toEqual(["cache", "build"]);
    expect(queryWords("ab abcdef abc abcdefgh xy", 2)).toEqual(["abcdef", "abcdefgh"]);
  });

  it("splits pasted data (a word past 64 characters) into its parts instead of one long phrase", () => {
    const pasted = '{"type":"message","id":"toolu_019tYDrbzifrra2KYzmYqWvk","at":"2025-12-09T00:20:16.036Z"}';
    expect(queryWords(`fix this ${pasted}`, 12)).toEqual([
      "fix",
      "type",
      "message",
      "id",
      "toolu_019tYDrbzifrra2KYzmYqWvk",
      "2025-12-09T00:20:16.036Z",
    ]);
    const path = "/Users/someone/workspaces/project/packages/coding-agent/src/cli.ts";
    expect(queryWords(`open ${path}`, 12)).toEqual(["open", path]);
  });
});
