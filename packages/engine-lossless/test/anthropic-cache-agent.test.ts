/**
 * Anthropic caches a prompt only at its breakpoints. The lossless engine puts a block that changes
 * with every prompt (earlier messages matching it) before the turn, so every prefix a turn cached
 * held that block and the next turn found none of them: each turn's first call paid its whole
 * history again. Through a real agent and a fake Anthropic server whose cache follows Anthropic's
 * rules (`withBreakpointCache`), each turn's first call must read the history the turn before it
 * shared with it, however long that turn's tool loop.
 */
import { type FakeReply, type RecordedRequest, withBreakpointCache } from "@clew/agent/testing";
import { SUMMARY_SYSTEM_PROMPT } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { createLosslessAgent } from "./support/agent-harness.js";

const KEY = "agent:main:main";
/** Tool steps per turn: 2 blocks each, so a turn adds more blocks than Anthropic looks back. */
const TOOL_STEPS = 12;

let agent: Awaited<ReturnType<typeof createLosslessAgent>> | undefined;
afterEach(async () => {
  await agent?.cleanup();
  agent = undefined;
});

type Block = Record<string, unknown>;
interface Body {
  system?: Block[];
  tools?: Block[];
  messages: Array<{ role: string; content: string | Block[] }>;
}

const bodyOf = (request: RecordedRequest) => request.body as Body;
const blocksOf = (content: string | Block[]): Block[] =>
  typeof content === "string" ? [{ type: "text", text: content }] : content;

function isSummaryCall(body: Body): boolean {
  return JSON.stringify(body.system ?? "").includes(JSON.stringify(SUMMARY_SYSTEM_PROMPT).slice(1, 60));
}

/** Tool calls the model made since the turn's prompt (the newest user message that is not results). */
function stepsSincePrompt(body: Body): number {
  let steps = 0;
  for (let index = body.messages.length - 1; index >= 0; index--) {
    const message = body.messages[index] as Body["messages"][number];
    const blocks = blocksOf(message.content);
    if (message.role === "user" && !blocks.some((block) => block.type === "tool_result")) break;
    if (message.role === "assistant") steps += blocks.filter((block) => block.type === "tool_use").length;
  }
  return steps;
}

function answer(request: RecordedRequest): FakeReply {
  const body = bodyOf(request);
  if (isSummaryCall(body)) return { text: "## Goal\n- keep the services' ports straight" };
  const steps = stepsSincePrompt(body);
  if (steps < TOOL_STEPS) return { toolCalls: [{ name: "read", arguments: { path: `notes-${steps}.md` } }] };
  const prompt = body.messages.findLast(
    (message) =>
      message.role === "user" && !blocksOf(message.content).some((block) => block.type === "tool_result"),
  );
  const service = /service-(\d)/.exec(JSON.stringify(prompt?.content ?? ""))?.[1] ?? "0";
  return {
    text: `service-${service} listens on port 80${service}0. ${"Checked the notes again. ".repeat(60)}`,
  };
}

const isBlock = (message: Body["messages"][number]) =>
  JSON.stringify(message.content).includes("[Recalled context]");
const withoutMarkers = (message: Body["messages"][number]) =>
  JSON.stringify(blocksOf(message.content).map(({ cache_control: _marker, ...block }) => block));
const tokensOf = (blocks: readonly Block[]) =>
  blocks.reduce((sum, block) => {
    const { cache_control: _marker, ...rest } = block;
    return sum + Math.ceil(JSON.stringify(rest).length / 4);
  }, 0);

describe("Anthropic's prompt cache through a real agent", () => {
  it("each turn's first call reads the history the previous turn left, evidence block or not", async () => {
    const cache = withBreakpointCache(answer);
    agent = await createLosslessAgent(cache.script, {
      protocol: "anthropic-messages",
      contextWindow: 24_000,
    });
    const { service, fake } = agent;
    await service.createSession({ sessionKey: KEY });
    for (let turn = 0; turn < 20; turn++) {
      const text = `Turn ${turn}: which port does service-${turn % 5} listen on? ${"Please check. ".repeat(20)}`;
      expect(await service.sendMessage(KEY, text)).toMatchObject({ ok: true });
    }

    const requests = fake.requests.map((request, index) => ({
      body: bodyOf(request),
      read: cache.cacheReads[index] ?? 0,
    }));
    // Anthropic refuses a request with more than four breakpoints.
    expect(Math.max(...cache.breakpoints)).toBeLessThanOrEqual(4);
    const chats = requests.filter((request) => !isSummaryCall(request.body));
    const firstCalls = chats.filter((request) => stepsSincePrompt(request.body) === 0);
    // The prompts, and the host's memory flush once the context nears its threshold.
    expect(firstCalls.length).toBeGreaterThanOrEqual(20);

    let checked = 0;
    for (let turn = 1; turn < firstCalls.length; turn++) {
      const previous = (firstCalls[turn - 1] as (typeof firstCalls)[number]).body;
      const current = firstCalls[turn] as (typeof firstCalls)[number];
      const block = previous.messages.findIndex(isBlock);
      if (block < 0) continue;
      // The previous turn's history before its block, still at the head of this call (no
      // compaction between): this call must read at least that, the tools and the system prompt.
      const shared = previous.messages.slice(0, block);
      const same = shared.every(
        (message, index) =>
          current.body.messages[index] !== undefined &&
          withoutMarkers(message) ===
            withoutMarkers(current.body.messages[index] as Body["messages"][number]),
      );
      if (!same) continue;
      const floor =
        tokensOf(current.body.tools ?? []) +
        tokensOf(current.body.system ?? []) +
        tokensOf(
          shared.flatMap((message) => blocksOf(message.content).map((b) => ({ ...b, role: message.role }))),
        );
      expect(current.read, `first call of turn ${turn}`).toBeGreaterThanOrEqual(floor);
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(3);
  });
});
