import { describe, expect, it, vi } from "vitest";
import {
  type AssembleParams,
  type ContextEngine,
  type ContextEngineHostParam,
  type ContextEngineInfo,
  createContextEngineRegistry,
  GuardedContextEngine,
  HOST_PARAMS,
  MemoryLogger,
  resolveContextEngine,
} from "../src/index.js";
import { defineEngine, paramsOf, registerEngine, slotConfig } from "./fixtures.js";
import { conversation, createTestHost, EchoModel, testModel } from "./support.js";

/** The host-added parameters present (as own keys) in a call's params, in HOST_PARAMS order. */
function hostKeys(params: object): string[] {
  return HOST_PARAMS.filter((key) => Object.hasOwn(params, key));
}

function recordingEngine(info: Partial<ContextEngineInfo>) {
  const bootstrap = vi.fn<NonNullable<ContextEngine["bootstrap"]>>(async () => ({ bootstrapped: true }));
  const maintain = vi.fn<NonNullable<ContextEngine["maintain"]>>(async () => ({
    changed: false,
    bytesFreed: 0,
    rewrittenEntries: 0,
  }));
  const assemble = vi.fn<ContextEngine["assemble"]>(async (params) => ({
    messages: params.messages,
    estimatedTokens: 0,
  }));
  const afterTurn = vi.fn<NonNullable<ContextEngine["afterTurn"]>>(async () => {});
  const compact = vi.fn<ContextEngine["compact"]>(async () => ({
    ok: true,
    compacted: false,
    reason: "noop",
  }));
  const engine = defineEngine("acme", { info, bootstrap, maintain, assemble, afterTurn, compact });
  return { engine, bootstrap, maintain, assemble, afterTurn, compact };
}

/** Bootstrap + maintain, one turn (assemble, afterTurn, maintain) and a manual compaction. */
async function runEveryHostCall(info: Partial<ContextEngineInfo>) {
  const recorded = recordingEngine(info);
  const { host, registry, sessions } = createTestHost({ config: slotConfig("acme") });
  registerEngine(registry, "acme", recorded.engine);
  const session = sessions.open({ sessionId: "s1", messages: conversation(1) });
  await host.runTurn({
    session,
    prompt: "hello",
    systemPrompt: "sys",
    model: testModel,
    callModel: new EchoModel().step,
  });
  await host.compactManually(session);
  return recorded;
}

const ALL: ContextEngineHostParam[] = [...HOST_PARAMS];

describe("declared host parameters (checklist 42)", () => {
  it("with every key declared in acceptedHostParams, every host parameter is delivered", async () => {
    const { assemble, compact, maintain, bootstrap, afterTurn } = await runEveryHostCall({
      acceptedHostParams: ALL,
    });

    expect(hostKeys(paramsOf(assemble))).toEqual([
      "sessionKey",
      "prompt",
      "runtimeSettings",
      "runtimeContext",
    ]);
    expect(paramsOf(assemble).prompt).toBe("hello");
    expect(hostKeys(paramsOf(compact))).toEqual([
      "sessionKey",
      "runtimeSettings",
      "sessionTarget",
      "runtimeContext",
      "abortSignal",
    ]);
    expect(paramsOf(compact).abortSignal).toBeInstanceOf(AbortSignal);
    expect(maintain).toHaveBeenCalledTimes(2);
    for (const call of maintain.mock.calls) {
      expect(hostKeys(call[0])).toEqual([
        "sessionKey",
        "runtimeSettings",
        "sessionTarget",
        "runtimeContext",
        "abortSignal",
      ]);
    }
    expect(hostKeys(paramsOf(bootstrap))).toEqual([
      "sessionKey",
      "runtimeSettings",
      "sessionTarget",
      "runtimeContext",
    ]);
    expect(hostKeys(paramsOf(afterTurn))).toEqual([
      "sessionKey",
      "runtimeSettings",
      "sessionTarget",
      "runtimeContext",
    ]);
  });
});

describe("a partial declaration (checklist 43)", () => {
  it('with acceptedHostParams ["runtimeSettings"] assemble gets no sessionKey or prompt, compact keeps abortSignal, maintain gets no sessionKey, runtimeContext or abortSignal', async () => {
    const { assemble, compact, maintain, bootstrap, afterTurn } = await runEveryHostCall({
      acceptedHostParams: ["runtimeSettings"],
    });

    const assembled = paramsOf(assemble);
    expect(hostKeys(assembled)).toEqual(["runtimeSettings"]);
    expect(assembled).toMatchObject({ sessionId: "s1", model: "test-model" });
    expect(assembled.messages).toHaveLength(2);
    expect(typeof assembled.tokenBudget).toBe("number");

    const compacted = paramsOf(compact);
    expect(hostKeys(compacted)).toEqual(["runtimeSettings", "abortSignal"]);
    expect(compacted.abortSignal).toBeInstanceOf(AbortSignal);
    expect(compacted).toMatchObject({
      sessionId: "s1",
      agentId: "main",
      sessionFile: "memory:s1",
      force: true,
      compactionTarget: "threshold",
      forceReason: "manual",
    });

    for (const call of maintain.mock.calls) {
      expect(hostKeys(call[0])).toEqual(["runtimeSettings"]);
      expect(call[0]).toMatchObject({ sessionId: "s1", sessionFile: "memory:s1" });
    }
    expect(hostKeys(paramsOf(bootstrap))).toEqual(["runtimeSettings"]);
    expect(hostKeys(paramsOf(afterTurn))).toEqual(["runtimeSettings"]);
    expect(paramsOf(afterTurn).prePromptMessageCount).toBe(2);
  });

  it("an empty acceptedHostParams strips every host parameter except compact's abortSignal", async () => {
    const { assemble, compact, maintain } = await runEveryHostCall({ acceptedHostParams: [] });

    expect(hostKeys(paramsOf(assemble))).toEqual([]);
    expect(hostKeys(paramsOf(compact))).toEqual(["abortSignal"]);
    expect(hostKeys(paramsOf(maintain))).toEqual([]);
  });

  it("maintain receives abortSignal only when the declaration names it", async () => {
    const { maintain } = await runEveryHostCall({ acceptedHostParams: ["abortSignal"] });
    expect(hostKeys(paramsOf(maintain))).toEqual(["abortSignal"]);
  });
});

describe("undeclared engines (checklist 44)", () => {
  it("an engine without a declaration receives every host parameter", async () => {
    const { assemble, compact, maintain, bootstrap, afterTurn } = await runEveryHostCall({});

    expect(hostKeys(paramsOf(assemble))).toEqual([
      "sessionKey",
      "prompt",
      "runtimeSettings",
      "runtimeContext",
    ]);
    expect(hostKeys(paramsOf(compact))).toEqual([
      "sessionKey",
      "runtimeSettings",
      "sessionTarget",
      "runtimeContext",
      "abortSignal",
    ]);
    expect(hostKeys(paramsOf(maintain, 1))).toEqual([
      "sessionKey",
      "runtimeSettings",
      "sessionTarget",
      "runtimeContext",
      "abortSignal",
    ]);
    expect(hostKeys(paramsOf(bootstrap))).toEqual([
      "sessionKey",
      "runtimeSettings",
      "sessionTarget",
      "runtimeContext",
    ]);
    expect(hostKeys(paramsOf(afterTurn))).toEqual([
      "sessionKey",
      "runtimeSettings",
      "sessionTarget",
      "runtimeContext",
    ]);
  });
});

describe("strict engines that reject host parameters (checklist 45, Clew keeps the older retry rule)", () => {
  const params: AssembleParams = {
    sessionId: "s1",
    sessionKey: "agent:main:s1",
    messages: [],
    prompt: "hi",
    runtimeSettings: { schemaVersion: 1 } as AssembleParams["runtimeSettings"],
  };

  /** An assemble that throws `makeError()` whenever it receives runtimeSettings. */
  function strictAssemble(makeError: () => unknown) {
    return vi.fn<ContextEngine["assemble"]>(async (received) => {
      if (Object.hasOwn(received, "runtimeSettings")) throw makeError();
      return { messages: received.messages, estimatedTokens: 7 };
    });
  }

  async function resolveStrict(assemble: ContextEngine["assemble"], info: Partial<ContextEngineInfo> = {}) {
    const registry = createContextEngineRegistry();
    registerEngine(registry, "strict", defineEngine("strict", { info, assemble }));
    const logger = new MemoryLogger();
    const resolved = await resolveContextEngine(registry, { config: slotConfig("strict"), logger });
    expect(resolved.engine).toBeInstanceOf(GuardedContextEngine);
    return { registry, logger, engine: resolved.engine };
  }

  const zodError = () =>
    Object.assign(new Error("Validation failed"), {
      issues: [{ code: "unrecognized_keys", keys: ["runtimeSettings"], path: [] }],
    });
  const ajvError = () =>
    Object.assign(new Error("data must NOT have additional properties"), {
      errors: [{ keyword: "additionalProperties", params: { additionalProperty: "runtimeSettings" } }],
    });
  const markerError = () =>
    Object.assign(new Error("strict engine"), { rejectedHostParams: ["runtimeSettings"] });
  const wrappedZodError = () => new Error("engine validation failed", { cause: zodError() });

  it.each([
    ["a zod-style unrecognized_keys issue in error.issues", zodError],
    ["an Ajv-style additionalProperties error in error.errors", ajvError],
    ["a rejectedHostParams marker", markerError],
    ["a zod-style issue in the error's cause", wrappedZodError],
  ])(
    "an undeclared engine rejecting runtimeSettings with %s is retried once without it and not quarantined",
    async (_label, makeError) => {
      const assemble = strictAssemble(makeError);
      const { registry, logger, engine } = await resolveStrict(assemble);

      const result = await engine.assemble(params);

      expect(result).toEqual({ messages: [], estimatedTokens: 7 });
      expect(assemble).toHaveBeenCalledTimes(2);
      expect(hostKeys(paramsOf(assemble, 0))).toEqual(["sessionKey", "prompt", "runtimeSettings"]);
      expect(hostKeys(paramsOf(assemble, 1))).toEqual(["sessionKey", "prompt"]);
      expect(registry.quarantine.list()).toEqual([]);
      expect(engine.info.id).toBe("strict");
      expect(logger.messages("warn")).toEqual([
        '[context-engine] Context engine "strict" rejected host parameters runtimeSettings; retrying assemble without them.',
      ]);
    },
  );

  it("later calls on the same instance leave a learned key out from the start", async () => {
    const assemble = strictAssemble(zodError);
    const { engine } = await resolveStrict(assemble);

    await engine.assemble(params);
    await engine.assemble(params);

    expect(assemble).toHaveBeenCalledTimes(3);
    expect(hostKeys(paramsOf(assemble, 2))).toEqual(["sessionKey", "prompt"]);
  });

  it("an error whose message merely mentions the key is not retried and quarantines", async () => {
    const assemble = strictAssemble(() => new Error("Unrecognized key(s) in object: 'runtimeSettings'"));
    const { registry, engine } = await resolveStrict(assemble);

    const result = await engine.assemble(params);

    expect(assemble).toHaveBeenCalledTimes(1);
    expect(result).toEqual({ messages: params.messages, estimatedTokens: 0 });
    expect(registry.quarantine.get("strict")).toMatchObject({
      operation: "assemble",
      reason: "Unrecognized key(s) in object: 'runtimeSettings'",
    });
  });

  it("an engine with acceptedHostParams is never retried", async () => {
    const assemble = strictAssemble(zodError);
    const { registry, engine } = await resolveStrict(assemble, {
      acceptedHostParams: ["sessionKey", "prompt", "runtimeSettings"],
    });

    await engine.assemble(params);

    expect(assemble).toHaveBeenCalledTimes(1);
    expect(registry.quarantine.get("strict")).toMatchObject({
      operation: "assemble",
      reason: "Validation failed",
    });
  });

  it("a structured rejection of a key that is not a host parameter is not retried", async () => {
    const assemble = vi.fn<ContextEngine["assemble"]>(async () => {
      throw Object.assign(new Error("Validation failed"), {
        issues: [{ code: "unrecognized_keys", keys: ["foo"] }],
      });
    });
    const { registry, engine } = await resolveStrict(assemble);

    await engine.assemble(params);

    expect(assemble).toHaveBeenCalledTimes(1);
    expect(registry.quarantine.get("strict")?.operation).toBe("assemble");
  });

  it("a rejection of a host parameter the call did not carry is not retried", async () => {
    const assemble = vi.fn<ContextEngine["assemble"]>(async () => {
      throw Object.assign(new Error("Validation failed"), { rejectedHostParams: ["runtimeSettings"] });
    });
    const { registry, engine } = await resolveStrict(assemble);

    await engine.assemble({ sessionId: "s1", messages: [] });

    expect(assemble).toHaveBeenCalledTimes(1);
    expect(registry.quarantine.has("strict")).toBe(true);
  });

  it("a retry that fails again quarantines with the retry's error", async () => {
    const assemble = vi.fn<ContextEngine["assemble"]>(async (received) => {
      if (Object.hasOwn(received, "runtimeSettings")) throw zodError();
      throw new Error("still broken without runtimeSettings");
    });
    const { registry, engine } = await resolveStrict(assemble);

    const result = await engine.assemble(params);

    expect(assemble).toHaveBeenCalledTimes(2);
    expect(result.estimatedTokens).toBe(0);
    expect(registry.quarantine.get("strict")).toMatchObject({
      operation: "assemble",
      reason: "still broken without runtimeSettings",
    });
  });

  it("a strict engine runs whole turns without being quarantined for runtimeSettings", async () => {
    const strict = <T>(value: T) =>
      vi.fn(async (received: object): Promise<T> => {
        if (Object.hasOwn(received, "runtimeSettings")) throw zodError();
        return value;
      });
    const bootstrap = strict({ bootstrapped: true });
    const maintain = strict({ changed: false, bytesFreed: 0, rewrittenEntries: 0 });
    const afterTurn = strict(undefined);
    const { host, registry, sessions, logger } = createTestHost({ config: slotConfig("strict") });
    registerEngine(registry, "strict", defineEngine("strict", { bootstrap, maintain, afterTurn }));

    const result = await host.runTurn({
      session: sessions.open({ sessionId: "s1", messages: conversation(1) }),
      prompt: "hello",
      systemPrompt: "sys",
      model: testModel,
      callModel: new EchoModel().step,
    });

    expect(result.engineId).toBe("strict");
    expect(registry.quarantine.list()).toEqual([]);
    // bootstrap taught the host; maintain (bootstrap), afterTurn and maintain (turn) never saw it.
    expect(bootstrap).toHaveBeenCalledTimes(2);
    expect(maintain).toHaveBeenCalledTimes(2);
    expect(afterTurn).toHaveBeenCalledTimes(1);
    expect(logger.messages("warn")).toHaveLength(1);
  });
});
