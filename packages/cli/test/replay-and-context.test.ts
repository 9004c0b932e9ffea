import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { scriptedReplies, startFakeProvider } from "@clew/agent/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../src/io.js";
import { runCli } from "../src/main.js";
import { PI_SESSIONS_DIR } from "./cli-harness.js";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-replay-cli-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

function io(lines: string[] = []) {
  let stdout = "";
  let stderr = "";
  const cliIo: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { CLEW_HOME: home, CLEW_LOG_LEVEL: "error" },
    cwd: home,
    stdin: Readable.from(lines.map((line) => `${line}\n`)),
  };
  return { cliIo, output: () => ({ stdout, stderr }) };
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

async function mapFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name.startsWith("clew-context-map-"));
}

describe("clew replay", () => {
  it("replays the demo session with compactions, prints the report and writes a PNG map", async () => {
    const run = io();
    expect(await runCli(["replay", "--demo", "--out", "maps"], run.cliIo)).toBe(0);
    const { stdout } = run.output();
    expect(stdout).toMatch(/🧹 turn \d+: compacted/);
    expect(stdout).toMatch(/Engine: legacy · [1-9]\d* compactions/);
    expect(stdout).toContain("Window fill per turn");
    expect(stdout).toContain("🧠 Context breakdown");
    expect(stdout).toContain("- AGENTS.md: OK");
    const [map] = await mapFiles(join(home, "maps"));
    expect(map).toBeDefined();
    const bytes = await readFile(join(home, "maps", map as string));
    expect(bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
  });

  for (const [file, window] of [
    ["before-compaction.jsonl", "200000"],
    ["large-session.jsonl", "64000"],
  ] as const) {
    it(`replays ${file} with at least one compaction and a valid map`, async () => {
      const run = io();
      const code = await runCli(
        ["replay", join(PI_SESSIONS_DIR, file), "--window", window, "--format", "svg"],
        run.cliIo,
      );
      expect(run.output().stderr).toBe("");
      expect(code).toBe(0);
      expect(run.output().stdout).toMatch(/Engine: legacy · [1-9]\d* compactions/);
      const [map] = await mapFiles(home);
      const svg = await readFile(join(home, map as string), "utf8");
      expect(svg.startsWith("<svg")).toBe(true);
      expect(svg).toContain("Tool results");
    });
  }

  it("refuses an --engine nothing registers, and says when the configured engine did not run", async () => {
    const asked = io();
    expect(await runCli(["replay", "--demo", "--engine", "lossless"], asked.cliIo)).toBe(1);
    expect(asked.output().stderr).toContain("--engine lossless: no installed or linked plugin registers it");
    expect(asked.output().stderr).toContain("clew plugins install");
    expect(asked.output().stdout).not.toContain("Replaying");
    await writeFile(join(home, "clew.json"), '{ plugins: { slots: { contextEngine: "lossless" } } }');
    const configured = io();
    expect(await runCli(["replay", "--demo", "--format", "svg"], configured.cliIo)).toBe(0);
    expect(configured.output().stdout).toContain(
      'Engine: legacy (in place of "lossless": no installed or linked plugin registers it',
    );
    // "none" selects legacy, as in the slot.
    const none = io();
    expect(await runCli(["replay", "--demo", "--engine", " none ", "--format", "svg"], none.cliIo)).toBe(0);
    expect(none.output().stdout).toMatch(/Engine: legacy · \d+ compactions/);
  });

  it("says why an engine that failed to start did not run, and replays on legacy", async () => {
    const plugin = join(home, "failing-engine");
    await mkdir(plugin, { recursive: true });
    await writeFile(
      join(plugin, "clew.plugin.json"),
      JSON.stringify({ id: "failing", kind: "context-engine", configSchema: { type: "object" } }),
    );
    await writeFile(
      join(plugin, "package.json"),
      JSON.stringify({ name: "failing", version: "1.0.0", type: "module", main: "index.mjs" }),
    );
    await writeFile(
      join(plugin, "index.mjs"),
      'export default (api) => api.registerContextEngine("failing", () => { throw new Error("no database here"); });\n',
    );
    const install = io();
    expect(await runCli(["plugins", "install", "--link", plugin], install.cliIo)).toBe(0);
    const run = io();
    expect(await runCli(["replay", "--demo", "--engine", "failing", "--format", "svg"], run.cliIo)).toBe(0);
    expect(run.output().stdout).toContain(
      'Engine: legacy (in place of "failing": it failed (factory: no database here)',
    );
  });

  it("asks for a file or --demo, and names a file it cannot read", async () => {
    const none = io();
    expect(await runCli(["replay"], none.cliIo)).toBe(1);
    expect(none.output().stderr).toContain("give a session file or --demo");
    const missing = io();
    expect(await runCli(["replay", "nope.jsonl"], missing.cliIo)).toBe(1);
    expect(missing.output().stderr).toContain("no such file");
  });
});

describe("clew context and clew status", () => {
  it("report on a chatted session: list, json, map; an estimate before any run", async () => {
    const fake = await startFakeProvider({
      protocol: "openai-completions",
      script: scriptedReplies([{ text: "hello!" }]),
    });
    try {
      await writeFile(
        join(home, "clew.json"),
        `{ models: { providers: { local: { api: "openai-completions", baseUrl: "${fake.baseUrl}", models: [{ id: "tiny" }] } } }, agents: { defaults: { model: "local/tiny" } } }`,
      );
      // Before any run: an estimate for list, and no map.
      expect(await runCli(["chat"], io(["/help"]).cliIo)).toBe(0);
      const estimate = io();
      await runCli(["context", "list"], estimate.cliIo);
      expect(estimate.output().stdout).toContain("System prompt (estimate):");
      const noMap = io();
      await runCli(["context", "map"], noMap.cliIo);
      expect(noMap.output().stdout).toContain("Context map unavailable");

      expect(await runCli(["chat"], io(["hi there"]).cliIo)).toBe(0);
      const list = io();
      expect(await runCli(["context", "list", "--session", "agent:main:main"], list.cliIo)).toBe(0);
      expect(list.output().stdout).toContain("System prompt (run):");
      const json = io();
      await runCli(["context", "json"], json.cliIo);
      expect(JSON.parse(json.output().stdout).report.source).toBe("run");
      const map = io();
      await runCli(["context", "map", "--out", "out"], map.cliIo);
      expect(map.output().stdout).toContain("Map: ");
      expect(await mapFiles(join(home, "out"))).toHaveLength(1);
      const status = io();
      expect(await runCli(["status"], status.cliIo)).toBe(0);
      expect(status.output().stdout).toContain("🧠 Model: local/tiny");
    } finally {
      await fake.close();
    }
  });

  it("names an unknown session", async () => {
    const run = io();
    expect(await runCli(["context", "list", "--session", "agent:main:nope"], run.cliIo)).toBe(1);
    expect(run.output().stderr).toContain('Unknown session "agent:main:nope"');
  });
});
