import { join } from "node:path";
import { type ClewConfig, embeddedHostDescriptor } from "@clew/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DoctorCheck, formatDoctorChecks, type RunDoctorOptions, runDoctor } from "../../src/index.js";
import { brokenFixture, CLEW_ENGINE_FIXTURE, createTempHome, writeFiles } from "../support.js";

let temp: Awaited<ReturnType<typeof createTempHome>>;
beforeEach(async () => {
  temp = await createTempHome("clew-doctor-");
});
afterEach(async () => {
  await temp.cleanup();
});

async function doctor(config: ClewConfig | undefined, options: Partial<RunDoctorOptions> = {}) {
  if (config !== undefined) await temp.writeConfig(config);
  return runDoctor({ home: temp.home, registerTimeoutMs: 200, ...options });
}

function find(checks: DoctorCheck[], id: string): DoctorCheck[] {
  return checks.filter((check) => check.id === id);
}

const BROKEN = [
  "invalid-manifest",
  "bad-config",
  "import-fails",
  "register-throws",
  "register-hangs",
  "factory-throws",
  "no-assemble",
];

describe("runDoctor", () => {
  it("passes every check with exit status 0 on a clean home", async () => {
    const report = await doctor(undefined);
    expect(report.exitCode).toBe(0);
    expect(report.status).toBe("ok");
    expect(report.checks.map((check) => check.id)).toEqual([
      "config",
      "plugins",
      "context-engine",
      "context-engine.quarantine",
      "memory-slot",
      "sessions",
    ]);
    expect(report.checks.every((check) => check.status === "ok")).toBe(true);
    expect(find(report.checks, "context-engine")[0]?.message).toBe("context engine: legacy (the default)");
    expect(find(report.checks, "memory-slot")[0]?.message).toContain("memory-core (the default), built in");
  });

  it("reports each broken plugin with its stage, and says the selected engine falls back to legacy (exit 2)", async () => {
    const report = await doctor({
      plugins: {
        load: { paths: BROKEN.map(brokenFixture) },
        slots: { contextEngine: "factory-throws" },
        entries: { "bad-config": { config: { maxItems: 0 } } },
      },
    });
    expect(report.exitCode).toBe(2);
    const lines = formatDoctorChecks(report.checks).split("\n");
    const lineOf = (text: string) => lines.find((line) => line.includes(text));
    expect(lineOf("plugin invalid-manifest: manifest failed")).toMatch(
      /^✗ .*kind.* → fix .*clew\.plugin\.json/,
    );
    expect(lineOf("plugin bad-config: config failed")).toMatch(
      /plugins\.entries\.bad-config\.config\.maxItems.* → set plugins\.entries\.bad-config\.config/,
    );
    expect(lineOf("plugin import-fails: import failed")).toContain("the module throws while it is evaluated");
    expect(lineOf("plugin register-throws: register failed")).toContain("register exploded");
    expect(lineOf("plugin register-hangs: register failed")).toContain("did not finish within 200 ms");
    expect(lineOf('plugin factory-throws: context engine "factory-throws" factory failed')).toContain(
      "factory exploded",
    );
    expect(lineOf('plugin no-assemble: context engine "no-assemble" contract-validation failed')).toContain(
      "missing assemble()",
    );
    const selected = find(report.checks, "context-engine")[0];
    expect(selected).toMatchObject({ status: "error" });
    expect(selected?.message).toContain('context engine "factory-throws" factory failed: factory exploded');
    expect(selected?.message).toContain("the agent will run on legacy");
    // One line per check, even for multi-line schema and load errors.
    expect(lines).toHaveLength(report.checks.length + 1);
  });

  it.each([
    ["no-assemble", "contract-validation failed"],
    ["register-throws", "is not registered: plugin register-throws register failed"],
    ["bad-config", "is not registered: plugin bad-config config failed"],
    ["import-fails", "is not registered: plugin import-fails import failed"],
    ["not-installed", "no installed or linked plugin registers it"],
  ])("says why the selected engine %s falls back to legacy", async (engineId, why) => {
    const paths = engineId === "not-installed" ? [] : [brokenFixture(engineId)];
    const report = await doctor({ plugins: { load: { paths }, slots: { contextEngine: engineId } } });
    const selected = find(report.checks, "context-engine")[0];
    expect(selected?.status).toBe("error");
    expect(selected?.message).toContain(why);
    expect(selected?.message).toContain("the agent will run on legacy");
    expect(selected?.fix).toContain("plugins.slots.contextEngine");
    expect(report.exitCode).toBe(2);
  });

  it("exits 1 when there are warnings only: the selected engine's plugin is disabled", async () => {
    const report = await doctor({
      plugins: {
        load: { paths: [CLEW_ENGINE_FIXTURE] },
        slots: { contextEngine: "fixture-engine" },
        entries: { "fixture-engine": { enabled: false } },
      },
    });
    expect(report.exitCode).toBe(1);
    expect(report.status).toBe("warning");
    expect(find(report.checks, "context-engine")[0]).toMatchObject({
      status: "warning",
      fix: expect.stringContaining("clew plugins enable fixture-engine"),
    });
    expect(find(report.checks, "plugin.fixture-engine")[0]?.message).toContain("disabled");
  });

  it("reports a working selected engine and its plugin as ok", async () => {
    const report = await doctor({
      plugins: { load: { paths: [CLEW_ENGINE_FIXTURE] }, slots: { contextEngine: "fixture-engine" } },
    });
    expect(report.exitCode).toBe(0);
    expect(find(report.checks, "plugin.fixture-engine")[0]?.message).toContain(
      "engines fixture-engine; tools fixture_echo; commands /fixture",
    );
    expect(find(report.checks, "context-engine")[0]?.message).toContain(
      '"fixture-engine" (Fixture engine 1.2.0) resolves and passes contract validation',
    );
    expect(find(report.checks, "context-engine.host")[0]?.status).toBe("ok");
  });

  it("refused registrations are warnings naming the plugin", async () => {
    const report = await doctor({ plugins: { load: { paths: [brokenFixture("reserved-legacy")] } } });
    expect(find(report.checks, "plugin.reserved-legacy")[0]).toMatchObject({
      status: "warning",
      message: "plugin reserved-legacy: context engine id reserved by core: legacy",
    });
    expect(report.exitCode).toBe(1);
  });

  it("checks host requirements against the host, which offers a model call only with a model", async () => {
    const dir = join(temp.home, "needs-model");
    await writeFiles(dir, {
      "clew.plugin.json": { id: "needs-model", kind: "context-engine", entry: "index.mjs" },
      "index.mjs": `export default function register(api) {
  api.registerContextEngine("needs-model", () => ({
    info: { id: "needs-model", name: "Needs a model", hostRequirements: {
      "agent-run": { requiredCapabilities: ["runtime-llm-complete"], unsupportedMessage: "Configure a model." } } },
    async ingest() { return { ingested: false }; },
    async assemble({ messages }) { return { messages, estimatedTokens: 0 }; },
    async compact() { return { ok: true, compacted: false }; },
  }));
}
`,
    });
    const config = { plugins: { load: { paths: [dir] }, slots: { contextEngine: "needs-model" } } };
    const without = await doctor(config);
    const host = find(without.checks, "context-engine.host");
    expect(host).toHaveLength(1);
    expect(host[0]?.status).toBe("error");
    expect(host[0]?.message).toContain("Missing host capabilities: runtime-llm-complete");
    expect(host[0]?.message).toContain("every run fails before it starts");
    expect(host[0]?.fix).toContain("agents.defaults.model");
    const withModel = await doctor(config, { hostFor: () => embeddedHostDescriptor({ llmComplete: true }) });
    expect(find(withModel.checks, "context-engine.host")[0]?.status).toBe("ok");
    expect(withModel.exitCode).toBe(0);
  });

  it("names the config file, line and field of an invalid config and skips the plugin checks", async () => {
    await temp.writeConfig("{\n  plugins: {\n    slots: { contextEngine: 42 },\n  },\n}\n");
    const report = await doctor(undefined);
    expect(report.exitCode).toBe(2);
    const config = find(report.checks, "config")[0];
    expect(config?.status).toBe("error");
    expect(config?.message).toContain(`${join(temp.home, "clew.json")}:3: plugins.slots.contextEngine`);
    expect(
      report.checks.some((check) => check.id.startsWith("plugin") || check.id === "context-engine"),
    ).toBe(false);
    expect(find(report.checks, "sessions")).toHaveLength(1);
  });
});

describe("memory slot", () => {
  it("is an error when it names a plugin that is not installed", async () => {
    const report = await doctor({ plugins: { slots: { memory: "memory-lancedb" } } });
    expect(find(report.checks, "memory-slot")[0]).toMatchObject({
      status: "error",
      message: 'memory slot: plugins.slots.memory names "memory-lancedb", which is not installed or linked',
    });
  });

  it("is ok for none, and warns when the default memory-core is disabled", async () => {
    const none = await doctor({ plugins: { slots: { memory: "none" } } });
    expect(find(none.checks, "memory-slot")[0]?.status).toBe("ok");
    const disabled = await doctor({ plugins: { entries: { "memory-core": { enabled: false } } } });
    expect(find(disabled.checks, "memory-slot")[0]).toMatchObject({
      status: "warning",
      fix: "clew plugins enable memory-core",
    });
  });

  it("is ok for a loaded memory plugin and warns for a plugin of another kind", async () => {
    const dir = join(temp.home, "notes");
    await writeFiles(dir, {
      "clew.plugin.json": { id: "notes", kind: "memory", version: "0.1.0", entry: "index.mjs" },
      "index.mjs": `export default function register(api) {
  api.registerTool({ name: "notes_search", label: "Notes", description: "Searches notes.", parameters: {},
    async execute() { return { content: [], details: {} }; } });
}
`,
    });
    const memory = await doctor({ plugins: { load: { paths: [dir] }, slots: { memory: "notes" } } });
    expect(find(memory.checks, "memory-slot")[0]?.message).toBe(
      "memory slot: notes 0.1.0 loaded (tools notes_search)",
    );
    const wrongKind = await doctor({
      plugins: { load: { paths: [CLEW_ENGINE_FIXTURE] }, slots: { memory: "fixture-engine" } },
    });
    expect(find(wrongKind.checks, "memory-slot")[0]).toMatchObject({
      status: "warning",
      message: "memory slot: plugin fixture-engine is not a memory plugin (kind: context-engine)",
    });
  });
});
