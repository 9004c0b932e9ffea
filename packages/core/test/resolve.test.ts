import { describe, expect, it, vi } from "vitest";
import {
  type ContextEngine,
  ContextEngineContractError,
  type ContextEngineFactory,
  ContextEngineNotRegisteredError,
  ContextEngineRegistry,
  createContextEngineRegistry,
  createLegacyContextEngine,
  GuardedContextEngine,
  MemoryLogger,
  resolveContextEngine,
} from "../src/index.js";
import { defineEngine, namedError, registerEngine, slotConfig } from "./fixtures.js";

const NOW = 1_700_000_000_000;

function setup() {
  const registry = createContextEngineRegistry();
  const legacyFactory = vi.fn<ContextEngineFactory>(async () => createLegacyContextEngine());
  registry.registerContextEngine("legacy", legacyFactory, { owner: "core", allowSameOwnerRefresh: true });
  const logger = new MemoryLogger();
  const resolve = (slot: string, signal?: AbortSignal) =>
    resolveContextEngine(registry, {
      config: slotConfig(slot),
      logger,
      now: () => NOW,
      ...(signal === undefined ? {} : { signal }),
    });
  return { registry, legacyFactory, logger, resolve };
}

/** Registers a factory returning `value` as-is, whatever it is. */
function registerRaw(registry: ContextEngineRegistry, id: string, value: unknown) {
  const factory = vi.fn<ContextEngineFactory>(() => value as ContextEngine);
  registerEngine(registry, id, factory);
  return factory;
}

describe("a missing engine (checklist 12)", () => {
  it("a missing engine resolves legacy, is quarantined as not registered and logs one error", async () => {
    const { registry, logger, resolve } = setup();

    const resolved = await resolve("ghost");

    expect(resolved.effectiveId).toBe("legacy");
    expect(resolved.engine.info.id).toBe("legacy");
    expect(resolved.fallbackReason).toBe("not-registered");
    expect(registry.quarantine.get("ghost")).toEqual({
      engineId: "ghost",
      operation: "resolve",
      reason: "not registered",
      failedAt: NOW,
    });
    expect(logger.messages("error")).toEqual([
      '[context-engine] Context engine "ghost" failed during resolve: not registered; quarantining it for this process and falling back to default engine "legacy".',
    ]);
  });

  it("a second resolution of a missing engine uses the quarantine and logs nothing new", async () => {
    const { logger, resolve } = setup();
    await resolve("ghost");

    const again = await resolve("ghost");

    expect(again.effectiveId).toBe("legacy");
    expect(again.fallbackReason).toBe("quarantined");
    expect(logger.messages("error")).toHaveLength(1);
  });
});

describe("factory failures (checklist 13)", () => {
  it("a factory throw resolves legacy and quarantines operation factory with the error message", async () => {
    const { registry, logger, resolve } = setup();
    registerEngine(registry, "acme", () => {
      throw new Error("factory exploded");
    });

    const resolved = await resolve("acme");

    expect(resolved.effectiveId).toBe("legacy");
    expect(resolved.fallbackReason).toBe("factory-failed");
    expect(registry.quarantine.get("acme")).toEqual({
      engineId: "acme",
      owner: "plugin:acme",
      operation: "factory",
      reason: "factory exploded",
      failedAt: NOW,
    });
    expect(logger.messages("error")).toEqual([
      '[context-engine] Context engine "acme" owner=plugin:acme failed during factory: factory exploded; quarantining it for this process and falling back to default engine "legacy".',
    ]);
  });

  it("an async factory rejection is quarantined the same way", async () => {
    const { registry, resolve } = setup();
    registerEngine(registry, "acme", async () => {
      throw new Error("async factory exploded");
    });

    const resolved = await resolve("acme");

    expect(resolved.effectiveId).toBe("legacy");
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "factory",
      reason: "async factory exploded",
    });
  });
});

describe("contract validation (checklist 14-16)", () => {
  const methods = {
    ingest: async () => ({ ingested: true }),
    assemble: async () => ({ messages: [], estimatedTokens: 0 }),
    compact: async () => ({ ok: true, compacted: false }),
  };

  it("a factory result missing info is quarantined as contract-validation with missing info", async () => {
    const { registry, resolve } = setup();
    registerRaw(registry, "acme", { ...methods });

    const resolved = await resolve("acme");

    expect(resolved.effectiveId).toBe("legacy");
    expect(resolved.fallbackReason).toBe("contract-invalid");
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "contract-validation",
      reason: 'Context engine "acme" factory returned an invalid ContextEngine: missing info.',
    });
  });

  it("blank info.id and info.name are reported as missing", async () => {
    const { registry, resolve } = setup();
    registerRaw(registry, "acme", { info: { id: "  ", name: "" }, ...methods });

    await resolve("acme");

    expect(registry.quarantine.get("acme")?.reason).toBe(
      'Context engine "acme" factory returned an invalid ContextEngine: missing info.id, missing info.name.',
    );
  });

  it("a factory result missing methods lists missing assemble(), missing compact()", async () => {
    const { registry, resolve } = setup();
    registerRaw(registry, "acme", { info: { id: "acme", name: "Acme" }, ingest: methods.ingest });

    const resolved = await resolve("acme");

    expect(resolved.effectiveId).toBe("legacy");
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "contract-validation",
      reason:
        'Context engine "acme" factory returned an invalid ContextEngine: missing assemble(), missing compact().',
    });
  });

  it("a non-object factory result is reported with its JSON", async () => {
    const { registry, resolve } = setup();
    registerRaw(registry, "acme", null);

    await resolve("acme");

    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "contract-validation",
      reason: 'Context engine "acme" factory returned null instead of a ContextEngine object.',
    });
  });

  it("a BigInt factory result is quarantined as contract-validation", async () => {
    const { registry, resolve } = setup();
    registerRaw(registry, "acme", 10n);

    const resolved = await resolve("acme");

    expect(resolved.effectiveId).toBe("legacy");
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "contract-validation",
      reason: 'Context engine "acme" factory returned 10n instead of a ContextEngine object.',
    });
  });

  it("validation that itself throws is quarantined as contract-validation", async () => {
    const { registry, resolve } = setup();
    const hostile = {
      ...methods,
      get info(): never {
        throw new Error("info getter exploded");
      },
    };
    registerRaw(registry, "acme", hostile);

    const resolved = await resolve("acme");

    expect(resolved.effectiveId).toBe("legacy");
    expect(resolved.fallbackReason).toBe("contract-invalid");
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "contract-validation",
      reason:
        'Context engine "acme" factory returned a value that could not be validated: info getter exploded',
    });
  });
});

describe("info.id is metadata (checklist 17)", () => {
  it("info.id may differ from the registered id", async () => {
    const { registry, logger, resolve } = setup();
    const assemble = vi.fn(async () => ({ messages: [], estimatedTokens: 3 }));
    registerEngine(registry, "lossless-claw", defineEngine("lcm-internal", { assemble }));

    const resolved = await resolve("lossless-claw");

    expect(resolved.effectiveId).toBe("lossless-claw");
    expect(resolved.engine.info.id).toBe("lcm-internal");
    expect(resolved.fallbackReason).toBeUndefined();
    expect(registry.quarantine.list()).toEqual([]);
    expect(logger.records).toEqual([]);
    expect(await resolved.engine.assemble({ sessionId: "s1", messages: [] })).toEqual({
      messages: [],
      estimatedTokens: 3,
    });
    expect(assemble).toHaveBeenCalledTimes(1);
  });
});

describe("discovery-only registrations (checklist 18)", () => {
  it("a discovery-only registration resolves legacy with one warning, no quarantine and no factory call", async () => {
    const { registry, logger, resolve } = setup();
    const factory = vi.fn<ContextEngineFactory>(() => defineEngine("acme"));
    registerEngine(registry, "acme", factory, { lifecycle: "readOnlyDiscovery" });

    const resolved = await resolve("acme");

    expect(resolved.effectiveId).toBe("legacy");
    expect(resolved.fallbackReason).toBe("discovery-only");
    expect(factory).not.toHaveBeenCalled();
    expect(registry.quarantine.list()).toEqual([]);
    expect(logger.messages("error")).toEqual([]);
    expect(logger.messages("warn")).toEqual([
      '[context-engine] Context engine "acme" owner=plugin:acme is registered for read-only discovery only; falling back to default engine "legacy" without quarantine until runtime activation registers it.',
    ]);
  });
});

describe("a broken default engine (checklist 19-20)", () => {
  it("a default engine that is not registered rejects with not registered", async () => {
    const registry = new ContextEngineRegistry();

    const resolution = resolveContextEngine(registry, { logger: new MemoryLogger() });

    await expect(resolution).rejects.toBeInstanceOf(ContextEngineNotRegisteredError);
    await expect(resolution).rejects.toThrow(
      'Context engine "legacy" is not registered. Available engines: (none)',
    );
  });

  it("the not-registered error lists the engines that are registered", async () => {
    const registry = new ContextEngineRegistry();
    registerEngine(registry, "acme", defineEngine("acme"));

    await expect(resolveContextEngine(registry, { logger: new MemoryLogger() })).rejects.toThrow(
      'Context engine "legacy" is not registered. Available engines: acme',
    );
  });

  it("falling back from a missing plugin to a missing default rejects with not registered", async () => {
    const registry = new ContextEngineRegistry();

    await expect(
      resolveContextEngine(registry, { config: slotConfig("ghost"), logger: new MemoryLogger() }),
    ).rejects.toThrow('Context engine "legacy" is not registered');
  });

  it("a default engine with an invalid contract rejects with the contract error", async () => {
    const registry = new ContextEngineRegistry();
    registry.registerContextEngine(
      "legacy",
      () => ({ info: { id: "legacy", name: "Broken" } }) as ContextEngine,
      {
        owner: "core",
      },
    );

    const resolution = resolveContextEngine(registry, { logger: new MemoryLogger() });

    await expect(resolution).rejects.toBeInstanceOf(ContextEngineContractError);
    await expect(resolution).rejects.toThrow(
      'Context engine "legacy" factory returned an invalid ContextEngine: missing ingest(), missing assemble(), missing compact().',
    );
    expect(registry.quarantine.list()).toEqual([]);
  });

  it("a throwing default factory propagates its own error", async () => {
    const registry = new ContextEngineRegistry();
    const failure = new Error("legacy factory exploded");
    registry.registerContextEngine(
      "legacy",
      () => {
        throw failure;
      },
      { owner: "core" },
    );

    await expect(resolveContextEngine(registry, { logger: new MemoryLogger() })).rejects.toBe(failure);
  });
});

describe("admission-like factory errors (checklist 22)", () => {
  it("a factory that itself throws an admission error text is still quarantined and not called again", async () => {
    const { registry, resolve } = setup();
    const factory = vi.fn<ContextEngineFactory>(() => {
      throw new Error("cannot admit context engine: plugin runtime scope is closed");
    });
    registerEngine(registry, "acme", factory);

    const first = await resolve("acme");
    const second = await resolve("acme");

    expect(first.effectiveId).toBe("legacy");
    expect(first.fallbackReason).toBe("factory-failed");
    expect(second.effectiveId).toBe("legacy");
    expect(second.fallbackReason).toBe("quarantined");
    expect(factory).toHaveBeenCalledTimes(1);
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "factory",
      reason: "cannot admit context engine: plugin runtime scope is closed",
    });
  });
});

describe("caller cancellation during resolution (checklist 23)", () => {
  const cases: Array<[string, (reason: unknown) => unknown]> = [
    ["the abort reason itself", (reason) => reason],
    ["an error wrapping the abort reason", (reason) => new Error("factory gave up", { cause: reason })],
    ["an AbortError", () => namedError("AbortError", "This operation was aborted")],
    ["a DOMException AbortError", () => new DOMException("aborted", "AbortError")],
  ];

  it.each(cases)(
    "a factory rejection caused by cancellation (%s) propagates without fallback or quarantine",
    async (_label, makeError) => {
      const { registry, legacyFactory, logger, resolve } = setup();
      const controller = new AbortController();
      const reason = new Error("caller went away");
      const thrown = makeError(reason);
      registerEngine(registry, "acme", async () => {
        controller.abort(reason);
        throw thrown;
      });

      await expect(resolve("acme", controller.signal)).rejects.toBe(thrown);

      expect(registry.quarantine.list()).toEqual([]);
      expect(legacyFactory).not.toHaveBeenCalled();
      expect(logger.records).toEqual([]);
    },
  );

  it("an unrelated error while cancelling is quarantined and falls back", async () => {
    const { registry, legacyFactory, resolve } = setup();
    const controller = new AbortController();
    registerEngine(registry, "acme", async () => {
      controller.abort(new Error("caller went away"));
      throw new Error("database is locked");
    });

    const resolved = await resolve("acme", controller.signal);

    expect(resolved.effectiveId).toBe("legacy");
    expect(legacyFactory).toHaveBeenCalledTimes(1);
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "factory",
      reason: "database is locked",
    });
  });

  it("an AbortError while the caller's signal has not fired is an ordinary failure", async () => {
    const { registry, resolve } = setup();
    const controller = new AbortController();
    registerEngine(registry, "acme", async () => {
      throw namedError("AbortError", "engine aborted on its own");
    });

    const resolved = await resolve("acme", controller.signal);

    expect(resolved.effectiveId).toBe("legacy");
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "factory",
      reason: "engine aborted on its own",
    });
  });
});

describe("what a successful resolution returns", () => {
  it("a plugin engine is wrapped, gets the factory context and is not trusted as the default", async () => {
    const { registry, legacyFactory } = setup();
    const factory = vi.fn<ContextEngineFactory>(() => defineEngine("legacy"));
    registerEngine(registry, "impostor", factory);
    const config = slotConfig("impostor");

    const resolved = await resolveContextEngine(registry, {
      config,
      logger: new MemoryLogger(),
      agentDir: "/agents/main",
      workspaceDir: "/work/ws",
    });

    expect(resolved.effectiveId).toBe("impostor");
    expect(resolved.engine).toBeInstanceOf(GuardedContextEngine);
    expect(resolved.engine.info.id).toBe("legacy");
    expect(resolved.trustedDefault).toBe(false);
    expect(factory).toHaveBeenCalledWith({ config, agentDir: "/agents/main", workspaceDir: "/work/ws" });
    expect(legacyFactory).not.toHaveBeenCalled();
  });

  it("the default engine is trusted by registry identity and is not wrapped", async () => {
    const { resolve } = setup();
    const resolved = await resolve("legacy");
    expect(resolved.trustedDefault).toBe(true);
    expect(resolved.engine).not.toBeInstanceOf(GuardedContextEngine);
  });
});
