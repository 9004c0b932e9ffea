import { describe, expect, it, vi } from "vitest";
import {
  type AgentMessage,
  type AssembleResult,
  type CompactParams,
  type ContextEngine,
  ContextOverflowError,
  charEstimateTokenCounter,
  compactionSummaryText,
  countMessagesTokens,
  delegateCompactionToRuntime,
  type HostModel,
  type HostSession,
  PRECHECK_SAFETY_MARGIN,
} from "../src/index.js";
import { defineEngine, type EngineParts, paramsOf, registerEngine, slotConfig } from "./fixtures.js";
import {
  assistantMessage,
  conversation,
  createTestHost,
  EchoModel,
  testModel,
  userMessage,
} from "./support.js";

const SYSTEM = "You are a test.";
const counter = charEstimateTokenCounter;

/** 2000-token window and a 200-token reserve: prompts above 1800 estimated tokens overflow. */
const smallModel: HostModel = { id: "small", provider: "test", contextWindow: 2_000 };
const smallConfig = slotConfig("acme", {}, { agents: { defaults: { compaction: { reserveTokens: 200 } } } });
const PROMPT_BUDGET = 1_800;

/** Short questions and long answers: about 3,000 tokens that compact into a small summary. */
function longHistory(): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let turn = 0; turn < 20; turn++) {
    messages.push(userMessage(`q${turn}`, turn * 2));
    messages.push(assistantMessage(`answer ${"a".repeat(600)}`, turn * 2 + 1));
  }
  return messages;
}

/** The host's estimate of a prompt whose message part counts `messages`. */
function estimate(messages: AgentMessage[]): number {
  return Math.ceil(
    (counter.countText(SYSTEM) +
      countMessagesTokens(counter, messages) +
      counter.countMessage(userMessage("hello"))) *
      PRECHECK_SAFETY_MARGIN,
  );
}

function setup(parts: EngineParts, model: HostModel = smallModel) {
  const context = createTestHost({ config: smallConfig });
  registerEngine(context.registry, "acme", defineEngine("acme", parts));
  const echo = new EchoModel();
  const run = (session: HostSession) =>
    context.host.runTurn({ session, prompt: "hello", systemPrompt: SYSTEM, model, callModel: echo.step });
  return { ...context, echo, run };
}

const passThrough = async (params: { messages: AgentMessage[] }): Promise<AssembleResult> => ({
  messages: params.messages,
  estimatedTokens: 0,
});

describe("assemble fallbacks", () => {
  it("a throwing assemble falls back to the pipeline messages and quarantines the engine", async () => {
    const { registry, sessions, echo, run } = setup(
      {
        assemble: async () => {
          throw new Error("assemble exploded");
        },
      },
      testModel,
    );
    const history = conversation(2);

    await run(sessions.open({ sessionId: "s1", messages: history }));

    expect(echo.requests[0]?.messages).toEqual([
      ...history,
      expect.objectContaining({ role: "user", content: "hello" }),
    ]);
    expect(registry.quarantine.get("acme")?.operation).toBe("assemble");
  });

  it("an assemble failure that reaches the host is logged and the pipeline messages are used", async () => {
    const context = createTestHost();
    context.registry.registerContextEngine(
      "legacy",
      async () =>
        defineEngine("legacy", {
          assemble: async () => {
            throw new Error("assemble exploded");
          },
        }),
      { owner: "core", allowSameOwnerRefresh: true },
    );
    const echo = new EchoModel();
    const history = conversation(1);

    const result = await context.host.runTurn({
      session: context.sessions.open({ sessionId: "s1", messages: history }),
      prompt: "hello",
      systemPrompt: SYSTEM,
      model: testModel,
      callModel: echo.step,
    });

    expect(context.logger.messages("warn")).toEqual([
      "context engine assemble failed, using pipeline messages: assemble exploded",
    ]);
    expect(result.lastContext.assemblySucceeded).toBe(false);
    expect(echo.requests[0]?.messages.slice(0, 2)).toEqual(history);
  });

  it.each([
    ["null", null],
    ["array", []],
    ["object", { messages: "not an array", estimatedTokens: 1 }],
  ])("an invalid assemble result (%s) falls back to the pipeline messages", async (kind, value) => {
    const { logger, sessions, echo, run } = setup(
      { assemble: async () => value as unknown as AssembleResult },
      testModel,
    );
    const history = conversation(1);

    const result = await run(sessions.open({ sessionId: "s1", messages: history }));

    expect(logger.messages("warn")).toEqual([
      `context engine assemble failed, using pipeline messages: context engine "acme" assemble() returned an invalid result: expected an object with a "messages" array (got ${kind})`,
    ]);
    expect(result.lastContext.assemblySucceeded).toBe(false);
    expect(result.lastContext.messages).toEqual(history);
    expect(echo.requests[0]?.messages).toHaveLength(3);
  });

  it("after a failed assembly the precheck runs even for an engine that owns compaction", async () => {
    const { sessions, run } = setup(
      { info: { ownsCompaction: true }, assemble: async () => null as unknown as AssembleResult },
      testModel,
    );

    const result = await run(sessions.open({ sessionId: "s1", messages: conversation(1) }));

    expect(result.lastContext.prechecked).toBe(true);
  });
});

describe("the overflow precheck", () => {
  it("the precheck is skipped for an engine that owns compaction", async () => {
    const compact = vi.fn<ContextEngine["compact"]>(async () => ({ ok: true, compacted: true }));
    const { logger, sessions, echo, run } = setup({
      info: { ownsCompaction: true },
      assemble: passThrough,
      compact,
    });
    const history = longHistory();

    const result = await run(sessions.open({ sessionId: "s1", messages: history }));

    expect(result.lastContext.prechecked).toBe(false);
    expect(result.lastContext.overflow).toBeUndefined();
    expect(result.lastContext.estimatedPromptTokens).toBe(estimate(history));
    expect(estimate(history)).toBeGreaterThan(PROMPT_BUDGET);
    expect(compact).not.toHaveBeenCalled();
    expect(echo.requests[0]?.messages).toHaveLength(history.length + 1);
    expect(logger.messages("debug")).toContain(
      '[context-overflow-precheck] skipped: context engine "acme" owns compaction',
    );
  });

  it("an overflowing prompt of a non-owning engine is compacted before the model is called", async () => {
    const compact = vi.fn((params: CompactParams) => delegateCompactionToRuntime(params));
    const { sessions, echo, run } = setup({ assemble: passThrough, compact });
    const history = longHistory();

    const result = await run(sessions.open({ sessionId: "s1", messages: history }));

    expect(compact).toHaveBeenCalledTimes(1);
    expect(paramsOf(compact)).toMatchObject({
      force: true,
      compactionTarget: "budget",
      currentTokenCount: estimate(history),
      tokenBudget: PROMPT_BUDGET,
      runtimeContext: {
        trigger: "precheck",
        currentTokenCount: estimate(history),
        tokenBudget: PROMPT_BUDGET,
      },
    });
    expect(result.compactions.map((outcome) => outcome.trigger)).toEqual(["precheck"]);
    expect(echo.requests).toHaveLength(1);
    const first = echo.requests[0]?.messages[0];
    expect(first).toMatchObject({ role: "user" });
    expect(String((first as { content: unknown }).content)).toMatch(
      /^The conversation history before this point/,
    );
    expect(String((first as { content: unknown }).content)).toBe(
      compactionSummaryText((result.compactions[0]?.result.result?.summary as string) ?? ""),
    );
    expect(result.lastContext.overflow).toBeUndefined();
  });

  it("promptAuthority preassembly_may_overflow keeps the precheck on for an owning engine and uses the pre-assembly estimate", async () => {
    const compact = vi.fn<ContextEngine["compact"]>(async () => ({
      ok: true,
      compacted: false,
      reason: "nothing to do",
    }));
    const { sessions, echo, run } = setup({
      info: { ownsCompaction: true },
      assemble: async (params) => ({
        messages: params.messages.slice(-2),
        estimatedTokens: 10,
        promptAuthority: "preassembly_may_overflow",
      }),
      compact,
    });
    const history = longHistory();
    const session = sessions.open({ sessionId: "s1", messages: history });

    const attempt = run(session);

    await expect(attempt).rejects.toBeInstanceOf(ContextOverflowError);
    await expect(attempt).rejects.toThrow(
      "Context overflow: prompt too large for the model (precheck). Compaction did not help: nothing to do.",
    );
    expect(paramsOf(compact).currentTokenCount).toBe(estimate(history));
    expect(estimate(history.slice(-2))).toBeLessThan(PROMPT_BUDGET);
    expect(paramsOf(compact).runtimeContext?.trigger).toBe("precheck");
    expect(echo.requests).toHaveLength(0);
    expect((await session.messages()).at(-1)).toMatchObject({ role: "assistant", stopReason: "error" });
  });

  it("with the default promptAuthority only the assembled messages are estimated", async () => {
    const history = longHistory();
    const { sessions, echo, run } = setup({
      assemble: async (params) => ({ messages: params.messages.slice(-2), estimatedTokens: 0 }),
    });

    const result = await run(sessions.open({ sessionId: "s1", messages: history }));

    expect(result.lastContext.prechecked).toBe(true);
    expect(result.lastContext.estimatedPromptTokens).toBe(estimate(history.slice(-2)));
    expect(result.lastContext.overflow).toBeUndefined();
    expect(echo.requests).toHaveLength(1);
  });

  it("under preassembly_may_overflow the estimate is the larger of the assembled and pre-assembly messages", async () => {
    const history = conversation(2);
    const recall = userMessage(`recalled ${"r".repeat(400)}`);
    const windowed = setup(
      {
        info: { ownsCompaction: true },
        assemble: async (params) => ({
          messages: params.messages.slice(-1),
          estimatedTokens: 0,
          promptAuthority: "preassembly_may_overflow",
        }),
      },
      testModel,
    );
    const enriched = setup(
      {
        info: { ownsCompaction: true },
        assemble: async (params) => ({
          messages: [recall, ...params.messages],
          estimatedTokens: 0,
          promptAuthority: "preassembly_may_overflow",
        }),
      },
      testModel,
    );

    const smaller = await windowed.run(windowed.sessions.open({ sessionId: "s1", messages: history }));
    const larger = await enriched.run(enriched.sessions.open({ sessionId: "s1", messages: history }));

    expect(smaller.lastContext.prechecked).toBe(true);
    expect(smaller.lastContext.estimatedPromptTokens).toBe(estimate(history));
    expect(larger.lastContext.prechecked).toBe(true);
    expect(larger.lastContext.estimatedPromptTokens).toBe(estimate([recall, ...history]));
    expect(windowed.echo.requests[0]?.messages).toHaveLength(2);
  });

  it("a precheck overflow is compacted at most 3 times, then the turn fails with ContextOverflowError", async () => {
    const compact = vi.fn<ContextEngine["compact"]>(async () => ({ ok: true, compacted: true }));
    const { sessions, echo, run } = setup({ assemble: passThrough, compact });

    await expect(run(sessions.open({ sessionId: "s1", messages: longHistory() }))).rejects.toThrow(
      /^Context overflow: prompt too large for the model \(precheck\)\./,
    );
    expect(compact).toHaveBeenCalledTimes(3);
    expect(echo.requests).toHaveLength(0);
  });
});
