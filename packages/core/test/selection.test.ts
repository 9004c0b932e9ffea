import { describe, expect, it, vi } from "vitest";
import {
  type ClewConfig,
  type ContextEngineFactory,
  ContextEngineRegistry,
  createContextEngineRegistry,
  GuardedContextEngine,
  MemoryLogger,
  normalizeContextEngineSlot,
  resolveContextEngine,
} from "../src/index.js";
import { defineEngine, registerEngine, slotConfig } from "./fixtures.js";
import { createTestHost, EchoModel, testModel } from "./support.js";

function setup(engineId = "acme", owner = `plugin:${engineId}`) {
  const registry = createContextEngineRegistry();
  const factory = vi.fn<ContextEngineFactory>(() => defineEngine(engineId));
  registerEngine(registry, engineId, factory, { owner });
  const logger = new MemoryLogger();
  const resolve = (config: ClewConfig | undefined) => resolveContextEngine(registry, { config, logger });
  return { registry, factory, logger, resolve };
}

describe("default slot values (checklist 7)", () => {
  it.each([
    ["an unset slot", slotConfig(undefined)],
    ["no config at all", undefined],
    ["an empty slot", slotConfig("")],
    ["a whitespace slot", slotConfig("   ")],
    ['"legacy"', slotConfig("legacy")],
    ['"none"', slotConfig("none")],
    ['"NONE"', slotConfig("NONE")],
    ['" None "', slotConfig(" None ")],
  ])(
    "%s resolves legacy without calling any other factory and without quarantine",
    async (_label, config) => {
      const { registry, factory, logger, resolve } = setup();

      const resolved = await resolve(config);

      expect(resolved.effectiveId).toBe("legacy");
      expect(resolved.engine.info.id).toBe("legacy");
      expect(resolved.trustedDefault).toBe(true);
      expect(resolved.selection).toMatchObject({ selectedId: "legacy", source: "default" });
      expect(resolved.fallbackReason).toBeUndefined();
      expect(factory).not.toHaveBeenCalled();
      expect(registry.quarantine.list()).toEqual([]);
      expect(logger.records).toEqual([]);
    },
  );

  it("normalizeContextEngineSlot trims and maps unset, empty and none to undefined", () => {
    expect(normalizeContextEngineSlot("  acme ")).toBe("acme");
    expect(normalizeContextEngineSlot("nOnE")).toBeUndefined();
    expect(normalizeContextEngineSlot("")).toBeUndefined();
    expect(normalizeContextEngineSlot(undefined)).toBeUndefined();
    expect(normalizeContextEngineSlot(42)).toBeUndefined();
  });

  it("a padded slot value selects the trimmed engine id", async () => {
    const { factory, resolve } = setup();
    const resolved = await resolve(slotConfig("  acme  "));
    expect(resolved.effectiveId).toBe("acme");
    expect(resolved.selection.configuredId).toBe("acme");
    expect(factory).toHaveBeenCalledTimes(1);
  });
});

describe("disabled plugins select legacy silently (checklist 8)", () => {
  it.each([
    ["a disabled plugin entry", { entries: { acme: { enabled: false } } }],
    ["a denied plugin", { deny: ["acme"] }],
    ["globally disabled plugins", { enabled: false }],
    ["an allow list without the plugin", { allow: ["something-else"] }],
  ])(
    "%s resolves legacy with no warn, no error, no quarantine, no factory call and the slot unchanged",
    async (_label, plugins) => {
      const { registry, factory, logger, resolve } = setup();
      const config = slotConfig("acme", plugins);
      const before = structuredClone(config);

      const resolved = await resolve(config);

      expect(resolved.effectiveId).toBe("legacy");
      expect(resolved.engine.info.id).toBe("legacy");
      expect(resolved.fallbackReason).toBe("plugin-disabled");
      expect(resolved.selection).toEqual({
        configuredId: "acme",
        selectedId: "legacy",
        source: "default",
        reason: "plugin-disabled",
      });
      expect(factory).not.toHaveBeenCalled();
      expect(registry.quarantine.list()).toEqual([]);
      expect(logger.records).toEqual([]);
      expect(config).toEqual(before);
      expect(config.plugins?.slots?.contextEngine).toBe("acme");
    },
  );

  it("an unregistered engine whose plugin is denied resolves legacy silently, not as a missing engine", async () => {
    const { registry, logger, resolve } = setup();
    const resolved = await resolve(slotConfig("ghost", { deny: ["ghost"] }));
    expect(resolved.effectiveId).toBe("legacy");
    expect(resolved.fallbackReason).toBe("plugin-disabled");
    expect(registry.quarantine.list()).toEqual([]);
    expect(logger.records).toEqual([]);
  });
});

describe("engines owned by a differently named plugin (checklist 9)", () => {
  it.each([
    ["denied", { deny: ["lossless-pack"] }],
    ["disabled", { entries: { "lossless-pack": { enabled: false } } }],
  ])("an engine whose owner plugin is %s resolves legacy silently", async (_label, plugins) => {
    const { registry, factory, logger, resolve } = setup("lossless", "plugin:lossless-pack");

    const resolved = await resolve(slotConfig("lossless", plugins));

    expect(resolved.effectiveId).toBe("legacy");
    expect(resolved.fallbackReason).toBe("plugin-disabled");
    expect(factory).not.toHaveBeenCalled();
    expect(registry.quarantine.list()).toEqual([]);
    expect(logger.records).toEqual([]);
  });

  it("the owner plugin's state decides, not a plugin entry named like the engine", async () => {
    const { factory, resolve } = setup("lossless", "plugin:lossless-pack");

    const resolved = await resolve(slotConfig("lossless", { deny: ["lossless"] }));

    expect(resolved.effectiveId).toBe("lossless");
    expect(factory).toHaveBeenCalledTimes(1);
  });
});

describe("re-enabling a plugin (checklist 10)", () => {
  it("disable followed by re-enable restores the configured engine without re-registration", async () => {
    const { registry, factory, resolve } = setup();
    const registration = registry.get("acme");

    const disabled = await resolve(slotConfig("acme", { entries: { acme: { enabled: false } } }));
    const enabled = await resolve(slotConfig("acme", { entries: { acme: { enabled: true } } }));

    expect(disabled.effectiveId).toBe("legacy");
    expect(enabled.effectiveId).toBe("acme");
    expect(enabled.engine.info.id).toBe("acme");
    expect(enabled.fallbackReason).toBeUndefined();
    expect(registry.get("acme")).toBe(registration);
    expect(factory).toHaveBeenCalledTimes(1);
  });

  it("a host reloaded with the plugin enabled again runs the configured engine", async () => {
    const { host, registry } = createTestHost({ config: slotConfig("acme", { deny: ["acme"] }) });
    registerEngine(registry, "acme", defineEngine("acme"));
    expect((await host.status()).effectiveId).toBe("legacy");

    await host.reload(slotConfig("acme"));

    const status = await host.status();
    expect(status.effectiveId).toBe("acme");
    expect(status.configuredId).toBe("acme");
  });
});

describe("engine id and owner plugin id (checklist 11)", () => {
  it("an enabled engine id is kept separate from its owner plugin id", async () => {
    const { resolve } = setup("lossless", "plugin:lossless-pack");

    const resolved = await resolve(slotConfig("lossless"));

    expect(resolved.effectiveId).toBe("lossless");
    expect(resolved.engine).toBeInstanceOf(GuardedContextEngine);
    const engine = resolved.engine as GuardedContextEngine;
    expect(engine.registeredId).toBe("lossless");
    expect(engine.owner).toBe("plugin:lossless-pack");
    expect(engine.ownerPluginId).toBe("lossless-pack");
  });

  it("only plugin owners name a plugin", () => {
    expect(ContextEngineRegistry.ownerPluginId("plugin:lossless-pack")).toBe("lossless-pack");
    expect(ContextEngineRegistry.ownerPluginId("core")).toBeUndefined();
    expect(ContextEngineRegistry.ownerPluginId("test:fixture")).toBeUndefined();
    expect(ContextEngineRegistry.ownerPluginId(undefined)).toBeUndefined();
  });
});

describe("turns with a disabled selected plugin (checklist 41)", () => {
  it("a disabled selected plugin produces ordinary legacy turns with no warnings", async () => {
    const { host, registry, logger, sessions } = createTestHost({
      config: slotConfig("acme", { entries: { acme: { enabled: false } } }),
    });
    const assemble = vi.fn(async () => ({ messages: [], estimatedTokens: 0 }));
    registerEngine(registry, "acme", defineEngine("acme", { assemble }));
    const model = new EchoModel();

    const result = await host.runTurn({
      session: sessions.open({ sessionId: "s1" }),
      prompt: "hello",
      systemPrompt: "sys",
      model: testModel,
      callModel: model.step,
    });

    expect(result.engineId).toBe("legacy");
    expect(result.finalized).toBe(true);
    expect(model.requests).toHaveLength(1);
    expect(assemble).not.toHaveBeenCalled();
    expect(logger.messages("warn")).toEqual([]);
    expect(logger.messages("error")).toEqual([]);
    expect(registry.quarantine.list()).toEqual([]);
    const status = await host.status();
    expect(status.fallbackReason).toBe("plugin-disabled");
    expect(status.quarantine).toBeUndefined();
  });
});
