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
import {
  defineEngine,
  type EngineParts,
  flushMicrotasks,
  paramsOf,
  registerEngine,
  slotConfig,
} from "./fixtures.js";
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

describe("cancellation and the watchdog (checklist 62)", () => {
  it("the caller abort signal reaches compact", async () => {
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    let received: AbortSignal | undefined;
    const { host, registry, sessions, afterCompaction } = setup({
      compact: async (params) => {
        received = params.abortSignal;
        controller.abort(reason);
        throw params.abortSignal?.reason;
      },
    });

    await expect(
      host.compactManually(sessions.open({ sessionId: "s1" }), { signal: controller.signal }),
    ).rejects.toBe(reason);

    expect(received?.aborted).toBe(true);
    expect(received?.reason).toBe(reason);
    expect(registry.quarantine.list()).toEqual([]);
    expect(afterCompaction).not.toHaveBeenCalled();
  });

  it("a compaction whose caller signal already fired is not started", async () => {
    const compact = vi.fn<ContextEngine["compact"]>(async () => compacted);
    const { host, sessions, beforeCompaction } = setup({ compact });
    const controller = new AbortController();
    const reason = new Error("gone");
    controller.abort(reason);

    await expect(
      host.compactManually(sessions.open({ sessionId: "s1" }), { signal: controller.signal }),
    ).rejects.toBe(reason);
    expect(compact).not.toHaveBeenCalled();
    expect(beforeCompaction).not.toHaveBeenCalled();
  });

  const fastWatchdog = slotConfig(
    "acme",
    {},
    { agents: { defaults: { compaction: { timeoutSeconds: 0.05 } } } },
  );

  it("a hung compact returns ok:false with a timed out reason, aborts the engine and does not fire afterCompaction", async () => {
    let received: AbortSignal | undefined;
    const { host, registry, sessions, beforeCompaction, afterCompaction } = setup(
      {
        compact: (params) => {
          received = params.abortSignal;
          return new Promise<CompactResult>((_resolve, reject) => {
            params.abortSignal?.addEventListener("abort", () => reject(params.abortSignal?.reason), {
              once: true,
            });
          });
        },
      },
      fastWatchdog,
    );

    const outcome = await host.compactManually(sessions.open({ sessionId: "s1" }));
    await flushMicrotasks();

    expect(outcome.result).toEqual({
      ok: false,
      compacted: false,
      reason: "Compaction timed out after 0.05s",
    });
    expect(outcome.result.reason).toContain("timed out");
    expect(received?.aborted).toBe(true);
    expect(received?.reason).toMatchObject({ name: "TimeoutError" });
    expect(beforeCompaction).toHaveBeenCalledTimes(1);
    expect(afterCompaction).not.toHaveBeenCalled();
    expect(registry.quarantine.list()).toEqual([]);
  });

  it("a compact that ignores its signal and never settles still times out", async () => {
    const { host, sessions, afterCompaction } = setup(
      { compact: () => new Promise<CompactResult>(() => {}) },
      fastWatchdog,
    );

    const outcome = await host.compactManually(sessions.open({ sessionId: "s1" }));

    expect(outcome.result).toMatchObject({ ok: false, compacted: false });
    expect(outcome.result.reason).toMatch(/timed out/);
    expect(afterCompaction).not.toHaveBeenCalled();
  });
});

describe("compaction hooks (checklist 63)", () => {
  it.each<[string, CompactResult]>([
    ["ok:false", { ok: false, compacted: false, reason: "engine refused" }],
    ["ok:true but not compacted", { ok: true, compacted: false, reason: "already small" }],
  ])("a failed compaction (%s) fires beforeCompaction but not afterCompaction", async (_label, result) => {
    const { host, sessions, beforeCompaction, afterCompaction } = setup({ compact: async () => result });

    const outcome = await host.compactManually(sessions.open({ sessionId: "s1" }));

    expect(outcome.result).toBe(result);
    expect(beforeCompaction).toHaveBeenCalledTimes(1);
    expect(afterCompaction).not.toHaveBeenCalled();
  });

  it("a successful compaction fires afterCompaction with the result", async () => {
    const { host, sessions, afterCompaction } = setup({
      info: { ownsCompaction: true },
      compact: async () => compacted,
    });

    await host.compactManually(sessions.open({ sessionId: "s1" }));

    expect(afterCompaction).toHaveBeenCalledWith({
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      engineId: "acme",
      trigger: "manual",
      ownsCompaction: true,
      result: compacted,
    });
  });
});

describe("successor sessions (checklist 64)", () => {
  const rotated = (result: NonNullable<CompactResult["result"]>): CompactResult => ({
    ok: true,
    compacted: true,
    result,
  });

  it("a successor sessionId in the result is adopted and maintenance runs against the successor", async () => {
    const maintain = vi.fn<NonNullable<ContextEngine["maintain"]>>(async () => ({
      changed: false,
      bytesFreed: 0,
      rewrittenEntries: 0,
    }));
    const { host, sessions } = setup({
      compact: async () =>
        rotated({ tokensBefore: 900, sessionId: "s1-next", sessionFile: "memory:s1-next" }),
      maintain,
    });

    const outcome = await host.compactManually(sessions.open({ sessionId: "s1" }));

    expect(outcome.session.sessionId).toBe("s1-next");
    expect(sessions.get("s1-next")).toBe(outcome.session);
    expect(maintain).toHaveBeenCalledTimes(1);
    expect(paramsOf(maintain)).toMatchObject({
      sessionId: "s1-next",
      sessionFile: "memory:s1-next",
      sessionTarget: { sessionId: "s1-next" },
      runtimeContext: { maintenanceReason: "compaction" },
    });
  });

  it("a typed sessionTarget successor is preferred over sessionId", async () => {
    const { host, sessions } = setup({
      compact: async () =>
        rotated({
          tokensBefore: 900,
          sessionId: "s1-a",
          sessionTarget: { agentId: "main", sessionId: "s1-b" },
        }),
    });

    const outcome = await host.compactManually(sessions.open({ sessionId: "s1" }));

    expect(outcome.session.sessionId).toBe("s1-b");
    expect(sessions.get("s1-a")).toBeUndefined();
  });

  it("overflow recovery continues the turn in the successor session", async () => {
    const afterTurn = vi.fn<NonNullable<ContextEngine["afterTurn"]>>(async () => {});
    const { host, sessions } = setup({
      compact: async () => rotated({ tokensBefore: 900, sessionId: "s1-next" }),
      afterTurn,
    });
    const original = sessions.open({ sessionId: "s1", messages: conversation(1) });

    const result = await turn(host, original, overflowingModel(1));

    expect(result.session.sessionId).toBe("s1-next");
    expect(await original.messages()).toHaveLength(2);
    expect(await sessions.get("s1-next")?.messages()).toEqual(result.newMessages);
    expect(paramsOf(afterTurn).sessionId).toBe("s1-next");
  });

  it("a session that cannot adopt successors is kept and the host warns", async () => {
    const { host, logger, sessions } = setup({
      compact: async () => rotated({ tokensBefore: 900, sessionId: "s1-next" }),
    });
    const base = sessions.open({ sessionId: "s1" });
    const fixed: HostSession = {
      agentId: base.agentId,
      sessionId: base.sessionId,
      sessionKey: base.sessionKey,
      sessionFile: base.sessionFile,
      existedBefore: false,
      messages: () => base.messages(),
      append: (messages) => base.append(messages),
      rewriteTranscriptEntries: (request) => base.rewriteTranscriptEntries(request),
    };

    const outcome = await host.compactManually(fixed);

    expect(outcome.session).toBe(fixed);
    expect(logger.messages("warn")).toContain(
      "context engine named successor session s1-next, which this store cannot open",
    );
  });
});
