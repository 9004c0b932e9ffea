import { describe, expect, it, vi } from "vitest";
import {
  type ClewConfig,
  type CompactionHookEvent,
  type CompactResult,
  type ContextEngine,
  ContextOverflowError,
  type HostSession,
  type ModelStepFunction,
  type SessionRuntimeCompactor,
} from "../src/index.js";
import { defineEngine, type EngineParts, paramsOf, registerEngine, slotConfig } from "./fixtures.js";
import { assistantMessage, conversation, createTestHost, testModel } from "./support.js";

const compacted: CompactResult = {
  ok: true,
  compacted: true,
  result: { tokensBefore: 900, tokensAfter: 100 },
};

function setup(parts: EngineParts, config: ClewConfig = slotConfig("acme")) {
  const beforeCompaction = vi.fn<(event: CompactionHookEvent) => void>();
  const afterCompaction = vi.fn<(event: CompactionHookEvent & { result: CompactResult }) => void>();
  const runtimeCompaction = vi.fn<SessionRuntimeCompactor>(async () => compacted);
  const context = createTestHost({ config, hooks: { beforeCompaction, afterCompaction }, runtimeCompaction });
  registerEngine(context.registry, "acme", defineEngine("acme", parts));
  return { ...context, beforeCompaction, afterCompaction, runtimeCompaction };
}

/** A model that throws `failures` overflow errors, then answers. */
function overflowingModel(
  failures: number,
  error: () => unknown = () => new ContextOverflowError("prompt is too long"),
) {
  const step = vi.fn<ModelStepFunction>(async () => {
    if (step.mock.calls.length <= failures) throw error();
    return { messages: [assistantMessage("ok")], done: true };
  });
  return step;
}

function turn(host: ReturnType<typeof setup>["host"], session: HostSession, callModel: ModelStepFunction) {
  return host.runTurn({ session, prompt: "hello", systemPrompt: "sys", model: testModel, callModel });
}

describe("overflow recovery (checklist 59)", () => {
  it("a provider overflow triggers compact with force, target budget and trigger overflow, then a retry", async () => {
    const compact = vi.fn<ContextEngine["compact"]>(async () => compacted);
    const { host, sessions, beforeCompaction, afterCompaction } = setup({
      info: { ownsCompaction: true },
      compact,
    });
    const model = overflowingModel(1);
    const session = sessions.open({ sessionId: "s1", messages: conversation(1) });

    const result = await turn(host, session, model);

    expect(compact).toHaveBeenCalledTimes(1);
    expect(paramsOf(compact)).toMatchObject({
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      sessionFile: "memory:s1",
      force: true,
      compactionTarget: "budget",
      tokenBudget: testModel.contextWindow,
      runtimeContext: { trigger: "overflow", tokenBudget: testModel.contextWindow },
    });
    expect(model).toHaveBeenCalledTimes(2);
    expect(result.compactions.map((outcome) => outcome.trigger)).toEqual(["overflow"]);
    expect(result.newMessages).toHaveLength(2);
    expect((await session.messages()).filter((m) => "content" in m && m.content === "hello")).toHaveLength(1);
    expect(beforeCompaction).toHaveBeenCalledWith(
      expect.objectContaining({ trigger: "overflow", engineId: "acme", ownsCompaction: true }),
    );
    expect(afterCompaction).toHaveBeenCalledTimes(1);
  });

  it("the token count observed by the provider reaches compact", async () => {
    const compact = vi.fn<ContextEngine["compact"]>(async () => compacted);
    const { host, sessions } = setup({ compact });

    await turn(
      host,
      sessions.open({ sessionId: "s1" }),
      overflowingModel(1, () => new ContextOverflowError("too long", { estimatedTokens: 150_000 })),
    );

    expect(paramsOf(compact).currentTokenCount).toBe(150_000);
    expect(paramsOf(compact).runtimeContext?.currentTokenCount).toBe(150_000);
  });

  it("overflow recovery stops after 3 compactions with a ContextOverflowError", async () => {
    const compact = vi.fn<ContextEngine["compact"]>(async () => compacted);
    const { host, sessions } = setup({ compact });
    const last = new ContextOverflowError("still too long");
    const model = overflowingModel(99, () => last);
    const session = sessions.open({ sessionId: "s1" });

    const attempt = turn(host, session, model);

    await expect(attempt).rejects.toBeInstanceOf(ContextOverflowError);
    await expect(attempt).rejects.toThrow(/^Context overflow: prompt too large for the model \(provider\)\./);
    await expect(attempt).rejects.toHaveProperty("cause", last);
    expect(compact).toHaveBeenCalledTimes(3);
    expect(model).toHaveBeenCalledTimes(4);
    expect((await session.messages()).map((m) => ("role" in m ? m.role : "?"))).toEqual([
      "user",
      "assistant",
    ]);
  });

  it("a compaction that does not compact ends overflow recovery", async () => {
    const compact = vi.fn<ContextEngine["compact"]>(async () => ({
      ok: true,
      compacted: false,
      reason: "nothing to compact",
    }));
    const { host, sessions } = setup({ compact });
    const model = overflowingModel(1);

    await expect(turn(host, sessions.open({ sessionId: "s1" }), model)).rejects.toThrow(
      "Compaction did not help: nothing to compact.",
    );
    expect(compact).toHaveBeenCalledTimes(1);
    expect(model).toHaveBeenCalledTimes(1);
  });

  it("isContextOverflow decides which provider errors are overflows", async () => {
    const compact = vi.fn<ContextEngine["compact"]>(async () => compacted);
    const { host, sessions } = setup({ compact });
    const providerError = Object.assign(new Error("request too large"), { status: 413 });

    const result = await host.runTurn({
      session: sessions.open({ sessionId: "s1" }),
      prompt: "hello",
      systemPrompt: "sys",
      model: testModel,
      callModel: overflowingModel(1, () => providerError),
      isContextOverflow: (error) => (error as { status?: number }).status === 413,
    });
    expect(result.compactions).toHaveLength(1);

    await expect(
      turn(
        host,
        sessions.open({ sessionId: "s2" }),
        overflowingModel(1, () => providerError),
      ),
    ).rejects.toBe(providerError);
    expect(compact).toHaveBeenCalledTimes(1);
  });
});

describe("manual compaction (checklist 60)", () => {
  it("manual compaction of an owning engine sends force, target threshold, forceReason manual and the instructions", async () => {
    const compact = vi.fn<ContextEngine["compact"]>(async () => compacted);
    const { host, sessions, beforeCompaction } = setup({ info: { ownsCompaction: true }, compact });
    const session = sessions.open({ sessionId: "s1", messages: conversation(2) });

    const outcome = await host.compactManually(session, { customInstructions: "keep the decisions" });

    expect(outcome.trigger).toBe("manual");
    expect(outcome.result).toBe(compacted);
    expect(paramsOf(compact)).toMatchObject({
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      agentId: "main",
      sessionFile: "memory:s1",
      force: true,
      compactionTarget: "threshold",
      forceReason: "manual",
      customInstructions: "keep the decisions",
      runtimeContext: { trigger: "manual", forceReason: "manual" },
    });
    expect(beforeCompaction).toHaveBeenCalledWith({
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      engineId: "acme",
      trigger: "manual",
      ownsCompaction: true,
    });
  });

  it("manual compaction of the legacy engine runs the runtime compaction with the instructions", async () => {
    const { host, sessions } = createTestHost();
    const session = sessions.open({ sessionId: "s1", messages: conversation(5) });

    const outcome = await host.compactManually(session, { customInstructions: "keep the decisions" });

    expect(outcome.result).toMatchObject({ ok: true, compacted: true });
    expect(outcome.result.result?.summary).toContain("Instructions: keep the decisions");
    expect(await session.messages()).toHaveLength(5);
  });

  it("engine failures come back as ok:false, not thrown", async () => {
    const { host, registry, logger, sessions, afterCompaction, runtimeCompaction } = setup({
      compact: async () => {
        throw new Error("engine broke");
      },
    });
    const session = sessions.open({ sessionId: "s1" });

    const outcome = await host.compactManually(session);

    expect(outcome.result).toEqual({ ok: false, compacted: false, reason: "engine broke" });
    expect(logger.messages("warn")).toContain("context engine compaction failed: engine broke");
    expect(afterCompaction).not.toHaveBeenCalled();
    expect(registry.quarantine.get("acme")?.operation).toBe("compact");
    const next = await host.compactManually(session);
    expect(next.result).toBe(compacted);
    expect(runtimeCompaction).toHaveBeenCalledTimes(1);
  });
});

describe("preflight-required compaction (checklist 61)", () => {
  it("a preflight compaction sends force, target budget, forceReason preflight_required and the trigger in both places", async () => {
    const compact = vi.fn<ContextEngine["compact"]>(async () => compacted);
    const { host, sessions, beforeCompaction } = setup({ compact });

    const outcome = await host.compactPreflight(sessions.open({ sessionId: "s1" }), {
      trigger: "transcript_bytes",
      currentTokenCount: 4321,
    });

    expect(outcome.trigger).toBe("preflight");
    expect(outcome.result).toBe(compacted);
    expect(paramsOf(compact)).toMatchObject({
      force: true,
      compactionTarget: "budget",
      forceReason: "preflight_required",
      preflightCompactionTrigger: "transcript_bytes",
      currentTokenCount: 4321,
      runtimeContext: {
        trigger: "preflight",
        forceReason: "preflight_required",
        preflightCompactionTrigger: "transcript_bytes",
        currentTokenCount: 4321,
      },
    });
    expect(beforeCompaction).toHaveBeenCalledWith(expect.objectContaining({ trigger: "preflight" }));
  });
});

describe("deferred preflight compaction (checklist 65)", () => {
  const backgroundOwner = (
    maintain: NonNullable<ContextEngine["maintain"]>,
    compact: ContextEngine["compact"],
  ) => setup({ info: { ownsCompaction: true, turnMaintenanceMode: "background" }, maintain, compact });

  it("a preflight compaction for an owning background-maintenance engine is deferred to its maintenance", async () => {
    const maintain = vi.fn<NonNullable<ContextEngine["maintain"]>>(async () => ({
      changed: false,
      bytesFreed: 0,
      rewrittenEntries: 0,
    }));
    const compact = vi.fn<ContextEngine["compact"]>(async () => compacted);
    const { host, sessions } = backgroundOwner(maintain, compact);

    const outcome = await host.compactPreflight(sessions.open({ sessionId: "s1" }), { trigger: "tokens" });
    await host.maintenance.whenIdle();

    expect(outcome.result).toEqual({
      ok: true,
      compacted: false,
      reason: "deferred to background context-engine maintenance",
    });
    expect(compact).not.toHaveBeenCalled();
    expect(maintain).toHaveBeenCalledTimes(1);
    expect(paramsOf(maintain).runtimeContext).toMatchObject({
      maintenanceReason: "compaction",
      allowDeferredCompactionExecution: true,
    });
  });

  it("deferred budget compaction fails with deferred_compaction_not_scheduled when maintenance cannot be scheduled, without calling maintain or compact", async () => {
    const maintain = vi.fn<NonNullable<ContextEngine["maintain"]>>(async () => ({
      changed: false,
      bytesFreed: 0,
      rewrittenEntries: 0,
    }));
    const compact = vi.fn<ContextEngine["compact"]>(async () => compacted);
    const { host, sessions } = backgroundOwner(maintain, compact);
    await host.maintenance.close();

    const outcome = await host.compactPreflight(sessions.open({ sessionId: "s1" }), { trigger: "tokens" });

    expect(outcome.result).toEqual({
      ok: false,
      compacted: false,
      reason: "deferred_compaction_not_scheduled: failed to schedule background context-engine maintenance",
    });
    expect(maintain).not.toHaveBeenCalled();
    expect(compact).not.toHaveBeenCalled();
  });
});
