import { describe, expect, it, vi } from "vitest";
import {
  type ContextEngineFactory,
  formatContextEngineStatusLine,
  GuardedContextEngine,
  type PluginSlotsConfig,
  resetPluginSlotsToDefaults,
} from "../src/index.js";
import { deferred, defineEngine, type EngineParts, registerEngine, slotConfig } from "./fixtures.js";
import { conversation, createTestHost, EchoModel, testModel } from "./support.js";

function setup(parts: EngineParts = {}, slot = "acme") {
  const context = createTestHost({ config: slotConfig(slot) });
  const dispose = vi.fn(async () => {});
  const factory = vi.fn<ContextEngineFactory>(() => defineEngine("acme", { dispose, ...parts }));
  registerEngine(context.registry, "acme", factory);
  return { ...context, dispose, factory };
}

const runTurn = (context: ReturnType<typeof createTestHost>, sessionId = "s1", messages = conversation(1)) =>
  context.host.runTurn({
    session: context.sessions.open({ sessionId, messages }),
    prompt: "hello",
    systemPrompt: "sys",
    model: testModel,
    callModel: new EchoModel().step,
  });

describe("disposal", () => {
  it("host dispose is idempotent and disposes the engine once", async () => {
    const context = setup();
    await context.host.engine();

    const first = context.host.dispose();
    const second = context.host.dispose();
    await Promise.all([first, second]);

    expect(second).toBe(first);
    expect(context.dispose).toHaveBeenCalledTimes(1);
    await expect(context.host.engine()).rejects.toThrow("context engine host is disposed");
    await expect(runTurn(context)).rejects.toThrow("context engine host is disposed");
  });

  it("disposing a host that never resolved an engine calls no factory", async () => {
    const { host, factory } = setup();
    await host.dispose();
    expect(factory).not.toHaveBeenCalled();
  });

  it("the guarded engine's dispose is idempotent and disposes the engine and a built fallback", async () => {
    const context = setup({
      assemble: async () => {
        throw new Error("assemble exploded");
      },
    });
    const fallbackDispose = vi.fn(async () => {});
    context.registry.registerContextEngine(
      "legacy",
      async () => defineEngine("legacy", { dispose: fallbackDispose }),
      {
        owner: "core",
        allowSameOwnerRefresh: true,
      },
    );
    const { engine } = await context.host.engine();
    expect(engine).toBeInstanceOf(GuardedContextEngine);
    await engine.assemble({ sessionId: "s1", messages: [] });

    const first = engine.dispose?.();
    const second = engine.dispose?.();
    await first;

    expect(second).toBe(first);
    expect(context.dispose).toHaveBeenCalledTimes(1);
    expect(fallbackDispose).toHaveBeenCalledTimes(1);
  });

  it("a failing engine dispose is logged, not thrown", async () => {
    const context = setup({
      dispose: async () => {
        throw new Error("dispose exploded");
      },
    });
    await context.host.engine();

    await expect(context.host.dispose()).resolves.toBeUndefined();

    expect(context.logger.messages("warn")).toEqual([
      '[context-engine] dispose of "acme" failed: dispose exploded',
    ]);
  });

  it("dispose aborts background maintenance and waits for it, without quarantine", async () => {
    const started = deferred();
    let seen: AbortSignal | undefined;
    let settled = false;
    const context = setup({
      info: { turnMaintenanceMode: "background" },
      maintain: (params) => {
        seen = params.abortSignal;
        started.resolve();
        return new Promise((_resolve, reject) => {
          params.abortSignal?.addEventListener(
            "abort",
            () => {
              settled = true;
              reject(params.abortSignal?.reason);
            },
            { once: true },
          );
        });
      },
    });
    await runTurn(context, "s1", []);
    await started.promise;

    await context.host.dispose();

    expect(seen?.aborted).toBe(true);
    expect(settled).toBe(true);
    expect(context.host.maintenance.pendingCount).toBe(0);
    expect(context.registry.quarantine.list()).toEqual([]);
    expect(context.logger.messages("warn")).toEqual([]);
    expect(context.dispose).toHaveBeenCalledTimes(1);
  });
});

describe("reload", () => {
  function twoEngines() {
    const context = createTestHost({ config: slotConfig("a") });
    const engines = {
      a: { dispose: vi.fn(async () => {}), bootstrap: vi.fn(async () => ({ bootstrapped: true })) },
      b: { dispose: vi.fn(async () => {}), bootstrap: vi.fn(async () => ({ bootstrapped: true })) },
    };
    const factories = {
      a: vi.fn<ContextEngineFactory>(() => defineEngine("a", engines.a)),
      b: vi.fn<ContextEngineFactory>(() => defineEngine("b", engines.b)),
    };
    registerEngine(context.registry, "a", factories.a);
    registerEngine(context.registry, "b", factories.b);
    return { ...context, engines, factories };
  }

  it("reload disposes the old engine and resolves the new slot", async () => {
    const context = twoEngines();
    expect((await context.host.engine()).effectiveId).toBe("a");

    await context.host.reload(slotConfig("b"));

    expect(context.engines.a.dispose).toHaveBeenCalledTimes(1);
    expect(context.factories.b).not.toHaveBeenCalled();
    const status = await context.host.status();
    expect(status.configuredId).toBe("b");
    expect(status.effectiveId).toBe("b");
    expect(context.factories.a).toHaveBeenCalledTimes(1);
    expect(context.factories.b).toHaveBeenCalledTimes(1);
    expect(context.engines.b.dispose).not.toHaveBeenCalled();
  });

  it("after a reload the new engine bootstraps sessions the old one already bootstrapped", async () => {
    const context = twoEngines();
    await runTurn(context);
    expect(context.engines.a.bootstrap).toHaveBeenCalledTimes(1);

    await context.host.reload(slotConfig("b"));
    await runTurn(context);

    expect(context.engines.b.bootstrap).toHaveBeenCalledTimes(1);
    expect(context.engines.a.bootstrap).toHaveBeenCalledTimes(1);
  });

  it("reload waits for background maintenance before disposing the old engine", async () => {
    const events: string[] = [];
    const gate = deferred();
    const context = setup({
      info: { turnMaintenanceMode: "background" },
      maintain: async () => {
        await gate.promise;
        events.push("maintain finished");
        return { changed: false, bytesFreed: 0, rewrittenEntries: 0 };
      },
      dispose: async () => {
        events.push("disposed");
      },
    });
    await runTurn(context, "s1", []);

    const reloading = context.host.reload();
    await Promise.resolve();
    expect(events).toEqual([]);
    gate.resolve();
    await reloading;

    expect(events).toEqual(["maintain finished", "disposed"]);
  });
});

describe("status", () => {
  it("status reports the configured and effective engine when they agree", async () => {
    const { host } = setup({
      info: { version: "1.2.3", ownsCompaction: true, turnMaintenanceMode: "background" },
    });

    const status = await host.status();

    expect(status).toMatchObject({
      configuredId: "acme",
      effectiveId: "acme",
      engine: {
        id: "acme",
        name: "acme test engine",
        version: "1.2.3",
        ownsCompaction: true,
        turnMaintenanceMode: "background",
      },
      host: { id: "clew-embedded" },
      quarantined: [],
    });
    expect(status.fallbackReason).toBeUndefined();
    expect(status.quarantine).toBeUndefined();
    expect(formatContextEngineStatusLine(status)).toBe("Context engine: acme");
  });

  it("status reports the quarantine reason of a missing configured engine", async () => {
    const { host } = setup({}, "ghost");

    const status = await host.status();

    expect(status.configuredId).toBe("ghost");
    expect(status.effectiveId).toBe("legacy");
    expect(status.fallbackReason).toBe("not-registered");
    expect(status.quarantine).toMatchObject({
      engineId: "ghost",
      operation: "resolve",
      reason: "not registered",
    });
    expect(status.quarantined).toHaveLength(1);
    expect(formatContextEngineStatusLine(status)).toBe(
      "Context engine: legacy (configured: ghost; quarantined during resolve: not registered)",
    );
  });

  it("status reports a runtime quarantine of the running engine", async () => {
    const context = setup({
      info: { ownsCompaction: true },
      assemble: async () => {
        throw new Error("assemble exploded");
      },
    });
    await runTurn(context);

    const status = await context.host.status();

    expect(status.configuredId).toBe("acme");
    expect(status.effectiveId).toBe("legacy");
    expect(status.fallbackReason).toBe("quarantined");
    expect(status.quarantine).toMatchObject({
      operation: "assemble",
      reason: "assemble exploded",
      owner: "plugin:acme",
    });
    expect(status.engine).toMatchObject({
      id: "legacy",
      ownsCompaction: false,
      turnMaintenanceMode: "foreground",
    });
    expect(formatContextEngineStatusLine(status)).toBe(
      "Context engine: legacy (configured: acme; quarantined during assemble: assemble exploded)",
    );
  });

  it("status reports a disabled plugin without a quarantine", async () => {
    const context = createTestHost({ config: slotConfig("acme", { deny: ["acme"] }) });
    registerEngine(context.registry, "acme", defineEngine("acme"));

    const status = await context.host.status();

    expect(status.effectiveId).toBe("legacy");
    expect(status.fallbackReason).toBe("plugin-disabled");
    expect(status.quarantine).toBeUndefined();
    expect(formatContextEngineStatusLine(status)).toBe(
      "Context engine: legacy (configured: acme; plugin-disabled)",
    );
  });

  it("status of the default slot names legacy only", async () => {
    const { host } = createTestHost();
    const status = await host.status();
    expect(status.configuredId).toBeUndefined();
    expect(status.effectiveId).toBe("legacy");
    expect(formatContextEngineStatusLine(status)).toBe("Context engine: legacy");
  });
});

describe("resetting plugin slots (checklist 66)", () => {
  it("resetPluginSlotsToDefaults clears every slot the plugin owns", () => {
    expect(resetPluginSlotsToDefaults({ contextEngine: "dual", memory: "dual" }, "dual")).toBeUndefined();
  });

  it("slots held by other plugins are kept", () => {
    const slots: PluginSlotsConfig = { contextEngine: "lossless-claw", memory: "memory-core" };
    const reset = resetPluginSlotsToDefaults(slots, "lossless-claw");
    expect(reset).toEqual({ memory: "memory-core" });
    expect(slots).toEqual({ contextEngine: "lossless-claw", memory: "memory-core" });
  });

  it("returns the same object when the plugin owns no slot", () => {
    const slots: PluginSlotsConfig = { contextEngine: "lossless-claw" };
    expect(resetPluginSlotsToDefaults(slots, "other")).toBe(slots);
    expect(resetPluginSlotsToDefaults(undefined, "other")).toBeUndefined();
  });

  it("after a reset the host selects legacy", async () => {
    const slots = resetPluginSlotsToDefaults({ contextEngine: "acme" }, "acme");
    const context = createTestHost({ config: { plugins: { ...(slots === undefined ? {} : { slots }) } } });
    registerEngine(context.registry, "acme", defineEngine("acme"));
    expect((await context.host.status()).effectiveId).toBe("legacy");
  });
});
