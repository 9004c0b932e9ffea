import { mkdir, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { agentSessionsDir } from "@clew/core";
import { CommanderError } from "commander";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { doctorHost } from "../src/commands/doctor.js";
import type { CliIo } from "../src/io.js";
import { createProgram } from "../src/main.js";
import { type CliRun, createCliHarness } from "./cli-harness.js";

const BROKEN = join(import.meta.dirname, "../../plugins/test/fixtures/broken");

let harness: Awaited<ReturnType<typeof createCliHarness>>;
beforeEach(async () => {
  harness = await createCliHarness();
});
afterEach(async () => {
  await harness.cleanup();
});

/** `clew doctor ...` in-process, with the exit status `runCli` would return. */
async function doctor(...args: string[]): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { CLEW_HOME: harness.home },
    cwd: harness.home,
  };
  const program = await createProgram(io);
  let code = 0;
  try {
    await program.parseAsync(["doctor", ...args], { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    code = error.exitCode;
  }
  return { code, stdout, stderr };
}

const writeConfig = (config: unknown) => writeFile(join(harness.home, "clew.json"), JSON.stringify(config));

describe("clew doctor", () => {
  it("prints one ✓ line per check and exits 0 on a clean home", async () => {
    const run = await doctor();
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines.slice(0, -1).every((line) => line.startsWith("✓ "))).toBe(true);
    expect(lines.at(-1)).toMatch(/^All \d+ checks passed\.$/);
    expect(run.stdout).toContain("✓ context engine: legacy (the default)");
  });

  it("prints ✗ lines with the fix and exits 2 for broken plugins", async () => {
    await writeConfig({
      plugins: {
        load: { paths: [join(BROKEN, "register-throws"), join(BROKEN, "factory-throws")] },
        slots: { contextEngine: "factory-throws" },
      },
    });
    const run = await doctor();
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(
      /^✗ plugin register-throws: register failed: register\(api\) threw: register exploded → fix the plugin at .*register-throws/m,
    );
    expect(run.stdout).toMatch(
      /^✗ context engine "factory-throws" factory failed: factory exploded; the agent will run on legacy → /m,
    );
    expect(run.stdout).toMatch(/^\d+ error\(s\), 0 warning\(s\), \d+ ok\.$/m);
  });

  it("exits 1 with ! lines when there are only warnings (a stale lock)", async () => {
    const dir = agentSessionsDir(harness.home, "main");
    await mkdir(dir, { recursive: true });
    const lock = join(dir, "s.jsonl.lock");
    // pid 2^22 + 1 is above Linux's pid_max, so no process has it.
    await writeFile(
      lock,
      JSON.stringify({ pid: 4_194_305, hostname: hostname(), createdAt: "x", token: "t" }),
    );
    const run = await doctor();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`! lock ${lock}: stale, its holder pid 4194305`);
    expect(run.stdout).toContain(` → remove ${lock}`);
  });

  it("prints --json as { home, status, exitCode, checks } and keeps the exit status", async () => {
    await writeFile(join(harness.home, "clew.json"), "{ plugins: { slots: { contextEngine: 1 } } }");
    const run = await doctor("--json");
    expect(run.code).toBe(2);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(Object.keys(report)).toEqual(["home", "status", "exitCode", "checks"]);
    expect(report).toMatchObject({ home: harness.home, status: "error", exitCode: 2 });
    const checks = report.checks as Array<Record<string, unknown>>;
    for (const check of checks) {
      expect(Object.keys(check).filter((key) => key !== "fix")).toEqual(["id", "status", "message"]);
    }
    expect(checks[0]).toMatchObject({
      id: "config",
      status: "error",
      message: expect.stringContaining("plugins.slots.contextEngine"),
      fix: expect.stringContaining(join(harness.home, "clew.json")),
    });
  });
});

describe("doctorHost", () => {
  it("offers runtime-llm-complete only when a chat model resolves", () => {
    expect(doctorHost({}, {}).capabilities).not.toContain("runtime-llm-complete");
    const config = {
      models: {
        providers: {
          local: { api: "openai-completions", baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "m" }] },
        },
      },
      agents: { defaults: { model: "local/m" } },
    };
    expect(doctorHost(config, {}).capabilities).toContain("runtime-llm-complete");
  });

  it("offers it when only a summary model resolves, as the agent runtime does", () => {
    const config = {
      models: {
        providers: {
          local: { api: "openai-completions", baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "m" }] },
        },
      },
      agents: { defaults: { compaction: { model: "local/m" } } },
    };
    expect(doctorHost(config, {}).capabilities).toContain("runtime-llm-complete");
  });
});
