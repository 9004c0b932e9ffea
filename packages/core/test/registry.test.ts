import { describe, expect, it, vi } from "vitest";
import {
  type ContextEngineFactory,
  ContextEngineRegistry,
  createContextEngineRegistry,
  MemoryLogger,
  resolveContextEngine,
} from "../src/index.js";
import { defineEngine, slotConfig } from "./fixtures.js";

function factoryFor(id: string) {
  return vi.fn<ContextEngineFactory>(() => defineEngine(id));
}

async function resolveSlot(registry: ContextEngineRegistry, slot: string) {
  return resolveContextEngine(registry, { config: slotConfig(slot), logger: new MemoryLogger() });
}

describe("registration ownership (checklist 1)", () => {
  it("registering an id owned by another owner is refused with the existing owner and keeps the original factory", async () => {
    const registry = createContextEngineRegistry();
    const original = factoryFor("acme");
    const intruder = factoryFor("intruder");
    expect(registry.registerContextEngine("acme", original, { owner: "plugin:acme" })).toEqual({ ok: true });

    const result = registry.registerContextEngine("acme", intruder, {
      owner: "plugin:other",
      allowSameOwnerRefresh: true,
    });

    expect(result).toEqual({ ok: false, existingOwner: "plugin:acme" });
    expect(registry.get("acme")?.factory).toBe(original);
    expect(registry.get("acme")?.owner).toBe("plugin:acme");
    const resolved = await resolveSlot(registry, "acme");
    expect(resolved.effectiveId).toBe("acme");
    expect(resolved.engine.info.id).toBe("acme");
    expect(original).toHaveBeenCalledTimes(1);
    expect(intruder).not.toHaveBeenCalled();
  });

  it("owners are compared after trimming", () => {
    const registry = createContextEngineRegistry();
    expect(registry.registerContextEngine("acme", factoryFor("acme"), { owner: "  plugin:acme  " })).toEqual({
      ok: true,
    });
    expect(registry.get("acme")?.owner).toBe("plugin:acme");
    expect(registry.registerContextEngine("acme", factoryFor("acme"), { owner: "plugin:acme" })).toEqual({
      ok: false,
      existingOwner: "plugin:acme",
    });
  });
});

describe("the reserved legacy id (checklist 2)", () => {
  it("a non-core owner cannot register legacy, even in an empty registry", () => {
    const registry = new ContextEngineRegistry();
    const factory = factoryFor("legacy");

    const result = registry.registerContextEngine("legacy", factory, {
      owner: "plugin:legacy",
      allowSameOwnerRefresh: true,
    });

    expect(result).toEqual({ ok: false, existingOwner: "core" });
    expect(registry.get("legacy")).toBeUndefined();
    expect(registry.ids()).toEqual([]);
  });

  it("a non-core owner cannot replace the built-in legacy engine", () => {
    const registry = createContextEngineRegistry();
    const builtIn = registry.get("legacy")?.factory;

    const result = registry.registerContextEngine("legacy", factoryFor("legacy"), {
      owner: "plugin:hijack",
      allowSameOwnerRefresh: true,
    });

    expect(result).toEqual({ ok: false, existingOwner: "core" });
    expect(registry.get("legacy")?.factory).toBe(builtIn);
    expect(registry.get("legacy")?.owner).toBe("core");
  });

  it("core may register legacy in an empty registry", () => {
    const registry = new ContextEngineRegistry();
    expect(registry.registerContextEngine("legacy", factoryFor("legacy"), { owner: "core" })).toEqual({
      ok: true,
    });
    expect(registry.get("legacy")?.owner).toBe("core");
  });
});

describe("owner validation (checklist 3)", () => {
  it.each(["", "   ", "\t\n"])("an empty or whitespace owner (%j) throws", (owner) => {
    const registry = createContextEngineRegistry();
    expect(() => registry.registerContextEngine("acme", factoryFor("acme"), { owner })).toThrow(
      new TypeError(`registerContextEngine: owner must be a non-empty string, got "${owner}"`),
    );
    expect(registry.get("acme")).toBeUndefined();
  });

  it("a non-string owner throws", () => {
    const registry = createContextEngineRegistry();
    const options = { owner: undefined } as unknown as { owner: string };
    expect(() => registry.registerContextEngine("acme", factoryFor("acme"), options)).toThrow(TypeError);
    expect(registry.get("acme")).toBeUndefined();
  });
});

describe("same-owner refresh (checklist 4)", () => {
  it("a same-owner re-registration without allowSameOwnerRefresh is refused", async () => {
    const registry = createContextEngineRegistry();
    const first = factoryFor("acme-v1");
    const second = factoryFor("acme-v2");
    registry.registerContextEngine("acme", first, { owner: "plugin:acme" });

    const result = registry.registerContextEngine("acme", second, { owner: "plugin:acme" });

    expect(result).toEqual({ ok: false, existingOwner: "plugin:acme" });
    expect(registry.get("acme")?.factory).toBe(first);
    expect((await resolveSlot(registry, "acme")).engine.info.id).toBe("acme-v1");
    expect(second).not.toHaveBeenCalled();
  });

  it("a same-owner re-registration with allowSameOwnerRefresh replaces the registration", async () => {
    const registry = createContextEngineRegistry();
    const first = factoryFor("acme-v1");
    const second = factoryFor("acme-v2");
    registry.registerContextEngine("acme", first, { owner: "plugin:acme" });

    const result = registry.registerContextEngine("acme", second, {
      owner: "plugin:acme",
      allowSameOwnerRefresh: true,
    });

    expect(result).toEqual({ ok: true });
    expect(registry.get("acme")?.factory).toBe(second);
    expect((await resolveSlot(registry, "acme")).engine.info.id).toBe("acme-v2");
    expect(first).not.toHaveBeenCalled();
    expect(second).toHaveBeenCalledTimes(1);
  });
});

describe("read-only discovery registrations (checklist 5)", () => {
  it("a read-only-discovery registration never replaces an existing runtime registration and its factory is never called", async () => {
    const registry = createContextEngineRegistry();
    const runtime = factoryFor("acme-runtime");
    const discovery = factoryFor("acme-discovery");
    registry.registerContextEngine("acme", runtime, { owner: "plugin:acme" });

    const plain = registry.registerContextEngine("acme", discovery, {
      owner: "plugin:acme",
      lifecycle: "readOnlyDiscovery",
    });
    const refreshing = registry.registerContextEngine("acme", discovery, {
      owner: "plugin:acme",
      lifecycle: "readOnlyDiscovery",
      allowSameOwnerRefresh: true,
    });

    expect(plain).toEqual({ ok: true });
    expect(refreshing).toEqual({ ok: true });
    expect(registry.get("acme")).toMatchObject({
      factory: runtime,
      lifecycle: "runtime",
      owner: "plugin:acme",
    });
    const resolved = await resolveSlot(registry, "acme");
    expect(resolved.engine.info.id).toBe("acme-runtime");
    expect(runtime).toHaveBeenCalledTimes(1);
    expect(discovery).not.toHaveBeenCalled();
  });

  it("a read-only-discovery registration from another owner is refused", () => {
    const registry = createContextEngineRegistry();
    const runtime = factoryFor("acme");
    registry.registerContextEngine("acme", runtime, { owner: "plugin:acme" });

    const result = registry.registerContextEngine("acme", factoryFor("other"), {
      owner: "plugin:other",
      lifecycle: "readOnlyDiscovery",
    });

    expect(result).toEqual({ ok: false, existingOwner: "plugin:acme" });
    expect(registry.get("acme")?.factory).toBe(runtime);
  });

  it("runtime activation replaces a discovery-only registration of the same owner", async () => {
    const registry = createContextEngineRegistry();
    const discovery = factoryFor("acme-discovery");
    const runtime = factoryFor("acme-runtime");
    registry.registerContextEngine("acme", discovery, {
      owner: "plugin:acme",
      lifecycle: "readOnlyDiscovery",
    });
    expect(registry.get("acme")?.lifecycle).toBe("readOnlyDiscovery");

    const result = registry.registerContextEngine("acme", runtime, {
      owner: "plugin:acme",
      allowSameOwnerRefresh: true,
    });

    expect(result).toEqual({ ok: true });
    expect(registry.get("acme")).toMatchObject({ factory: runtime, lifecycle: "runtime" });
    expect((await resolveSlot(registry, "acme")).engine.info.id).toBe("acme-runtime");
    expect(discovery).not.toHaveBeenCalled();
  });
});

describe("unregistering a plugin", () => {
  it("unregisterOwner removes only that owner's engines and never legacy", () => {
    const registry = createContextEngineRegistry();
    registry.registerContextEngine("a", factoryFor("a"), { owner: "plugin:pack" });
    registry.registerContextEngine("b", factoryFor("b"), { owner: "plugin:pack" });
    registry.registerContextEngine("c", factoryFor("c"), { owner: "plugin:other" });

    expect(registry.unregisterOwner("plugin:pack")).toEqual(["a", "b"]);
    expect(registry.unregisterOwner("core")).toEqual([]);
    expect(registry.ids()).toEqual(["legacy", "c"]);
  });
});
