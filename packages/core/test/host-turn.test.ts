import { describe, expect, it, vi } from "vitest";
import {
  type ContextEngine,
  ContextEngineHost,
  charEstimateTokenCounter,
  DEFAULT_MAX_STEPS,
  MemoryLogger,
  type ModelStepFunction,
} from "../src/index.js";
import {
  defineEngine,
  paramsOf,
  registerEngine,
  roles,
  slotConfig,
  toolCallMessage,
  toolResultMessage,
} from "./fixtures.js";
import {
  assistantMessage,
  conversation,
  createTestHost,
  EchoModel,
  testModel,
  userMessage,
} from "./support.js";
import { defaultEngineHost, engineHost, SYSTEM, toolLoopModel, turn } from "./turn-helpers.js";

const counter = charEstimateTokenCounter;

describe("bootstrap", () => {
  it("bootstrap runs only for a session whose transcript existed before, before the first assemble", async () => {
    const events: string[] = [];
    const bootstrap = vi.fn<NonNullable<ContextEngine["bootstrap"]>>(async () => {
      events.push("bootstrap");
      return { bootstrapped: true, importedMessages: 2 };
    });
    const assemble = vi.fn<ContextEngine["assemble"]>(async (params) => {
      events.push("assemble");
      return { messages: params.messages, estimatedTokens: 0 };
    });
    const { host, sessions } = engineHost({ bootstrap, assemble });

    await turn(host, sessions.open({ sessionId: "old", messages: conversation(1) }));

    expect(events).toEqual(["bootstrap", "assemble"]);
    expect(paramsOf(bootstrap)).toMatchObject({
      sessionId: "old",
      sessionKey: "agent:main:old",
      sessionFile: "memory:old",
      sessionTarget: {
        agentId: "main",
        sessionId: "old",
        sessionKey: "agent:main:old",
        storePath: "memory:",
      },
    });
    expect(paramsOf(bootstrap).runtimeContext?.rewriteTranscriptEntries).toBeUndefined();
  });

  it("a brand-new session is never bootstrapped, not even on later turns", async () => {
    const bootstrap = vi.fn(async () => ({ bootstrapped: true }));
    const { host, sessions } = engineHost({ bootstrap });
    const session = sessions.open({ sessionId: "new" });

    await turn(host, session);
    await turn(host, session);

    expect(bootstrap).not.toHaveBeenCalled();
  });

  it("bootstrap runs once per session per host", async () => {
    const bootstrap = vi.fn<NonNullable<ContextEngine["bootstrap"]>>(async () => ({ bootstrapped: true }));
    const { host, registry, sessions } = engineHost({ bootstrap });
    const first = sessions.open({ sessionId: "s1", messages: conversation(1) });
    const second = sessions.open({ sessionId: "s2", messages: conversation(1) });

    await turn(host, first);
    await turn(host, first);
    await turn(host, second);
    expect(bootstrap.mock.calls.map(([params]) => params.sessionId)).toEqual(["s1", "s2"]);

    const otherHost = new ContextEngineHost({
      registry,
      config: slotConfig("acme"),
      logger: new MemoryLogger(),
    });
    await turn(otherHost, first);
    expect(bootstrap.mock.calls.map(([params]) => params.sessionId)).toEqual(["s1", "s2", "s1"]);
  });

  it("a compaction maintain reports reaches the hooks as trigger maintain, one that reduced nothing never", async () => {
    const reports = [
      { tokensBefore: 9_000, tokensAfter: 3_000 },
      { tokensBefore: 3_000, tokensAfter: 3_000 },
      undefined,
    ];
    let call = 0;
    const maintain = vi.fn<NonNullable<ContextEngine["maintain"]>>(async () => {
      const compaction = reports[call++];
      return { changed: false, bytesFreed: 0, rewrittenEntries: 0, ...(compaction ? { compaction } : {}) };
    });
    const seen: Array<[string, number | undefined]> = [];
    const context = createTestHost({
      config: slotConfig("acme"),
      hooks: { afterCompaction: (event) => seen.push([event.trigger, event.result.result?.tokensAfter]) },
    });
    registerEngine(
      context.registry,
      "acme",
      defineEngine("acme", { maintain, info: { ownsCompaction: true } }),
    );
    const session = context.sessions.open({ sessionId: "m" });
    for (let turnIndex = 0; turnIndex < 3; turnIndex++) await turn(context.host, session);
    expect(maintain).toHaveBeenCalledTimes(3);
    expect(seen).toEqual([["maintain", 3_000]]);
  });

  it("an engine with maintain but no bootstrap still gets the bootstrap maintenance pass", async () => {
    const maintain = vi.fn<NonNullable<ContextEngine["maintain"]>>(async () => ({
      changed: false,
      bytesFreed: 0,
      rewrittenEntries: 0,
    }));
    const { host, sessions } = engineHost({ maintain });

    await turn(host, sessions.open({ sessionId: "old", messages: conversation(1) }));
    await turn(host, sessions.open({ sessionId: "new" }));

    expect(
      maintain.mock.calls.map(([params]) => [params.sessionId, params.runtimeContext?.maintenanceReason]),
    ).toEqual([
      ["old", "bootstrap"],
      ["old", "turn"],
      ["new", "turn"],
    ]);
  });

  it("bootstrap and maintain get the session's context budget in runtimeContext, before any assemble", async () => {
    const bootstrap = vi.fn<NonNullable<ContextEngine["bootstrap"]>>(async () => ({ bootstrapped: true }));
    const maintain = vi.fn<NonNullable<ContextEngine["maintain"]>>(async () => ({
      changed: false,
      bytesFreed: 0,
      rewrittenEntries: 0,
    }));
    const { host, sessions } = engineHost({ bootstrap, maintain });

    await turn(host, sessions.open({ sessionId: "old", messages: conversation(1) }));
    await turn(host, sessions.open({ sessionId: "small", messages: conversation(1) }), {
      model: { ...testModel, contextWindow: 16_000 },
    });

    // The window less the reserve it affords: 100,000 − 20,000, and 16,000 − 8,000.
    expect(paramsOf(bootstrap, 0).runtimeContext?.tokenBudget).toBe(80_000);
    expect(maintain.mock.calls.map(([params]) => params.runtimeContext?.tokenBudget)).toEqual([
      80_000, 80_000, 8_000, 8_000,
    ]);
    expect(paramsOf(bootstrap, 1).runtimeContext?.tokenBudget).toBe(8_000);
  });

  it("a throwing bootstrap does not fail the turn", async () => {
    const { host, registry, sessions } = engineHost({
      bootstrap: async () => {
        throw new Error("bootstrap exploded");
      },
    });

    const result = await turn(host, sessions.open({ sessionId: "s1", messages: conversation(1) }));

    expect(result.steps).toBe(1);
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "bootstrap",
      reason: "bootstrap exploded",
    });
  });

  it("a throwing bootstrap of an unguarded engine is logged and the run continues", async () => {
    const { host, logger, sessions } = defaultEngineHost({
      bootstrap: async () => {
        throw new Error("bootstrap exploded");
      },
    });
    const model = new EchoModel();

    await turn(host, sessions.open({ sessionId: "s1", messages: conversation(1) }), {
      callModel: model.step,
    });

    expect(logger.messages("warn")).toContain("context engine bootstrap failed: bootstrap exploded");
    expect(model.requests).toHaveLength(1);
  });
});

describe("assemble", () => {
  it("assemble runs before every model call, including tool-loop steps", async () => {
    const events: string[] = [];
    const assemble = vi.fn<ContextEngine["assemble"]>(async (params) => {
      events.push("assemble");
      return { messages: params.messages, estimatedTokens: 0 };
    });
    const { host, sessions } = engineHost({ assemble });
    const model = toolLoopModel();
    const history = conversation(1);
    const session = sessions.open({ sessionId: "s1", messages: history });

    const result = await turn(host, session, {
      callModel: async (request) => {
        events.push(`model ${request.step}`);
        return model.step(request);
      },
    });

    expect(events).toEqual(["assemble", "model 0", "assemble", "model 1"]);
    expect(result.steps).toBe(2);
    expect(paramsOf(assemble, 0).messages).toEqual(history);
    expect(paramsOf(assemble, 0).prompt).toBe("hello");
    expect(roles(paramsOf(assemble, 1).messages)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "toolResult",
    ]);
    expect(roles(model.requests[0]?.messages ?? [])).toEqual(["user", "assistant", "user"]);
    expect(model.requests[0]?.messages.at(-1)).toMatchObject({ role: "user", content: "hello" });
    expect(roles(model.requests[1]?.messages ?? [])).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "toolResult",
    ]);
    expect(roles(result.newMessages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(roles(await session.messages())).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  });

  it("stops at maxSteps with the model still calling tools, and says so; an answer is not a stop", async () => {
    const { host, sessions } = engineHost({});
    const calls: number[] = [];
    const endless: ModelStepFunction = async (request) => {
      calls.push(request.step);
      const id = `call-${request.step}`;
      return {
        messages: [toolCallMessage(id, "search"), toolResultMessage(id, "search", `found ${request.step}`)],
        done: false,
      };
    };
    const session = sessions.open({ sessionId: "s1", messages: conversation(1) });
    const stopped = await turn(host, session, { callModel: endless, maxSteps: 3 });
    expect(calls).toEqual([0, 1, 2]);
    expect(stopped).toMatchObject({ steps: 3, stepLimitReached: true, aborted: false, finalized: true });
    expect(roles(stopped.newMessages).at(-1)).toBe("toolResult");
    expect(roles(await stopped.session.messages()).slice(-2)).toEqual(["assistant", "toolResult"]);

    const answered = await turn(host, stopped.session, { callModel: toolLoopModel().step, maxSteps: 2 });
    expect(answered).toMatchObject({ steps: 2, stepLimitReached: false });
    expect(DEFAULT_MAX_STEPS).toBe(200);
    // A limit below one still makes the call a turn needs.
    const once = await turn(host, answered.session, { callModel: endless, maxSteps: 0 });
    expect(once).toMatchObject({ steps: 1, stepLimitReached: true });
    expect(once.lastContext).toBeDefined();
  });

  it("the tokenBudget is the window minus the reserve, the system prompt and the pending messages", async () => {
    const assemble = vi.fn<ContextEngine["assemble"]>(async (params) => ({
      messages: params.messages,
      estimatedTokens: 0,
    }));
    const { host, sessions } = engineHost({ assemble });

    await turn(host, sessions.open({ sessionId: "s1" }), { callModel: toolLoopModel().step });

    const firstBudget =
      100_000 - 20_000 - counter.countText(SYSTEM) - counter.countMessage(userMessage("hello"));
    expect(paramsOf(assemble, 0).tokenBudget).toBe(firstBudget);
    expect(paramsOf(assemble, 0).runtimeContext?.tokenBudget).toBe(firstBudget);
    expect(paramsOf(assemble, 1).tokenBudget).toBe(100_000 - 20_000 - counter.countText(SYSTEM));
  });

  it("the tokenBudget honours agents.defaults.contextTokens and compaction.reserveTokens", async () => {
    const assemble = vi.fn<ContextEngine["assemble"]>(async (params) => ({
      messages: params.messages,
      estimatedTokens: 0,
    }));
    const config = slotConfig(
      "acme",
      {},
      { agents: { defaults: { contextTokens: 50_000, compaction: { reserveTokens: 1_000 } } } },
    );
    const { host, sessions } = engineHost({ assemble }, { config });

    await turn(host, sessions.open({ sessionId: "s1" }));

    expect(paramsOf(assemble).tokenBudget).toBe(
      50_000 - 1_000 - counter.countText(SYSTEM) - counter.countMessage(userMessage("hello")),
    );
  });

  it("the tokenBudget is at least 1", async () => {
    const assemble = vi.fn<ContextEngine["assemble"]>(async (params) => ({
      messages: params.messages,
      estimatedTokens: 0,
    }));
    const { host, sessions } = engineHost({ info: { ownsCompaction: true }, assemble });

    // Half of a 10-token window is left to the prompt: less than the system prompt and the turn.
    await turn(host, sessions.open({ sessionId: "s1" }), { model: { ...testModel, contextWindow: 10 } });

    expect(counter.countText(SYSTEM) + counter.countMessage(userMessage("hello"))).toBeGreaterThan(5);
    expect(paramsOf(assemble).tokenBudget).toBe(1);
  });

  it("a window smaller than the reserve keeps min(8,000, half the window) for the prompt", async () => {
    const assemble = vi.fn<ContextEngine["assemble"]>(async (params) => ({
      messages: params.messages,
      estimatedTokens: 0,
    }));
    const afterTurn = vi.fn<NonNullable<ContextEngine["afterTurn"]>>(async () => {});
    const { host, sessions } = engineHost({ info: { ownsCompaction: true }, assemble, afterTurn });
    const pending = counter.countMessage(userMessage("hello"));

    // The default reserve (20,000) is more than either window: before, both budgets were 1.
    await turn(host, sessions.open({ sessionId: "w16" }), { model: { ...testModel, contextWindow: 16_000 } });
    await turn(host, sessions.open({ sessionId: "w8" }), { model: { ...testModel, contextWindow: 8_000 } });

    expect(paramsOf(assemble, 0).tokenBudget).toBe(8_000 - counter.countText(SYSTEM) - pending);
    expect(paramsOf(afterTurn, 0).tokenBudget).toBe(8_000);
    expect(paramsOf(assemble, 0).runtimeSettings?.limits.maxOutputTokens).toBe(8_000);
    expect(paramsOf(assemble, 1).tokenBudget).toBe(4_000 - counter.countText(SYSTEM) - pending);
    expect(paramsOf(afterTurn, 1).tokenBudget).toBe(4_000);
    expect(host.effectiveReserveTokens(32_000)).toBe(20_000);
    expect(host.effectiveReserveTokens(100_000)).toBe(20_000);
  });

  it("legacy on a 16k window compacts past window − effective reserve, not on every turn", async () => {
    const { host, sessions } = createTestHost();
    const session = sessions.open({ sessionId: "small", messages: conversation(3) });
    const small = { ...testModel, contextWindow: 16_000 };

    const quiet = await turn(host, session, { model: small });
    // 16,000 − 20,000 is below any context: the threshold used to fire after every turn.
    expect(quiet.compactions.filter((outcome) => outcome.trigger === "threshold")).toEqual([]);

    // About 5,000 tokens sent (under the 8,000 left to the prompt), then a 4,000-token reply.
    await session.append([userMessage("x".repeat(20_000))]);
    const longReply = async () => ({ messages: [assistantMessage("y".repeat(16_000))], done: true });
    const full = await turn(host, session, { model: small, callModel: longReply });
    expect(full.compactions.map((outcome) => outcome.trigger)).toContain("threshold");
  });

  it("assemble receives the model id and the available tools", async () => {
    const assemble = vi.fn<ContextEngine["assemble"]>(async (params) => ({
      messages: params.messages,
      estimatedTokens: 0,
    }));
    const { host, sessions } = engineHost({ assemble });
    const availableTools = new Set(["search", "read"]);

    await turn(host, sessions.open({ sessionId: "s1" }), { availableTools });

    expect(paramsOf(assemble).model).toBe("test-model");
    expect(paramsOf(assemble).availableTools).toBe(availableTools);
  });

  it("the model sees exactly the assembled messages followed by the prompt", async () => {
    const recalled = userMessage("recalled fact");
    const { host, sessions } = engineHost({
      assemble: async (params) => ({
        messages: [recalled, ...params.messages.slice(-1)],
        estimatedTokens: 5,
      }),
    });
    const model = new EchoModel();
    const history = conversation(3);

    const result = await turn(host, sessions.open({ sessionId: "s1", messages: history }), {
      callModel: model.step,
    });

    expect(model.requests[0]?.messages).toEqual([
      recalled,
      history.at(-1),
      expect.objectContaining({ content: "hello" }),
    ]);
    expect(result.lastContext.assembled.estimatedTokens).toBe(5);
  });

  it("an engine's cacheBoundary reaches the model step when it lies inside the list, never otherwise", async () => {
    const seen: Array<number | undefined> = [];
    for (const boundary of [2, 0, 4, 1.5, "2", -1]) {
      const { host, sessions } = engineHost({
        assemble: async (params) => ({
          messages: params.messages.slice(-4),
          estimatedTokens: 5,
          cacheBoundary: boundary as number,
        }),
      });
      const model = new EchoModel();
      await turn(host, sessions.open({ sessionId: "s1", messages: conversation(3) }), {
        callModel: model.step,
      });
      seen.push(model.requests[0]?.cacheBoundary);
    }
    expect(seen).toEqual([2, undefined, undefined, undefined, undefined, undefined]);
  });

  it("a systemPromptAddition is trimmed and prepended to the system prompt", async () => {
    const { host, sessions } = engineHost({
      assemble: async (params) => ({
        messages: params.messages,
        estimatedTokens: 0,
        systemPromptAddition: "  Remember X.  ",
      }),
    });
    const model = new EchoModel();

    const result = await turn(host, sessions.open({ sessionId: "s1" }), { callModel: model.step });

    expect(model.requests[0]?.systemPrompt).toBe(`Remember X.\n\n${SYSTEM}`);
    expect(result.lastContext.systemPrompt).toBe(`Remember X.\n\n${SYSTEM}`);
  });

  it("a blank systemPromptAddition leaves the system prompt unchanged", async () => {
    const { host, sessions } = engineHost({
      assemble: async (params) => ({
        messages: params.messages,
        estimatedTokens: 0,
        systemPromptAddition: "   ",
      }),
    });
    const model = new EchoModel();

    await turn(host, sessions.open({ sessionId: "s1" }), { callModel: model.step });

    expect(model.requests[0]?.systemPrompt).toBe(SYSTEM);
  });
});
