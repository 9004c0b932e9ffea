import { describe, expect, it, vi } from "vitest";
import {
  buildContextEngineRuntimeSettings,
  type ContextEngine,
  type ContextEngineReasonCode,
  type ContextEngineRuntimeSettings,
  ContextOverflowError,
  normalizeReasonCode,
} from "../src/index.js";
import { defineEngine, paramsOf, registerEngine, slotConfig } from "./fixtures.js";
import { assistantMessage, conversation, createTestHost, testModel } from "./support.js";

describe("building runtime settings (checklist 57)", () => {
  it("normal mode with every field populated", () => {
    const settings = buildContextEngineRuntimeSettings({
      host: "clew",
      harnessId: "  pi  ",
      runtimeId: "rt-1",
      requestedModel: "claude-sonnet",
      resolvedModel: "claude-sonnet",
      provider: "anthropic",
      family: "claude",
      selectedEngineId: "lossless-claw",
      executionHost: { id: "clew-embedded", label: "Clew embedded runner" },
      promptTokenBudget: 79_994,
      maxOutputTokens: 20_000,
    });

    expect(settings).toEqual({
      schemaVersion: 1,
      runtime: { host: "clew", mode: "normal", harnessId: "pi", runtimeId: "rt-1" },
      model: {
        requested: "claude-sonnet",
        resolved: "claude-sonnet",
        provider: "anthropic",
        family: "claude",
      },
      contextEngineSelection: { selectedId: "lossless-claw", source: "configured" },
      executionHost: { id: "clew-embedded", label: "Clew embedded runner" },
      limits: { promptTokenBudget: 79_994, maxOutputTokens: 20_000 },
      diagnostics: { fallbackReason: null, degradedReason: null },
    } satisfies ContextEngineRuntimeSettings);
  });

  it("a fallback reason gives mode fallback", () => {
    const settings = buildContextEngineRuntimeSettings({ fallbackReason: "primary model timeout" });
    expect(settings.runtime.mode).toBe("fallback");
    expect(settings.diagnostics).toEqual({ fallbackReason: "provider_timeout", degradedReason: null });
  });

  it("a degraded reason gives mode degraded, even alongside a fallback reason", () => {
    const settings = buildContextEngineRuntimeSettings({
      fallbackReason: "rate_limited",
      degradedReason: "context window overflow",
    });
    expect(settings.runtime.mode).toBe("degraded");
    expect(settings.diagnostics).toEqual({
      fallbackReason: "rate_limited",
      degradedReason: "context_overflow",
    });
  });

  it("a resolved model that differs from the requested one gives mode fallback", () => {
    const settings = buildContextEngineRuntimeSettings({ requestedModel: "big", resolvedModel: "small" });
    expect(settings.runtime.mode).toBe("fallback");
    expect(settings.model).toMatchObject({ requested: "big", resolved: "small" });
  });

  it("an explicit mode wins over inference", () => {
    expect(
      buildContextEngineRuntimeSettings({ mode: "normal", degradedReason: "timeout" }).runtime.mode,
    ).toBe("normal");
  });

  it.each<[string, ContextEngineReasonCode]>([
    ["provider_timeout", "provider_timeout"],
    ["rate_limited", "rate_limited"],
    ["unknown", "unknown"],
    ["Request TIMEOUT after 30s", "provider_timeout"],
    ["rate limit timeout", "provider_timeout"],
    ["HTTP 429", "rate_limited"],
    ["quota limit reached", "rate_limited"],
    ["context limit exceeded", "rate_limited"],
    ["context window overflow", "context_overflow"],
    ["memory pressure", "context_overflow"],
    ["runtime crashed", "runtime_unavailable"],
    ["primary provider down", "provider_unavailable"],
    ["service unavailable", "provider_unavailable"],
    ["something odd", "unknown"],
  ])("the reason %j is normalised to %s", (reason, code) => {
    expect(normalizeReasonCode(reason)).toBe(code);
    expect(buildContextEngineRuntimeSettings({ fallbackReason: reason }).diagnostics.fallbackReason).toBe(
      code,
    );
  });

  it("unknown values are null and the discriminators are never null", () => {
    expect(buildContextEngineRuntimeSettings({})).toEqual({
      schemaVersion: 1,
      runtime: { host: "clew", mode: "normal", harnessId: null, runtimeId: null },
      model: { requested: null, resolved: null, provider: null, family: null },
      contextEngineSelection: { selectedId: null, source: "unknown" },
      executionHost: { id: null, label: null },
      limits: { promptTokenBudget: null, maxOutputTokens: null },
      diagnostics: { fallbackReason: null, degradedReason: null },
    });
  });

  it("blank and non-string text, non-finite numbers and blank reasons become null", () => {
    const settings = buildContextEngineRuntimeSettings({
      harnessId: "   ",
      runtimeId: 42,
      requestedModel: "",
      provider: { name: "x" },
      selectedEngineId: "  ",
      executionHost: { id: 7, label: "" },
      promptTokenBudget: Number.NaN,
      maxOutputTokens: Number.POSITIVE_INFINITY,
      fallbackReason: "  ",
    });
    expect(settings.runtime).toEqual({ host: "clew", mode: "normal", harnessId: null, runtimeId: null });
    expect(settings.model).toEqual({ requested: null, resolved: null, provider: null, family: null });
    expect(settings.contextEngineSelection).toEqual({ selectedId: null, source: "unknown" });
    expect(settings.executionHost).toEqual({ id: null, label: null });
    expect(settings.limits).toEqual({ promptTokenBudget: null, maxOutputTokens: null });
    expect(settings.diagnostics.fallbackReason).toBeNull();
  });

  it("the resolved model falls back to the requested one and a family is never implied", () => {
    const settings = buildContextEngineRuntimeSettings({
      requestedModel: "claude-sonnet",
      provider: "anthropic",
    });
    expect(settings.model).toEqual({
      requested: "claude-sonnet",
      resolved: "claude-sonnet",
      provider: "anthropic",
      family: null,
    });
  });

  it("the legacy engine is the default source", () => {
    expect(buildContextEngineRuntimeSettings({ selectedEngineId: "legacy" }).contextEngineSelection).toEqual({
      selectedId: "legacy",
      source: "default",
    });
  });
});

describe("runtime settings delivered by the embedded host (checklist 58)", () => {
  function lifecycleEngine() {
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
      compacted: true,
      result: { tokensBefore: 9 },
    }));
    const ingest = vi.fn<ContextEngine["ingest"]>(async () => ({ ingested: true }));
    return { bootstrap, maintain, assemble, afterTurn, compact, ingest };
  }

  async function runWithOverflow(parts: ReturnType<typeof lifecycleEngine>) {
    const { host, registry, sessions } = createTestHost({ config: slotConfig("acme") });
    registerEngine(registry, "acme", defineEngine("acme", { info: { version: "2.0.0" }, ...parts }));
    let calls = 0;
    await host.runTurn({
      session: sessions.open({ sessionId: "s1", messages: conversation(1) }),
      prompt: "hello",
      systemPrompt: "sys",
      model: { ...testModel, family: "test-family" },
      callModel: async () => {
        calls += 1;
        if (calls === 1) throw new ContextOverflowError("too long");
        return { messages: [assistantMessage("ok")], done: true };
      },
    });
  }

  const expectedSettings = (promptTokenBudget: number | null): ContextEngineRuntimeSettings => ({
    schemaVersion: 1,
    runtime: { host: "clew", mode: "normal", harnessId: null, runtimeId: null },
    model: { requested: "test-model", resolved: "test-model", provider: "test", family: "test-family" },
    contextEngineSelection: { selectedId: "acme", source: "configured" },
    executionHost: { id: "clew-embedded", label: "Clew embedded runner" },
    limits: { promptTokenBudget, maxOutputTokens: 20_000 },
    diagnostics: { fallbackReason: null, degradedReason: null },
  });

  it("the embedded host passes runtimeSettings to bootstrap, assemble, afterTurn, maintain and compact of a configured engine", async () => {
    const parts = lifecycleEngine();
    await runWithOverflow(parts);

    const assembled = paramsOf(parts.assemble);
    expect(assembled.runtimeSettings).toEqual(expectedSettings(assembled.tokenBudget ?? -1));
    expect(assembled.runtimeSettings?.limits.promptTokenBudget).toBe(assembled.tokenBudget);
    expect(paramsOf(parts.compact).runtimeSettings).toEqual(expectedSettings(testModel.contextWindow));
    for (const mock of [parts.bootstrap, parts.afterTurn, parts.maintain]) {
      const settings = paramsOf(mock).runtimeSettings;
      expect(settings).toMatchObject({
        schemaVersion: 1,
        runtime: { host: "clew", mode: "normal" },
        model: { requested: "test-model", provider: "test", family: "test-family" },
        contextEngineSelection: { selectedId: "acme", source: "configured" },
        executionHost: { id: "clew-embedded", label: "Clew embedded runner" },
        limits: { maxOutputTokens: 20_000 },
      });
    }
    // bootstrap, then maintain after bootstrap, after the compaction and after the turn.
    expect(parts.maintain).toHaveBeenCalledTimes(3);
  });

  it("every assemble of a turn reports its own budget", async () => {
    const parts = lifecycleEngine();
    await runWithOverflow(parts);
    expect(parts.assemble).toHaveBeenCalledTimes(2);
    for (const [params] of parts.assemble.mock.calls) {
      expect(params.runtimeSettings?.limits.promptTokenBudget).toBe(params.tokenBudget);
    }
  });

  it("ingest never receives runtime settings", async () => {
    const { ingest, assemble, compact } = lifecycleEngine();
    const { host, registry, sessions } = createTestHost({ config: slotConfig("acme") });
    registerEngine(registry, "acme", defineEngine("acme", { ingest, assemble, compact }));

    await host.runTurn({
      session: sessions.open({ sessionId: "s1" }),
      prompt: "hello",
      systemPrompt: "sys",
      model: testModel,
      callModel: async () => ({ messages: [assistantMessage("ok")], done: true }),
    });

    expect(ingest).toHaveBeenCalledTimes(2);
    for (const [params] of ingest.mock.calls) expect(Object.hasOwn(params, "runtimeSettings")).toBe(false);
  });

  it("the configured reserve is reported as maxOutputTokens", async () => {
    const { assemble } = lifecycleEngine();
    const { host, registry, sessions } = createTestHost({
      config: slotConfig("acme", {}, { agents: { defaults: { compaction: { reserveTokens: 4096 } } } }),
    });
    registerEngine(registry, "acme", defineEngine("acme", { assemble }));

    await host.runTurn({
      session: sessions.open({ sessionId: "s1" }),
      prompt: "hello",
      systemPrompt: "sys",
      model: testModel,
      callModel: async () => ({ messages: [assistantMessage("ok")], done: true }),
    });

    expect(paramsOf(assemble).runtimeSettings?.limits.maxOutputTokens).toBe(4096);
  });
});
