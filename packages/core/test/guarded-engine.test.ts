import { describe, expect, it } from "vitest";
import {
  type AssembleParams,
  type AssembleResult,
  type CompactResult,
  type ContextEngine,
  type ContextEngineInfo,
  MemoryLogger,
  resolveContextEngine,
} from "../src/index.js";
import { defineEngine, registerEngine, slotConfig } from "./fixtures.js";
import { guarded, maintainParams, setup, setupWith } from "./quarantine-helpers.js";
import { userMessage } from "./support.js";

describe("fallback answers for every wrapped method", () => {
  it("failing optional methods are answered by the legacy fallback or its synthetic results", async () => {
    const boom = async (): Promise<never> => {
      throw new Error("boom");
    };
    const { engine } = await setupWith({
      bootstrap: boom,
      ingest: boom,
      ingestBatch: boom,
      afterTurn: boom,
      onSubagentEnded: boom,
    });
    const lifecycle = { sessionId: "s1", sessionFile: "memory:s1" };

    expect(await engine.bootstrap?.(lifecycle)).toEqual({
      bootstrapped: false,
      reason: "context engine downgraded to legacy",
    });
    expect(await engine.ingest({ sessionId: "s1", message: userMessage("hi") })).toEqual({
      ingested: false,
    });
    expect(await engine.ingestBatch?.({ sessionId: "s1", messages: [] })).toEqual({ ingestedCount: 0 });
    expect(
      await engine.afterTurn?.({ ...lifecycle, messages: [], prePromptMessageCount: 0 }),
    ).toBeUndefined();
    expect(await engine.onSubagentEnded?.({ childSessionKey: "c", reason: "completed" })).toBeUndefined();
  });

  it("when the fallback fails too, the original error is rethrown", async () => {
    const { registry } = setup();
    const original = new Error("plugin assemble exploded");
    registry.registerContextEngine(
      "legacy",
      async () =>
        defineEngine("legacy", {
          assemble: async () => {
            throw new Error("fallback exploded too");
          },
        }),
      { owner: "core", allowSameOwnerRefresh: true },
    );
    registerEngine(
      registry,
      "acme",
      defineEngine("acme", {
        assemble: async () => {
          throw original;
        },
      }),
    );
    const engine = guarded(
      await resolveContextEngine(registry, { config: slotConfig("acme"), logger: new MemoryLogger() }),
    );

    await expect(engine.assemble({ sessionId: "s1", messages: [] })).rejects.toBe(original);
    expect(registry.quarantine.get("acme")?.operation).toBe("assemble");
  });
});

describe("frozen shared instances (checklist 46)", () => {
  class SharedEngine implements ContextEngine {
    readonly info: ContextEngineInfo = Object.freeze({ id: "shared", name: "Shared" });
    readonly receivers: unknown[] = [];
    async ingest() {
      this.receivers.push(this);
      return { ingested: true };
    }
    async assemble(params: AssembleParams): Promise<AssembleResult> {
      this.receivers.push(this);
      return { messages: params.messages, estimatedTokens: this.receivers.length };
    }
    async compact(): Promise<CompactResult> {
      this.receivers.push(this);
      return { ok: true, compacted: false };
    }
    async maintain() {
      this.receivers.push(this);
      return { changed: false, bytesFreed: 0, rewrittenEntries: 0 };
    }
  }

  it("a frozen engine instance shared by the factory is never mutated and calls are bound to it", async () => {
    const { registry, resolve } = setup();
    const shared = Object.freeze(new SharedEngine());
    const ownKeys = Reflect.ownKeys(shared);
    registerEngine(registry, "acme", () => shared);

    const first = guarded(await resolve());
    const second = guarded(await resolve());
    await first.assemble({ sessionId: "s1", messages: [] });
    await second.assemble({ sessionId: "s2", messages: [] });
    await first.compact({ sessionId: "s1" });
    await second.maintain?.(maintainParams());
    await first.ingest({ sessionId: "s1", message: userMessage("hi") });

    expect(first).not.toBe(shared);
    expect(first).not.toBe(second);
    expect(shared.receivers).toHaveLength(5);
    for (const receiver of shared.receivers) expect(receiver).toBe(shared);
    expect(Object.isFrozen(shared)).toBe(true);
    expect(Reflect.ownKeys(shared)).toEqual(ownKeys);
    expect(first.info).toBe(shared.info);
  });

  it("the wrapper has an optional method exactly when the engine has it", async () => {
    const { engine } = await setupWith({
      maintain: async () => ({ changed: false, bytesFreed: 0, rewrittenEntries: 0 }),
    });
    expect(typeof engine.maintain).toBe("function");
    expect(engine.bootstrap).toBeUndefined();
    expect(engine.afterTurn).toBeUndefined();
    expect(engine.ingestBatch).toBeUndefined();
    expect(engine.prepareSubagentSpawn).toBeUndefined();
    expect(engine.onSubagentEnded).toBeUndefined();
  });
});
