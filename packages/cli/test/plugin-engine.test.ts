import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { type FakeProvider, scriptedReplies, startFakeProvider } from "@clew/agent/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../src/io.js";
import { runCli } from "../src/main.js";

const FIXTURE = join(import.meta.dirname, "../../plugins/test/fixtures/clew-engine");

let home: string;
let fake: FakeProvider;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-plugin-engine-"));
  fake = await startFakeProvider({
    protocol: "openai-completions",
    script: scriptedReplies([{ text: "ok" }]),
  });
  await writeFile(
    join(home, "clew.json"),
    JSON.stringify({
      models: {
        providers: { local: { api: "openai-completions", baseUrl: fake.baseUrl, models: [{ id: "tiny" }] } },
      },
      agents: { defaults: { model: "local/tiny" } },
    }),
  );
});
afterEach(async () => {
  await fake.close();
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

describe("a context-engine plugin in the agent", () => {
  it("is selected on install, runs turns, shows in /status, and after uninstall the agent is back on legacy", async () => {
    const install = io();
    expect(await runCli(["plugins", "install", FIXTURE], install.cliIo)).toBe(0);

    const chat = io(["hello", "/status"]);
    expect(await runCli(["chat"], chat.cliIo)).toBe(0);
    expect(chat.output().stdout).toContain("ok");
    expect(chat.output().stdout).toContain("🧩 Engine: fixture-engine");

    const uninstall = io();
    expect(await runCli(["plugins", "uninstall", "fixture-engine"], uninstall.cliIo)).toBe(0);
    const status = io();
    expect(await runCli(["status"], status.cliIo)).toBe(0);
    expect(status.output().stdout).toContain("🧩 Engine: legacy");
    // The session's history survived the switch.
    const context = io();
    await runCli(["context", "json"], context.cliIo);
    expect(JSON.parse(context.output().stdout).report.history.messages).toBeGreaterThan(0);
  });
});
