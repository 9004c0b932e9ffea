import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { type FakeProvider, scriptedReplies, startFakeProvider } from "@clew/agent/testing";
import { type AgentMessage, createModelSummarizer } from "@clew/core";
import {
  type LosslessEngine,
  type LosslessEngineOptions,
  openLosslessEngine,
  openSqliteStore,
  openSqliteStoreReadOnly,
} from "@clew/engine-lossless";
import { assistantText, userText } from "@clew/plugin-sdk/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../src/io.js";
import { runCli } from "../src/main.js";
import { createCliHarness } from "./cli-harness.js";

const LOSSLESS_PACKAGE = join(import.meta.dirname, "../../engine-lossless");
const DAY_MS = 86_400_000;

let harness: Awaited<ReturnType<typeof createCliHarness>>;
let engines: LosslessEngine[];
beforeEach(async () => {
  harness = await createCliHarness();
  engines = [];
});
afterEach(async () => {
  for (const engine of engines) await engine.dispose();
  await harness.cleanup();
});

const storePath = () => join(harness.home, "agents", "main", "lossless.db");

function conversation(count: number, startAt: number, chars: number): AgentMessage[] {
  return Array.from({ length: count }, (_, index) => {
    const text = `message ${index} about the deploy of service-${index % 7}: ${"lorem ipsum dolor ".repeat(chars / 18)}`;
    return index % 2 === 0 ? userText(text, startAt + index) : assistantText(text, startAt + index);
  });
}

/**
 * A store with an idle session (`old`, a year ago, large) and a recent one (`recent`) that was
 * compacted once and assembled; the engine stays open, as a gateway would keep it.
 */
async function seedStore(
  options: LosslessEngineOptions = {},
): Promise<{ engine: LosslessEngine; passId: string; summaryId: string }> {
  await mkdir(join(harness.home, "agents", "main"), { recursive: true });
  const engine = openLosslessEngine(storePath(), options);
  engines.push(engine);
  const old = conversation(200, Date.now() - 365 * DAY_MS, 2_000);
  const recent = conversation(40, Date.now() - 60_000, 400);
  await engine.afterTurn({
    sessionId: "old",
    sessionFile: "memory:old",
    messages: old,
    prePromptMessageCount: 0,
  });
  await engine.afterTurn({
    sessionId: "recent",
    sessionFile: "memory:recent",
    messages: recent,
    prePromptMessageCount: 0,
  });
  const compacted = await engine.compact({ sessionId: "recent", tokenBudget: 1_500, force: true });
  expect(compacted.compacted).toBe(true);
  await engine.assemble({ sessionId: "recent", messages: recent, tokenBudget: 1_500 });
  const report = await engine.inspect("recent");
  const passId = report.lastCompaction?.passId ?? "";
  const summaryId = report.lastCompaction?.summaryIds[0] ?? "";
  return { engine, passId, summaryId };
}

describe("clew lossless history and show", () => {
  it("lists compaction passes and a session's figures while an engine holds the store open", async () => {
    const { passId } = await seedStore();
    const all = await harness.run("lossless", "history", "--json");
    expect(all.code).toBe(0);
    const listed = JSON.parse(all.stdout) as {
      path: string;
      bytesOnDisk: number;
      passes: Array<{ passId: string; sessionId: string }>;
    };
    expect(listed.path).toBe(storePath());
    expect(listed.bytesOnDisk).toBeGreaterThan(0);
    expect(listed.passes.map((pass) => [pass.passId, pass.sessionId])).toEqual([[passId, "recent"]]);

    const session = await harness.run("lossless", "history", "--session", "recent");
    expect(session.code).toBe(0);
    expect(session.stdout).toContain("Session recent:");
    expect(session.stdout).toMatch(/Store: .* 40 messages/);
    expect(session.stdout).toContain(`${passId} `);
    expect(session.stdout).toMatch(/Last assembly: .* tokens: raw [\d,]+ · summaries [\d,]+/);
  });

  it("shows a pass and a summary in full, with what they cost, and names an unknown id", async () => {
    // A model summarizer whose provider reports $0.00025 a call: under a cent, shown in full.
    const summarizer = createModelSummarizer({
      id: "model:test/paid",
      complete: async () => ({
        text: "## Goal\n- deploy the services",
        usage: { inputTokens: 900, outputTokens: 40, costUsd: 0.00025 },
      }),
    });
    const { passId, summaryId } = await seedStore({ summarizer, prepareSummaries: false });
    const pass = await harness.run("lossless", "show", passId, "--json");
    expect(pass.code).toBe(0);
    const record = JSON.parse(pass.stdout) as { summaryIds: string[]; costUsd: number };
    expect(record).toMatchObject({ passId, sessionId: "recent", trigger: "force" });
    expect(record.costUsd).toBeCloseTo(0.00025 * record.summaryIds.length, 10);
    const shown = (await harness.run("lossless", "show", passId)).stdout;
    const shownCost = /cost \$([0-9.]+)/.exec(shown)?.[1];
    expect(Number(shownCost)).toBeCloseTo(record.costUsd, 6);
    // Nothing was prepared (`prepareSummaries: false`): every summary was a call during the pass.
    expect(shown).toContain(
      `: 0 prepared in the background, ${record.summaryIds.length} made during the pass`,
    );
    const summary = await harness.run("lossless", "show", summaryId);
    expect(summary.code).toBe(0);
    expect(summary.stdout).toContain(`Summary ${summaryId} of session recent: leaf, depth 0`);
    expect(summary.stdout).toContain("written by model:test/paid on");
    expect(summary.stdout).toContain("for $0.00025");
    const unknownPass = await harness.run("lossless", "show", "pass_0000000000000000");
    expect(unknownPass.code).toBe(1);
    expect(unknownPass.stderr).toContain('No compaction pass "pass_0000000000000000"');
    const unknownKind = await harness.run("lossless", "show", "whatever");
    expect(unknownKind.stderr).toContain("ids start with pass_");
  });

  it("shows the leaves a pass upgraded apart from the summaries it made", async () => {
    const { passId } = await seedStore();
    const store = openSqliteStore(storePath());
    const seeded = await store.readCompactionPass(passId);
    if (seeded === undefined) throw new Error("the seeded pass is missing");
    const { sessionId, ...record } = seeded;
    await store.recordCompactionPass(sessionId, {
      ...record,
      passId: "pass_00000000000000aa",
      outputs: { leaf: 1, condensed: 0, tokens: 300, prepared: 0, upgraded: 2 },
      summaryIds: ["sum_a", "sum_b", "sum_c"],
    });
    await store.close();
    const shown = (await harness.run("lossless", "show", "pass_00000000000000aa")).stdout;
    expect(shown).toContain("3 summaries (0 prepared, 2 upgraded)");
    expect(shown).toContain(
      "wrote 1 leaf and 0 condensed summaries, and 2 summaries the model rewrote in place of those written without it (300 tokens): 0 prepared in the background, 1 made during the pass",
    );
  });

  it("shows what a compaction did to the provider's cache, from the replies' usage", async () => {
    await mkdir(join(harness.home, "agents", "main"), { recursive: true });
    const engine = openLosslessEngine(storePath());
    engines.push(engine);
    const served = (message: AgentMessage, cacheRead: number, cacheWrite: number): AgentMessage =>
      message.role === "assistant"
        ? { ...message, usage: { ...message.usage, input: 100, cacheRead, cacheWrite, output: 10 } }
        : message;
    const history = conversation(40, Date.now() - 60_000, 400).map((message) => served(message, 1_900, 0));
    await engine.afterTurn({
      sessionId: "cached",
      sessionFile: "memory:c",
      messages: history,
      prePromptMessageCount: 0,
    });
    expect((await engine.compact({ sessionId: "cached", tokenBudget: 1_500, force: true })).compacted).toBe(
      true,
    );
    const later = Date.now() + 1_000;
    const turn = [userText("next", later), served(assistantText("rebuilt", later + 1), 0, 1_900)];
    await engine.afterTurn({
      sessionId: "cached",
      sessionFile: "memory:c",
      messages: [...history, ...turn],
      prePromptMessageCount: history.length,
    });
    const passId = (await engine.inspect("cached")).lastCompaction?.passId ?? "";

    const text = await harness.run("lossless", "history", "--session", "cached");
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`${passId} .*, provider cache 95% → 0%`));
    expect(text.stdout).toContain(
      "Provider cache: 90% of 42,000 prompt tokens read from cache over the last 21 model calls (1 call under half)",
    );
    const json = JSON.parse((await harness.run("lossless", "history", "--json")).stdout) as {
      passes: Array<{
        passId: string;
        cacheEffect: { before: { cacheReadTokens: number }; after: { cacheWriteTokens: number } };
      }>;
    };
    expect(json.passes[0]).toMatchObject({
      passId,
      cacheEffect: { before: { cacheReadTokens: 1_900 }, after: { cacheWriteTokens: 1_900 } },
    });
    const shown = await harness.run("lossless", "show", passId);
    expect(shown.stdout).toContain("provider cache 95% → 0% (share of the prompt read from cache");
  });

  it("says which session or store is missing", async () => {
    const noStore = await harness.run("lossless", "history");
    expect(noStore.code).toBe(1);
    expect(noStore.stderr).toContain(`no lossless store for agent "main" at ${storePath()}`);
    await seedStore();
    const unknown = await harness.run("lossless", "history", "--session", "nobody");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No session "nobody" in the lossless store');
    const badLimit = await harness.run("lossless", "history", "--limit", "0");
    expect(badLimit.stderr).toContain('--limit must be a positive whole number, got "0"');
  });
});

describe("clew lossless prune and vacuum", () => {
  it("prunes only with --yes, only the sessions asked for, and vacuum reports the bytes freed", async () => {
    const { engine } = await seedStore();
    await engine.dispose();
    const dryRun = await harness.run("lossless", "prune", "--older-than", "90d");
    expect(dryRun.code).toBe(0);
    expect(dryRun.stdout).toContain("Would delete 1 session(s): 200 messages");
    expect(dryRun.stdout).toContain("  old: 200 messages");
    expect(dryRun.stdout).toContain("Nothing was deleted; run again with --yes");
    expect(await totals()).toEqual({ sessions: 2, messages: 240 });

    const pruned = await harness.run("lossless", "prune", "--older-than", "90d", "--yes", "--json");
    expect(pruned.code).toBe(0);
    expect(JSON.parse(pruned.stdout).deleted).toMatchObject({ sessions: 1, messages: 200 });
    expect(await totals()).toEqual({ sessions: 1, messages: 40 });

    const vacuum = await harness.run("lossless", "vacuum", "--json");
    expect(vacuum.code).toBe(0);
    const reclaimed = JSON.parse(vacuum.stdout) as {
      bytesBefore: number;
      bytesAfter: number;
      bytesFreed: number;
    };
    expect(reclaimed.bytesFreed).toBe(reclaimed.bytesBefore - reclaimed.bytesAfter);
    expect(reclaimed.bytesFreed).toBeGreaterThan(100_000);
    expect(await totals()).toEqual({ sessions: 1, messages: 40 });
  });

  it("refuses a bad duration, a missing selector and an unknown session", async () => {
    await seedStore();
    const badDuration = await harness.run("lossless", "prune", "--older-than", "90x");
    expect(badDuration.code).toBe(1);
    expect(badDuration.stderr).toContain('Invalid --older-than: "90x"');
    const none = await harness.run("lossless", "prune");
    expect(none.stderr).toContain("exactly one of --session <id> or --older-than <duration>");
    const unknown = await harness.run("lossless", "prune", "--session", "nobody", "--yes");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No session "nobody"');
    expect(await totals()).toEqual({ sessions: 2, messages: 240 });
  });
});

describe("clew doctor and status with the lossless engine", () => {
  it("doctor shows the store's path, size, messages and sessions", async () => {
    await seedStore();
    await writeFile(
      join(harness.home, "clew.json"),
      JSON.stringify({ plugins: { slots: { contextEngine: "lossless" } } }),
    );
    const doctor = await harness.run("doctor");
    expect(doctor.stdout).toMatch(
      new RegExp(
        `lossless store of agent main: ${escapeRegExp(storePath())}, [\\d.]+ [KM]B \\(\\d+ bytes\\) on disk \\(with WAL\\), 240 messages in 2 session\\(s\\)`,
      ),
    );
  });

  it("doctor resolves the installed lossless engine in a scratch folder, leaving the agent's alone", async () => {
    expect((await harness.run("plugins", "install", "--link", LOSSLESS_PACKAGE)).code).toBe(0);
    const doctor = await harness.run("doctor");
    expect(doctor.stdout).toContain('context engine "lossless"');
    expect(doctor.stdout).toContain("resolves and passes contract validation");
    expect(existsSync(storePath())).toBe(false);
  });

  it("replay through lossless reports the compaction passes the engine ran in its maintenance", async () => {
    expect((await harness.run("plugins", "install", "--link", LOSSLESS_PACKAGE)).code).toBe(0);
    const out = join(harness.home, "maps");
    const replay = await harness.run("replay", "--demo", "--engine", "lossless", "--out", out);
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain("Engine: lossless · 0 compactions by the host");
    expect(replay.stdout).toContain("🗃️ Lossless store");
    expect(replay.stdout).toMatch(/compactions: [1-9]\d*, [\d,]+ tokens removed/);
  });

  it("replay says the lossless plugin is disabled, asked for or configured, rather than replaying without it", async () => {
    expect((await harness.run("plugins", "install", "--link", LOSSLESS_PACKAGE)).code).toBe(0);
    expect((await harness.run("plugins", "disable", "lossless")).code).toBe(0);
    const asked = await harness.run("replay", "--demo", "--engine", "lossless", "--format", "svg");
    expect(asked.code).toBe(1);
    expect(asked.stderr).toContain(
      'plugin lossless is installed but disabled (enable it with "clew plugins enable lossless")',
    );
    const configured = await harness.run("replay", "--demo", "--format", "svg");
    expect(configured.code).toBe(0);
    expect(configured.stdout).toContain(
      'Engine: legacy (in place of "lossless": plugin lossless is installed but disabled',
    );
  });

  it("status and context show the lossless section of the session", async () => {
    const fake: FakeProvider = await startFakeProvider({
      protocol: "openai-completions",
      script: scriptedReplies([{ text: "ok" }, { text: "ok again" }]),
    });
    try {
      await writeFile(
        join(harness.home, "clew.json"),
        JSON.stringify({
          models: {
            providers: {
              local: { api: "openai-completions", baseUrl: fake.baseUrl, models: [{ id: "tiny" }] },
            },
          },
          agents: { defaults: { model: "local/tiny" } },
        }),
      );
      expect((await harness.run("plugins", "install", "--link", LOSSLESS_PACKAGE)).code).toBe(0);
      const chat = await runWithInput(["hello", "and again"], "chat");
      expect(chat).toContain("ok again");
      const status = await harness.run("status");
      expect(status.code).toBe(0);
      expect(status.stdout).toContain("🗃️ Lossless store");
      expect(status.stdout).toMatch(/Store: .* \(sqlite\) · [1-9]\d* messages/);
      expect(status.stdout).toContain("Last assembly:");
      const json = await harness.run("status", "--json");
      expect(JSON.parse(json.stdout).engineSection.data.store).toMatchObject({
        kind: "sqlite",
        available: true,
      });
      const context = await harness.run("context", "list");
      expect(context.stdout).toContain("🗃️ Lossless store");
    } finally {
      await fake.close();
    }
  });
});

async function totals(): Promise<{ sessions: number; messages: number }> {
  const store = openSqliteStoreReadOnly(storePath());
  try {
    const { sessions, messages } = await store.storeTotals();
    return { sessions, messages };
  } finally {
    await store.close();
  }
}

async function runWithInput(lines: string[], ...argv: string[]): Promise<string> {
  let stdout = "";
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: () => {},
    env: { CLEW_HOME: harness.home, CLEW_LOG_LEVEL: "error" },
    cwd: harness.home,
    stdin: Readable.from(lines.map((line) => `${line}\n`)),
  };
  expect(await runCli(argv, io)).toBe(0);
  return stdout;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
