import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  type CompactResult,
  MemoryLogger,
  type RuntimeCompactionRequest,
  runWithRuntimeCompactor,
} from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { createLosslessEngineFactory } from "../src/create-lossless-engine.js";
import { LosslessStoreError } from "../src/errors.js";
import { LosslessEngine } from "../src/lossless-engine.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { LosslessStore } from "../src/store/store.js";
import { codingConversation } from "./support/conversations.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterEach(() => engines.cleanup());

/** An engine whose database path is taken by a directory, so the store cannot be opened. */
async function brokenEngine(logger = new MemoryLogger()): Promise<LosslessEngine> {
  const agentDir = await engines.directory();
  await mkdir(join(agentDir, "lossless.db"));
  const engine = await createLosslessEngineFactory({ logger })({ agentDir });
  return engine as LosslessEngine;
}

describe("fail-open when the database is unusable", () => {
  it("still builds an engine, and says why the store is missing", async () => {
    const logger = new MemoryLogger();
    const engine = await brokenEngine(logger);
    expect(engine.info.ownsCompaction).toBe(true);
    expect(engine.storeFailure).toContain("lossless.db");
    expect(logger.records.some((record) => record.message.includes("fails open"))).toBe(true);
  });

  it("assembles the host's messages and lets the host keep its overflow check", async () => {
    const engine = await brokenEngine();
    const messages = codingConversation(5);
    const result = await engine.assemble({ sessionId: "s", messages, tokenBudget: 100 });
    expect(result.messages).toBe(messages);
    expect(result.promptAuthority).toBe("preassembly_may_overflow");
    expect(result.systemPromptAddition).toBeUndefined();
  });

  it("delegates compaction to the runtime", async () => {
    const engine = await brokenEngine();
    const requests: RuntimeCompactionRequest[] = [];
    const runtimeResult: CompactResult = {
      ok: true,
      compacted: true,
      result: { tokensBefore: 10, tokensAfter: 5 },
    };
    const result = await runWithRuntimeCompactor(
      async (request) => {
        requests.push(request);
        return runtimeResult;
      },
      () => engine.compact({ sessionId: "s", tokenBudget: 1_000, force: true }),
    );
    expect(result).toEqual(runtimeResult);
    expect(requests.map((request) => request.sessionId)).toEqual(["s"]);
  });

  it("answers compaction with ok: false when there is no runtime to delegate to", async () => {
    const engine = await brokenEngine();
    const result = await engine.compact({ sessionId: "s", force: true });
    expect(result).toMatchObject({ ok: false, compacted: false });
    expect(result.reason).toContain("runtime compaction failed");
  });

  it("ingests nothing, bootstraps nothing and refuses recall with a clear error", async () => {
    const engine = await brokenEngine();
    const [message] = codingConversation(1);
    expect(await engine.ingest({ sessionId: "s", message: message as never })).toEqual({ ingested: false });
    expect(await engine.ingestBatch({ sessionId: "s", messages: codingConversation(2) })).toEqual({
      ingestedCount: 0,
    });
    await expect(
      engine.afterTurn({
        sessionId: "s",
        sessionFile: "x",
        messages: codingConversation(2),
        prePromptMessageCount: 0,
      }),
    ).resolves.toBeUndefined();
    expect((await engine.bootstrap({ sessionId: "s", sessionFile: "x.jsonl" })).bootstrapped).toBe(false);
    const { search } = recallToolsOf(engine, "s");
    await expect(search.execute("1", { query: "anything" })).rejects.toThrow(/recall is unavailable/);
  });

  it("delegates a compaction whose store write fails, and answers a corrupt view with ok: false", async () => {
    const store = openSqliteStore(":memory:");
    const failing = Object.create(store) as LosslessStore;
    failing.applyCompaction = async () => {
      throw new LosslessStoreError("applyCompaction", ":memory:", new Error("disk I/O error"));
    };
    const engine = new LosslessEngine(failing);
    await engine.ingestBatch({
      sessionId: "s",
      messages: codingConversation(30, { toolOutputChars: 3_000 }),
    });
    const delegated = await runWithRuntimeCompactor(
      async () => ({ ok: true, compacted: false, reason: "runtime ran" }),
      () => engine.compact({ sessionId: "s", tokenBudget: 2_000, force: true }),
    );
    expect(delegated.reason).toBe("runtime ran");
    const corrupt = Object.create(store) as LosslessStore;
    corrupt.readContextView = async (sessionId) => {
      const view = await store.readContextView(sessionId);
      return { ...view, items: view.items.map((item) => ({ ...item, json: "{not json" })) };
    };
    const broken = new LosslessEngine(corrupt);
    const failed = await broken.compact({ sessionId: "s", tokenBudget: 2_000, force: true });
    expect(failed).toMatchObject({ ok: false, compacted: false });
    expect(failed.reason).toMatch(/^lossless compaction failed: /);
    await store.close();
  });

  it("falls back to the host's messages for a call whose store read fails", async () => {
    const logger = new MemoryLogger();
    const engine = await engines.engine({ logger });
    const messages = codingConversation(3);
    await engine.ingestBatch({ sessionId: "s", messages });
    await engine.dispose();
    const result = await engine.assemble({ sessionId: "s", messages, tokenBudget: 50_000 });
    expect(result.messages).toBe(messages);
    expect(result.promptAuthority).toBe("preassembly_may_overflow");
    expect(logger.records.some((record) => record.message.includes("assemble failed"))).toBe(true);
  });
});
