import { describe, expect, it, vi } from "vitest";
import type { ContextEngine } from "../src/index.js";
import { deferred, flushMicrotasks, paramsOf, roles } from "./fixtures.js";
import { conversation, userMessage } from "./support.js";
import { defaultEngineHost, engineHost, toolLoopModel, turn } from "./turn-helpers.js";

const maintainResult = { changed: false, bytesFreed: 0, rewrittenEntries: 0 };

describe("finalizing a turn", () => {
  it("afterTurn gets the full snapshot and the pre-prompt message count", async () => {
    const afterTurn = vi.fn<NonNullable<ContextEngine["afterTurn"]>>(async () => {});
    const ingest = vi.fn(async () => ({ ingested: true }));
    const ingestBatch = vi.fn(async () => ({ ingestedCount: 0 }));
    const { host, sessions } = engineHost({ afterTurn, ingest, ingestBatch });
    const history = conversation(2);

    await turn(host, sessions.open({ sessionId: "s1", messages: history }), {
      callModel: toolLoopModel().step,
    });

    const params = paramsOf(afterTurn);
    expect(params.messages).toHaveLength(8);
    expect(params.messages.slice(0, 4)).toEqual(history);
    expect(params.prePromptMessageCount).toBe(4);
    expect(roles(params.messages.slice(params.prePromptMessageCount))).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(params).toMatchObject({
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      sessionFile: "memory:s1",
      isHeartbeat: false,
      tokenBudget: 80_000,
    });
    expect(ingest).not.toHaveBeenCalled();
    expect(ingestBatch).not.toHaveBeenCalled();
  });

  it("a heartbeat turn is flagged to afterTurn", async () => {
    const afterTurn = vi.fn<NonNullable<ContextEngine["afterTurn"]>>(async () => {});
    const { host, sessions } = engineHost({ afterTurn });
    await turn(host, sessions.open({ sessionId: "s1" }), { isHeartbeat: true });
    expect(paramsOf(afterTurn).isHeartbeat).toBe(true);
  });

  it("without afterTurn, ingestBatch gets the turn's new messages once", async () => {
    const ingest = vi.fn(async () => ({ ingested: true }));
    const ingestBatch = vi.fn<NonNullable<ContextEngine["ingestBatch"]>>(async (params) => ({
      ingestedCount: params.messages.length,
    }));
    const { host, sessions } = engineHost({ ingest, ingestBatch });

    const result = await turn(host, sessions.open({ sessionId: "s1", messages: conversation(1) }));

    expect(ingestBatch).toHaveBeenCalledTimes(1);
    expect(paramsOf(ingestBatch)).toEqual({
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      messages: result.newMessages,
      isHeartbeat: false,
    });
    expect(roles(paramsOf(ingestBatch).messages)).toEqual(["user", "assistant"]);
    expect(ingest).not.toHaveBeenCalled();
  });

  it("without afterTurn or ingestBatch, ingest is called for each new message in order", async () => {
    const ingest = vi.fn<ContextEngine["ingest"]>(async () => ({ ingested: true }));
    const { host, sessions } = engineHost({ ingest });

    const result = await turn(host, sessions.open({ sessionId: "s1", messages: conversation(1) }), {
      callModel: toolLoopModel().step,
    });

    expect(ingest.mock.calls.map(([params]) => params.message)).toEqual(result.newMessages);
    expect(roles(result.newMessages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(paramsOf(ingest)).toMatchObject({
      sessionId: "s1",
      sessionKey: "agent:main:s1",
      isHeartbeat: false,
    });
  });

  it("a throwing afterTurn does not fail the turn", async () => {
    const { host, registry, sessions } = engineHost({
      afterTurn: async () => {
        throw new Error("afterTurn exploded");
      },
    });
    const session = sessions.open({ sessionId: "s1" });

    const result = await turn(host, session);

    expect(roles(result.newMessages)).toEqual(["user", "assistant"]);
    expect(roles(await session.messages())).toEqual(["user", "assistant"]);
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "afterTurn",
      reason: "afterTurn exploded",
    });
  });

  it("a finalization failure of an unguarded engine is logged, reported and skips maintenance", async () => {
    const maintain = vi.fn(async () => maintainResult);
    const { host, logger, sessions } = defaultEngineHost({
      afterTurn: async () => {
        throw new Error("afterTurn exploded");
      },
      maintain,
    });

    const result = await turn(host, sessions.open({ sessionId: "s1" }));

    expect(result.finalized).toBe(false);
    expect(logger.messages("warn")).toContain("context engine afterTurn failed: afterTurn exploded");
    expect(maintain).not.toHaveBeenCalled();
  });

  it("a failed model call records the prompt and an error reply and skips afterTurn and maintenance", async () => {
    const afterTurn = vi.fn(async () => {});
    const maintain = vi.fn(async () => maintainResult);
    const { host, sessions } = engineHost({ afterTurn, maintain });
    const session = sessions.open({ sessionId: "s1" });
    const failure = new Error("provider down");

    await expect(
      turn(host, session, {
        callModel: async () => {
          throw failure;
        },
      }),
    ).rejects.toBe(failure);

    expect(afterTurn).not.toHaveBeenCalled();
    expect(maintain).not.toHaveBeenCalled();
    const stored = await session.messages();
    expect(stored).toHaveLength(2);
    expect(stored[0]).toMatchObject({ role: "user", content: "hello" });
    expect(stored[1]).toMatchObject({
      role: "assistant",
      stopReason: "error",
      errorMessage: "provider down",
    });
  });
});

describe("maintenance", () => {
  it("maintain runs after bootstrap and after each turn, and only maintain gets rewriteTranscriptEntries", async () => {
    const maintain = vi.fn<NonNullable<ContextEngine["maintain"]>>(async () => maintainResult);
    const bootstrap = vi.fn<NonNullable<ContextEngine["bootstrap"]>>(async () => ({ bootstrapped: true }));
    const assemble = vi.fn<ContextEngine["assemble"]>(async (params) => ({
      messages: params.messages,
      estimatedTokens: 0,
    }));
    const afterTurn = vi.fn<NonNullable<ContextEngine["afterTurn"]>>(async () => {});
    const { host, sessions } = engineHost({ maintain, bootstrap, assemble, afterTurn });
    const session = sessions.open({ sessionId: "s1", messages: conversation(1) });

    await turn(host, session);
    await turn(host, session);

    expect(maintain.mock.calls.map(([params]) => params.runtimeContext?.maintenanceReason)).toEqual([
      "bootstrap",
      "turn",
      "turn",
    ]);
    for (const [params] of maintain.mock.calls) {
      expect(typeof params.runtimeContext?.rewriteTranscriptEntries).toBe("function");
      expect(params.runtimeContext?.allowDeferredCompactionExecution).toBeUndefined();
      expect(params.abortSignal).toBeInstanceOf(AbortSignal);
    }
    expect(paramsOf(bootstrap).runtimeContext).not.toHaveProperty("rewriteTranscriptEntries");
    expect(paramsOf(assemble).runtimeContext).not.toHaveProperty("rewriteTranscriptEntries");
    expect(paramsOf(afterTurn).runtimeContext).not.toHaveProperty("rewriteTranscriptEntries");
  });

  it("maintain rewrites stored entries through runtimeContext.rewriteTranscriptEntries", async () => {
    const { host, logger, sessions } = engineHost({
      maintain: async (params) => {
        const rewrite = params.runtimeContext?.rewriteTranscriptEntries;
        if (rewrite === undefined) throw new Error("no rewrite offered");
        return rewrite({
          replacements: [
            { entryId: session.storedEntries[0]?.id ?? "?", message: userMessage("[redacted]") },
          ],
        });
      },
    });
    const session = sessions.open({ sessionId: "s1" });

    await turn(host, session, { prompt: "my password is hunter2" });

    expect(session.storedEntries[0]?.message).toEqual(userMessage("[redacted]"));
    expect(session.storedEntries).toHaveLength(2);
    expect(
      logger
        .messages("info")
        .some((line) => line.startsWith("context engine maintenance (turn) rewrote 1 entries")),
    ).toBe(true);
  });

  it("foreground maintenance finishes before the turn resolves", async () => {
    const started = deferred();
    const gate = deferred();
    const { host, sessions } = engineHost({
      maintain: async () => {
        started.resolve();
        await gate.promise;
        return maintainResult;
      },
    });
    let settled = false;

    const running = turn(host, sessions.open({ sessionId: "s1" })).then(() => {
      settled = true;
    });
    await started.promise;
    await flushMicrotasks();

    expect(settled).toBe(false);
    gate.resolve();
    await running;
    expect(settled).toBe(true);
  });

  it("background turnMaintenanceMode defers maintain past the reply", async () => {
    const gate = deferred();
    let finished = false;
    const maintain = vi.fn<NonNullable<ContextEngine["maintain"]>>(async () => {
      await gate.promise;
      finished = true;
      return maintainResult;
    });
    const { host, sessions } = engineHost({ info: { turnMaintenanceMode: "background" }, maintain });

    const result = await turn(host, sessions.open({ sessionId: "s1" }));

    expect(result.steps).toBe(1);
    expect(maintain).toHaveBeenCalledTimes(1);
    expect(finished).toBe(false);
    expect(host.maintenance.pendingCount).toBe(1);
    expect(paramsOf(maintain).runtimeContext?.allowDeferredCompactionExecution).toBe(true);
    gate.resolve();
    await host.maintenance.whenIdle();
    expect(finished).toBe(true);
    expect(host.maintenance.pendingCount).toBe(0);
  });

  it("background maintenance requests for a busy session are coalesced into one rerun", async () => {
    const gate = deferred();
    const reasons: unknown[] = [];
    const { host, sessions } = engineHost({
      info: { turnMaintenanceMode: "background" },
      maintain: async (params) => {
        reasons.push(params.runtimeContext?.maintenanceReason);
        await gate.promise;
        return maintainResult;
      },
    });
    const session = sessions.open({ sessionId: "s1" });

    await turn(host, session);
    await turn(host, session);
    await turn(host, session);
    gate.resolve();
    await host.maintenance.whenIdle();

    expect(reasons).toEqual(["turn", "turn"]);
  });
});
