import {
  type AgentMessage,
  ALL_HOST_CAPABILITIES,
  assertContextEngineContract,
  type ContextEngine,
  type ContextEngineFactoryContext,
  ContextEngineHost,
  charEstimateTokenCounter,
  countMessagesTokens,
  createContextEngineRegistry,
  createInMemoryRuntimeCompactor,
  HOST_PARAMS,
  type HostModel,
  InMemorySessionStore,
  MemoryLogger,
  type ModelStepFunction,
  type TokenCounter,
} from "@clew/core";
import { describe, expect, it } from "vitest";
import { assistantText, codingConversation, deepFreeze, orphanToolResults } from "./fixtures.js";

/** Names of the cases, for `skip`. */
export type ContractCaseId =
  | "info"
  | "assemble-shape"
  | "assemble-does-not-mutate"
  | "assemble-keeps-tool-pairs"
  | "assemble-fits-budget"
  | "ingest-idempotent"
  | "ingest-batch"
  | "after-turn"
  | "bootstrap"
  | "maintain"
  | "subagent-hooks"
  | "turns-through-host"
  | "compact-no-op-is-not-compacted"
  | "compact-reduces-context"
  | "dispose-idempotent";

export interface ContextEngineContractSuiteOptions {
  /** A fresh engine for each case. */
  createEngine: (context: ContextEngineFactoryContext) => ContextEngine | Promise<ContextEngine>;
  /** Cases to skip, each with the reason it does not apply. */
  skip?: Partial<Record<ContractCaseId, string>>;
  /** Counter used for budget checks; use the one your engine counts with. Default chars/4. */
  tokenCounter?: TokenCounter;
}

const SUITE_MODEL: HostModel = { id: "contract-model", provider: "contract-suite", contextWindow: 200_000 };
const ENGINE_ID = "engine-under-test";

/**
 * The behaviour every context engine must show, run against a real host, real in-memory
 * sessions and real runtime compaction. Call it from a Vitest test file:
 *
 *   runContextEngineContractSuite("my-engine", { createEngine: () => new MyEngine() });
 *
 * Methods an engine does not implement are not tested; budget compliance is checked only for
 * engines that own compaction and answer with `promptAuthority` `assembled`.
 */
export function runContextEngineContractSuite(
  name: string,
  options: ContextEngineContractSuiteOptions,
): void {
  const counter = options.tokenCounter ?? charEstimateTokenCounter;
  const test = (id: ContractCaseId, title: string, body: () => Promise<void>) => {
    const reason = options.skip?.[id];
    if (reason === undefined) it(title, body);
    else it.skip(`${title} (skipped: ${reason})`, body);
  };
  const fresh = async () =>
    assertContextEngineContract(name, await options.createEngine({ workspaceDir: process.cwd() }));

  describe(`context engine contract: ${name}`, () => {
    test("info", "has a valid info block and the required methods", async () => {
      const engine = await fresh();
      const info = engine.info;
      expect(info.id.trim()).not.toBe("");
      expect(info.name.trim()).not.toBe("");
      if (info.turnMaintenanceMode !== undefined)
        expect(["foreground", "background"]).toContain(info.turnMaintenanceMode);
      for (const requirement of Object.values(info.hostRequirements ?? {})) {
        for (const capability of requirement?.requiredCapabilities ?? [])
          expect(ALL_HOST_CAPABILITIES).toContain(capability);
      }
      for (const param of info.acceptedHostParams ?? []) expect(HOST_PARAMS).toContain(param);
    });

    test("assemble-shape", "assembles a well-formed result", async () => {
      const engine = await fresh();
      const messages = codingConversation(6);
      await feed(engine, "shape", messages);
      const result = await engine.assemble({
        sessionId: "shape",
        messages,
        tokenBudget: 100_000,
        prompt: "next",
      });
      expect(Array.isArray(result.messages)).toBe(true);
      expect(Number.isFinite(result.estimatedTokens) && result.estimatedTokens >= 0).toBe(true);
      if (result.promptAuthority !== undefined) {
        expect(["assembled", "preassembly_may_overflow"]).toContain(result.promptAuthority);
      }
      if (result.systemPromptAddition !== undefined)
        expect(typeof result.systemPromptAddition).toBe("string");
      if (result.contextProjection !== undefined) {
        expect(["per_turn", "thread_bootstrap"]).toContain(result.contextProjection.mode);
      }
    });

    test("assemble-does-not-mutate", "never mutates the messages it is given", async () => {
      const engine = await fresh();
      const messages = deepFreeze(codingConversation(6));
      const snapshot = JSON.stringify(messages);
      await feed(engine, "frozen", messages);
      await engine.assemble({ sessionId: "frozen", messages, tokenBudget: 100_000 });
      expect(JSON.stringify(messages)).toBe(snapshot);
    });

    test("assemble-keeps-tool-pairs", "never returns a tool result without its call", async () => {
      const engine = await fresh();
      const messages = codingConversation(30, { toolOutputChars: 3_000 });
      await feed(engine, "pairs", messages);
      for (const tokenBudget of [500, 2_000, 8_000, 100_000]) {
        const result = await engine.assemble({ sessionId: "pairs", messages, tokenBudget });
        expect(orphanToolResults(result.messages)).toEqual([]);
      }
    });

    test("assemble-fits-budget", "fits the budget when it owns compaction and claims authority", async () => {
      const engine = await fresh();
      const messages = codingConversation(40, { toolOutputChars: 3_000 });
      await feed(engine, "budget", messages);
      for (const tokenBudget of [1_000, 4_000, 16_000]) {
        const result = await engine.assemble({ sessionId: "budget", messages, tokenBudget });
        const owns =
          engine.info.ownsCompaction === true && (result.promptAuthority ?? "assembled") === "assembled";
        if (owns) expect(countMessagesTokens(counter, result.messages)).toBeLessThanOrEqual(tokenBudget);
      }
    });

    test("ingest-idempotent", "reports a second ingest of the same message as a duplicate", async () => {
      const engine = await fresh();
      const messages = codingConversation(3);
      for (const message of messages) {
        const first = await engine.ingest({ sessionId: "dupes", message });
        expect(typeof first.ingested).toBe("boolean");
      }
      for (const message of messages) {
        expect((await engine.ingest({ sessionId: "dupes", message })).ingested).toBe(false);
      }
      const result = await engine.assemble({ sessionId: "dupes", messages, tokenBudget: 100_000 });
      expect(result.messages.length).toBeLessThanOrEqual(messages.length + 1);
    });

    test("ingest-batch", "counts what a batch ingest stored", async () => {
      const engine = await fresh();
      if (engine.ingestBatch === undefined) return;
      const messages = codingConversation(4);
      const { ingestedCount } = await engine.ingestBatch({ sessionId: "batch", messages });
      expect(Number.isInteger(ingestedCount) && ingestedCount >= 0 && ingestedCount <= messages.length).toBe(
        true,
      );
    });

    test("after-turn", "accepts a turn snapshot in afterTurn", async () => {
      const engine = await fresh();
      if (engine.afterTurn === undefined) return;
      const messages = codingConversation(4);
      await expect(
        engine.afterTurn({
          sessionId: "after",
          sessionFile: "memory:after",
          messages,
          prePromptMessageCount: messages.length - 2,
          tokenBudget: 50_000,
        }),
      ).resolves.toBeUndefined();
    });

    test("bootstrap", "answers bootstrap with a result", async () => {
      const engine = await fresh();
      if (engine.bootstrap === undefined) return;
      const result = await engine.bootstrap({ sessionId: "boot", sessionFile: "memory:boot" });
      expect(typeof result.bootstrapped).toBe("boolean");
    });

    test("maintain", "answers maintain with a rewrite result", async () => {
      const engine = await fresh();
      if (engine.maintain === undefined) return;
      const result = await engine.maintain({ sessionId: "maint", sessionFile: "memory:maint" });
      expect(typeof result.changed).toBe("boolean");
      expect(Number.isFinite(result.bytesFreed) && Number.isFinite(result.rewrittenEntries)).toBe(true);
    });

    test("subagent-hooks", "prepares a subagent spawn and rolls it back", async () => {
      const engine = await fresh();
      if (engine.prepareSubagentSpawn === undefined) return;
      const preparation = await engine.prepareSubagentSpawn({
        parentSessionKey: "agent:main:parent",
        childSessionKey: "agent:main:child",
        contextMode: "fork",
      });
      if (preparation !== undefined) await preparation.rollback();
      await engine.onSubagentEnded?.({ childSessionKey: "agent:main:child", reason: "completed" });
    });

    test("turns-through-host", "runs turns through the host without being quarantined", async () => {
      const harness = await createHarness(options, name);
      const session = harness.sessions.open({ sessionId: "turns", messages: codingConversation(4) });
      let sent: AgentMessage[] = [];
      const step: ModelStepFunction = async (request) => {
        sent = request.messages;
        return { messages: [assistantText(`answer ${request.step}`, Date.now())], done: true };
      };
      for (let turn = 0; turn < 3; turn++) {
        await harness.host.runTurn({
          session,
          prompt: `prompt ${turn}`,
          systemPrompt: "test",
          model: SUITE_MODEL,
          callModel: step,
        });
        expect(sent.at(-1)).toMatchObject({ role: "user", content: `prompt ${turn}` });
      }
      await harness.host.maintenance.whenIdle();
      const status = await harness.host.status();
      expect(status.quarantined).toEqual([]);
      expect(status.effectiveId).toBe(harness.engineId);
      await harness.host.dispose();
    });

    test("compact-no-op-is-not-compacted", "does not report compacted for an empty session", async () => {
      const harness = await createHarness(options, name);
      const session = harness.sessions.open({ sessionId: "empty" });
      const outcome = await harness.host.compactManually(session);
      expect(outcome.result.compacted).toBe(false);
      await harness.host.dispose();
    });

    test(
      "compact-reduces-context",
      "makes the assembled context smaller when it reports compacted",
      async () => {
        const harness = await createHarness(options, name);
        const history = codingConversation(40, { toolOutputChars: 3_000 });
        const session = harness.sessions.open({ sessionId: "reduce", messages: history });
        const sizes: number[] = [];
        const step: ModelStepFunction = async (request) => {
          sizes.push(countMessagesTokens(counter, request.messages));
          return { messages: [assistantText("ok", Date.now())], done: true };
        };
        await harness.host.runTurn({
          session,
          prompt: "before",
          systemPrompt: "test",
          model: SUITE_MODEL,
          callModel: step,
        });
        const outcome = await harness.host.compactManually(session);
        expect(outcome.result.ok || !outcome.result.compacted).toBe(true);
        await harness.host.runTurn({
          session: outcome.session,
          prompt: "after",
          systemPrompt: "test",
          model: SUITE_MODEL,
          callModel: step,
        });
        const [before, after] = sizes;
        if (outcome.result.compacted) expect(after).toBeLessThan(before ?? 0);
        expect((await harness.host.status()).quarantined).toEqual([]);
        await harness.host.dispose();
      },
    );

    test("dispose-idempotent", "can be disposed twice", async () => {
      const engine = await fresh();
      await engine.dispose?.();
      await engine.dispose?.();
    });
  });
}

async function feed(engine: ContextEngine, sessionId: string, messages: AgentMessage[]): Promise<void> {
  if (engine.afterTurn !== undefined) {
    await engine.afterTurn({
      sessionId,
      sessionFile: `memory:${sessionId}`,
      messages,
      prePromptMessageCount: 0,
    });
  } else if (engine.ingestBatch !== undefined) {
    await engine.ingestBatch({ sessionId, messages });
  } else {
    for (const message of messages) await engine.ingest({ sessionId, message });
  }
}

async function createHarness(options: ContextEngineContractSuiteOptions, name: string) {
  const registry = createContextEngineRegistry();
  const engineId = ENGINE_ID;
  registry.registerContextEngine(engineId, options.createEngine, { owner: `test:${name}` });
  const host = new ContextEngineHost({
    registry,
    config: { plugins: { slots: { contextEngine: engineId } } },
    logger: new MemoryLogger(),
    runtimeCompaction: createInMemoryRuntimeCompactor({
      tokenCounter: options.tokenCounter ?? charEstimateTokenCounter,
    }),
    workspaceDir: process.cwd(),
  });
  return { host, engineId, sessions: new InMemorySessionStore() };
}
