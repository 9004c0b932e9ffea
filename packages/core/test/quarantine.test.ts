import { describe, expect, it, vi } from "vitest";
import {
  type CompactParams,
  type CompactResult,
  type ContextEngine,
  type ContextEngineFactory,
  QuarantineLedger,
  type RuntimeCompactor,
  runWithRuntimeCompactor,
} from "../src/index.js";
import { deferred, defineEngine, namedError, registerEngine } from "./fixtures.js";
import { maintainParams, NOW, setup, setupWith } from "./quarantine-helpers.js";
import { conversation, userMessage } from "./support.js";

describe("assemble failures (checklist 24)", () => {
  it("a throwing assemble answers with the legacy result and quarantines the engine for later calls", async () => {
    const assemble = vi.fn<ContextEngine["assemble"]>(async () => {
      throw new Error("assemble exploded");
    });
    const { registry, engine, factory, resolve } = await setupWith({
      info: { ownsCompaction: true, turnMaintenanceMode: "background" },
      assemble,
    });
    expect(engine.info.ownsCompaction).toBe(true);
    expect(engine.ownerPluginId).toBe("acme");
    const messages = conversation(2);

    const result = await engine.assemble({ sessionId: "s1", messages });

    expect(result).toEqual({ messages, estimatedTokens: 0 });
    expect(result.messages).toBe(messages);
    expect(registry.quarantine.get("acme")).toEqual({
      engineId: "acme",
      owner: "plugin:acme",
      operation: "assemble",
      reason: "assemble exploded",
      failedAt: NOW,
    });
    expect(engine.isQuarantined).toBe(true);
    expect(engine.info.id).toBe("legacy");
    expect(engine.info.ownsCompaction).toBeUndefined();
    expect(engine.info.turnMaintenanceMode).toBeUndefined();
    expect(engine.ownerPluginId).toBeUndefined();

    const later = await engine.assemble({ sessionId: "s1", messages: conversation(1) });
    expect(later.messages).toHaveLength(2);
    expect(assemble).toHaveBeenCalledTimes(1);

    const again = await resolve();
    expect(again.effectiveId).toBe("legacy");
    expect(again.fallbackReason).toBe("quarantined");
    expect(factory).toHaveBeenCalledTimes(1);
  });

  it("the quarantine produces exactly one error log line naming the operation", async () => {
    const { engine, logger } = await setupWith({
      assemble: async () => {
        throw new Error("assemble exploded");
      },
    });

    await engine.assemble({ sessionId: "s1", messages: [] });
    await engine.assemble({ sessionId: "s1", messages: [] });

    expect(logger.messages("error")).toEqual([
      '[context-engine] Context engine "acme" owner=plugin:acme failed during assemble: assemble exploded; quarantining it for this process and falling back to default engine "legacy".',
    ]);
  });
});

describe("concurrent failures (checklist 25)", () => {
  it("concurrent assemble failures build the fallback only once and leave one quarantine record", async () => {
    const gate = deferred();
    const assemble = vi.fn<ContextEngine["assemble"]>(async () => {
      await gate.promise;
      throw new Error("assemble exploded");
    });
    const { registry, engine, legacyFactory, logger } = await setupWith({ assemble });
    const messages = conversation(1);

    const calls = Array.from({ length: 5 }, () => engine.assemble({ sessionId: "s1", messages }));
    gate.resolve();
    const results = await Promise.all(calls);

    expect(assemble).toHaveBeenCalledTimes(5);
    for (const result of results) expect(result.messages).toBe(messages);
    expect(legacyFactory).toHaveBeenCalledTimes(1);
    expect(registry.quarantine.list()).toHaveLength(1);
    expect(logger.messages("error")).toHaveLength(1);
  });
});

describe("compact failures (checklist 26)", () => {
  it("a throwing compact rethrows the same error, quarantines, and then reports legacy info and a runtime-delegate compact", async () => {
    const failure = new Error("compaction exploded");
    const compact = vi.fn<ContextEngine["compact"]>(async () => {
      throw failure;
    });
    const { registry, engine } = await setupWith({ info: { ownsCompaction: true }, compact });
    const params: CompactParams = {
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      force: true,
      tokenBudget: 1000,
    };

    await expect(engine.compact(params)).rejects.toBe(failure);

    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "compact",
      reason: "compaction exploded",
    });
    expect(engine.info).toEqual({ id: "legacy", name: "Legacy Context Engine" });
    expect(engine.info.ownsCompaction).toBeUndefined();

    const runtimeResult: CompactResult = {
      ok: true,
      compacted: true,
      result: { tokensBefore: 900, tokensAfter: 100 },
    };
    const runtime = vi.fn<RuntimeCompactor>(async () => runtimeResult);
    const next = await runWithRuntimeCompactor(runtime, () => engine.compact(params));

    expect(next).toBe(runtimeResult);
    expect(compact).toHaveBeenCalledTimes(1);
    expect(runtime).toHaveBeenCalledTimes(1);
    expect(runtime.mock.calls[0]?.[0]).toMatchObject({
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      tokenBudget: 1000,
    });
    expect(engine.info).toMatchObject({ id: "legacy", name: "Legacy Context Engine", version: "1.0.0" });
  });
});

describe("subagent preparation failures (checklist 27)", () => {
  it("a throwing prepareSubagentSpawn rejects with the original error and quarantines", async () => {
    const failure = new Error("spawn prep exploded");
    const { registry, engine } = await setupWith({
      prepareSubagentSpawn: async () => {
        throw failure;
      },
    });

    await expect(
      engine.prepareSubagentSpawn?.({ parentSessionKey: "agent:main:p", childSessionKey: "agent:main:c" }),
    ).rejects.toBe(failure);

    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "prepareSubagentSpawn",
      reason: "spawn prep exploded",
    });
  });
});

describe("aborted compaction (checklist 28)", () => {
  it("an aborted compact (AbortError caused by the signal reason) is rethrown without quarantine and the engine stays selected", async () => {
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    const abortError = namedError("AbortError", "compaction aborted", reason);
    const compact = vi.fn<ContextEngine["compact"]>(async () => {
      controller.abort(reason);
      throw abortError;
    });
    const { registry, engine } = await setupWith({ info: { ownsCompaction: true }, compact });

    await expect(engine.compact({ sessionId: "s1", abortSignal: controller.signal })).rejects.toBe(
      abortError,
    );

    expect(registry.quarantine.list()).toEqual([]);
    expect(engine.isQuarantined).toBe(false);
    expect(engine.info.id).toBe("acme");
    expect(engine.info.ownsCompaction).toBe(true);
    compact.mockResolvedValueOnce({ ok: true, compacted: false });
    expect(await engine.compact({ sessionId: "s1" })).toEqual({ ok: true, compacted: false });
    expect(compact).toHaveBeenCalledTimes(2);
  });

  it("a compact rejected with the signal's own reason is rethrown without quarantine", async () => {
    const controller = new AbortController();
    const reason = new Error("deadline");
    const { registry, engine } = await setupWith({
      compact: async () => {
        controller.abort(reason);
        throw reason;
      },
    });

    await expect(engine.compact({ sessionId: "s1", abortSignal: controller.signal })).rejects.toBe(reason);
    expect(registry.quarantine.list()).toEqual([]);
  });
});

describe("aborted maintenance (checklist 29)", () => {
  it("maintain with an abort before the call rejects with the reason, is not called and is not quarantined", async () => {
    const maintain = vi.fn<NonNullable<ContextEngine["maintain"]>>(async () => ({
      changed: false,
      bytesFreed: 0,
      rewrittenEntries: 0,
    }));
    const { registry, engine } = await setupWith({ maintain });
    const controller = new AbortController();
    const reason = new Error("shutting down");
    controller.abort(reason);

    await expect(engine.maintain?.(maintainParams(controller.signal))).rejects.toBe(reason);

    expect(maintain).not.toHaveBeenCalled();
    expect(registry.quarantine.list()).toEqual([]);
  });

  it("maintain with an abort during the call rejects with the AbortError and is not quarantined", async () => {
    const controller = new AbortController();
    const abortError = new DOMException("maintenance aborted", "AbortError");
    const { registry, engine } = await setupWith({
      maintain: async () => {
        controller.abort();
        throw abortError;
      },
    });

    await expect(engine.maintain?.(maintainParams(controller.signal))).rejects.toBe(abortError);

    expect(registry.quarantine.list()).toEqual([]);
    expect(engine.isQuarantined).toBe(false);
  });

  it("a plain AbortError-named maintain failure without an aborted signal is quarantined and answered by the fallback", async () => {
    const controller = new AbortController();
    const { registry, engine } = await setupWith({
      maintain: async () => {
        throw namedError("AbortError", "not really an abort");
      },
    });

    const result = await engine.maintain?.(maintainParams(controller.signal));

    expect(result).toEqual({
      changed: false,
      bytesFreed: 0,
      rewrittenEntries: 0,
      reason: "context engine downgraded to legacy",
    });
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "maintain",
      reason: "not really an abort",
    });
  });
});

describe("lifting a quarantine (checklist 30)", () => {
  it("a missing-engine quarantine is cleared when the plugin registers at runtime and resolution returns the plugin engine", async () => {
    const { registry, resolve } = setup();
    expect((await resolve()).effectiveId).toBe("legacy");
    expect(registry.quarantine.get("acme")).toMatchObject({ operation: "resolve", reason: "not registered" });

    const factory = vi.fn<ContextEngineFactory>(() => defineEngine("acme"));
    registerEngine(registry, "acme", factory);

    expect(registry.quarantine.has("acme")).toBe(false);
    const resolved = await resolve();
    expect(resolved.effectiveId).toBe("acme");
    expect(resolved.engine.info.id).toBe("acme");
    expect(factory).toHaveBeenCalledTimes(1);
  });

  it("a discovery-only registration does not clear the quarantine", async () => {
    const { registry, resolve } = setup();
    await resolve();

    registerEngine(registry, "acme", defineEngine("acme"), { lifecycle: "readOnlyDiscovery" });

    expect(registry.quarantine.has("acme")).toBe(true);
    expect((await resolve()).fallbackReason).toBe("quarantined");
  });

  it("a same-owner runtime refresh lifts a runtime quarantine", async () => {
    const { registry, engine, resolve } = await setupWith({
      assemble: async () => {
        throw new Error("assemble exploded");
      },
    });
    await engine.assemble({ sessionId: "s1", messages: [] });
    expect(registry.quarantine.has("acme")).toBe(true);

    registerEngine(registry, "acme", defineEngine("acme-fixed"), { allowSameOwnerRefresh: true });

    expect(registry.quarantine.has("acme")).toBe(false);
    expect((await resolve()).engine.info.id).toBe("acme-fixed");
    // The wrapper that saw the failure keeps answering from legacy until a new resolution.
    expect(engine.info.id).toBe("legacy");
    await engine.assemble({ sessionId: "s1", messages: [] });
    expect(registry.quarantine.has("acme")).toBe(false);
  });
});

describe("first failure wins (checklist 32)", () => {
  it("later failures do not overwrite the first quarantine record", async () => {
    const ingestGate = deferred();
    const { registry, engine, logger } = await setupWith({
      assemble: async () => {
        throw new Error("assemble failed first");
      },
      ingest: async () => {
        await ingestGate.promise;
        throw new Error("ingest failed later");
      },
    });

    const ingest = engine.ingest({ sessionId: "s1", message: userMessage("hi") });
    await engine.assemble({ sessionId: "s1", messages: [] });
    ingestGate.resolve();
    expect(await ingest).toEqual({ ingested: false });

    expect(registry.quarantine.list()).toEqual([
      {
        engineId: "acme",
        owner: "plugin:acme",
        operation: "assemble",
        reason: "assemble failed first",
        failedAt: NOW,
      },
    ]);
    expect(logger.messages("error")).toHaveLength(1);
  });

  it("the ledger keeps the first record of an engine", () => {
    const ledger = new QuarantineLedger();
    const first = { engineId: "acme", operation: "assemble" as const, reason: "first", failedAt: 1 };
    expect(ledger.record(first)).toBe(true);
    expect(ledger.record({ engineId: "acme", operation: "compact", reason: "second", failedAt: 2 })).toBe(
      false,
    );
    expect(ledger.get("acme")).toBe(first);
    ledger.clear("acme");
    expect(ledger.has("acme")).toBe(false);
  });
});
