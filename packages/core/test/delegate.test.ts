import { describe, expect, it, vi } from "vitest";
import {
  type CompactParams,
  type CompactResult,
  ContextOverflowError,
  delegateCompactionToRuntime,
  LegacyContextEngine,
  RuntimeCompactionUnavailableError,
  type RuntimeCompactor,
  runWithRuntimeCompactor,
  type SessionRuntimeCompactor,
  SessionTargetConflictError,
} from "../src/index.js";
import { defineEngine, paramsOf, registerEngine, slotConfig } from "./fixtures.js";
import { assistantMessage, conversation, createTestHost, testModel } from "./support.js";

const compactedResult: CompactResult = {
  ok: true,
  compacted: true,
  result: { tokensBefore: 500, tokensAfter: 50 },
};

function recorder(result: CompactResult = compactedResult) {
  return vi.fn<RuntimeCompactor>(async () => result);
}

async function delegate(params: CompactParams, runtime = recorder()) {
  const result = await runWithRuntimeCompactor(runtime, () => delegateCompactionToRuntime(params));
  return { result, runtime, request: paramsOf(runtime) };
}

describe("what delegateCompactionToRuntime forwards (checklist 48)", () => {
  it("forwards abortSignal, identity, budget, token count from runtimeContext and workspaceDir, never sessionFile, and runtimeContext by reference", async () => {
    const controller = new AbortController();
    const sessionTarget = {
      agentId: "main",
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      storePath: "memory:",
    };
    const runtimeContext = {
      workspaceDir: "/work/ws",
      provider: "anthropic",
      sessionFile: "/transcripts/rc.jsonl",
      currentTokenCount: 277403,
    };
    const params: CompactParams = {
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      agentId: "main",
      sessionTarget,
      sessionFile: "/transcripts/s1.jsonl",
      tokenBudget: 5000,
      force: true,
      compactionTarget: "threshold",
      customInstructions: "keep the names",
      abortSignal: controller.signal,
      runtimeContext,
    };

    const { result, request } = await delegate(params);

    expect(result).toBe(compactedResult);
    expect(request.abortSignal).toBe(controller.signal);
    expect(request).toMatchObject({
      agentId: "main",
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      tokenBudget: 5000,
      currentTokenCount: 277403,
      workspaceDir: "/work/ws",
      force: true,
      customInstructions: "keep the names",
      provider: "anthropic",
    });
    expect(request.sessionTarget).toBe(sessionTarget);
    expect(request.runtimeContext).toBe(runtimeContext);
    expect(Object.hasOwn(request, "sessionFile")).toBe(false);
    expect(Object.hasOwn(request, "compactionTarget")).toBe(false);
  });

  it("a currentTokenCount in params wins over runtimeContext", async () => {
    const { request } = await delegate({
      sessionId: "s1",
      currentTokenCount: 1200,
      runtimeContext: { currentTokenCount: 277403 },
    });
    expect(request.currentTokenCount).toBe(1200);
  });

  it("identity in params wins over runtimeContext", async () => {
    const { request } = await delegate({
      sessionId: "s1",
      agentId: "main",
      sessionKey: "agent:main:s1",
      runtimeContext: { agentId: "stale", sessionKey: "agent:main:stale" },
    });
    expect(request.agentId).toBe("main");
    expect(request.sessionKey).toBe("agent:main:s1");
  });

  it("identity and sessionTarget come from runtimeContext when params lack them", async () => {
    const sessionTarget = { agentId: "main", sessionId: "s1", sessionKey: "agent:main:s1" };
    const { request } = await delegate({
      sessionId: "s1",
      runtimeContext: { agentId: "main", sessionKey: "agent:main:s1", sessionTarget },
    });
    expect(request).toMatchObject({ agentId: "main", sessionKey: "agent:main:s1" });
    expect(request.sessionTarget).toBe(sessionTarget);
  });

  it("workspaceDir defaults to the process working directory", async () => {
    const { request } = await delegate({ sessionId: "s1" });
    expect(request.workspaceDir).toBe(process.cwd());
  });

  it("returns the runtime's result, including a successor sessionTarget", async () => {
    const successor: CompactResult = {
      ok: true,
      compacted: true,
      result: {
        tokensBefore: 500,
        tokensAfter: 20,
        sessionTarget: { agentId: "main", sessionId: "s1-next", sessionKey: "agent:main:s1" },
      },
    };
    const { result } = await delegate({ sessionId: "s1" }, recorder(successor));
    expect(result).toBe(successor);
    expect(result.result?.sessionTarget?.sessionId).toBe("s1-next");
  });

  it("outside a host engine call there is no runtime to delegate to", async () => {
    await expect(delegateCompactionToRuntime({ sessionId: "s1" })).rejects.toBeInstanceOf(
      RuntimeCompactionUnavailableError,
    );
  });
});

describe("legacy compaction token counts (checklist 49)", () => {
  it("legacy compact keeps runtimeContext.currentTokenCount", async () => {
    const runtime = recorder();
    const legacy = new LegacyContextEngine();

    await runWithRuntimeCompactor(runtime, () =>
      legacy.compact({ sessionId: "s1", runtimeContext: { currentTokenCount: 277403 } }),
    );

    expect(paramsOf(runtime).currentTokenCount).toBe(277403);
  });

  it("a fractional runtimeContext token count is floored", async () => {
    const { request } = await delegate({ sessionId: "s1", runtimeContext: { currentTokenCount: 277403.9 } });
    expect(request.currentTokenCount).toBe(277403);
  });

  it.each([[0], [-5], [Number.NaN], ["277403"]])(
    "a runtimeContext token count of %j that is not a finite positive number is not forwarded",
    async (value) => {
      const { request } = await delegate({
        sessionId: "s1",
        runtimeContext: { currentTokenCount: value as number },
      });
      expect(request.currentTokenCount).toBeUndefined();
    },
  );

  it("an overflow on the legacy engine reaches the runtime compactor with the observed token count", async () => {
    const runtimeCompaction = vi.fn<SessionRuntimeCompactor>(async () => compactedResult);
    const { host, sessions } = createTestHost({ runtimeCompaction });
    let calls = 0;

    await host.runTurn({
      session: sessions.open({ sessionId: "s1", messages: conversation(2) }),
      prompt: "hello",
      systemPrompt: "sys",
      model: testModel,
      callModel: async () => {
        calls += 1;
        if (calls === 1) throw new ContextOverflowError("prompt is too long", { estimatedTokens: 277403 });
        return { messages: [assistantMessage("ok")], done: true };
      },
    });

    expect(runtimeCompaction).toHaveBeenCalledTimes(1);
    expect(paramsOf(runtimeCompaction)).toMatchObject({
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      agentId: "main",
      currentTokenCount: 277403,
      tokenBudget: testModel.contextWindow,
      force: true,
    });
  });
});

describe("successor conflicts (checklist 50)", () => {
  const caller = { sessionId: "s1", agentId: "main", sessionKey: "agent:main:s1" };

  it.each([
    ["agent", { ...caller, sessionTarget: { agentId: "ops" } }],
    ["session", { ...caller, sessionTarget: { sessionId: "s2" } }],
    ["key", { ...caller, sessionTarget: { sessionKey: "agent:main:other" } }],
    ["key agent prefix", { sessionId: "s1", agentId: "main", sessionTarget: { sessionKey: "agent:ops:s1" } }],
    [
      "key agent prefix of the caller key",
      { sessionId: "s1", sessionKey: "agent:main:s1", sessionTarget: { agentId: "ops" } },
    ],
  ])(
    "a successor sessionTarget whose %s conflicts with the caller throws before the backend runs",
    async (_label, params) => {
      const runtime = recorder();

      const attempt = runWithRuntimeCompactor(runtime, () => delegateCompactionToRuntime(params));

      await expect(attempt).rejects.toBeInstanceOf(SessionTargetConflictError);
      await expect(attempt).rejects.toThrow(
        /^Context-engine successor target conflicts with the caller session identity/,
      );
      expect(runtime).not.toHaveBeenCalled();
    },
  );

  it("a successor target that matches the caller reaches the backend", async () => {
    const { runtime } = await delegate({
      ...caller,
      sessionTarget: { agentId: "main", sessionId: "s1", sessionKey: "agent:main:s1", storePath: "memory:" },
    });
    expect(runtime).toHaveBeenCalledTimes(1);
  });
});

describe("identity normalisation (checklist 51)", () => {
  it("whitespace in the runtime identity is normalised when params carry no caller key", async () => {
    const { request, runtime } = await delegate({
      sessionId: "  s1 ",
      sessionTarget: { agentId: "main", sessionId: "s1", sessionKey: "agent:main:s1" },
      runtimeContext: { sessionKey: "  agent:main:s1  ", agentId: " main " },
    });

    expect(runtime).toHaveBeenCalledTimes(1);
    expect(request).toMatchObject({ sessionId: "s1", sessionKey: "agent:main:s1", agentId: "main" });
  });

  it("after host projection omitted the caller key, a delegating engine still compacts the right session", async () => {
    const runtimeCompaction = vi.fn<SessionRuntimeCompactor>(async () => compactedResult);
    const { host, registry, sessions } = createTestHost({ config: slotConfig("acme"), runtimeCompaction });
    const compact = vi.fn((params: CompactParams) => delegateCompactionToRuntime(params));
    registerEngine(
      registry,
      "acme",
      defineEngine("acme", { info: { acceptedHostParams: ["runtimeContext"] }, compact }),
    );
    const session = sessions.open({ sessionId: "s1", messages: conversation(3) });

    const outcome = await host.compactManually(session);

    expect(outcome.result).toBe(compactedResult);
    expect(Object.hasOwn(paramsOf(compact), "sessionKey")).toBe(false);
    expect(Object.hasOwn(paramsOf(compact), "sessionTarget")).toBe(false);
    expect(paramsOf(runtimeCompaction)).toMatchObject({
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      agentId: "main",
      sessionTarget: { agentId: "main", sessionId: "s1", sessionKey: "agent:main:s1", storePath: "memory:" },
      workspaceDir: process.cwd(),
    });
    expect(runtimeCompaction.mock.calls[0]?.[1]).toBe(session);
  });
});
