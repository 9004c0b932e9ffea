import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
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

describe("a plugin's chat command", () => {
  it("runs from the chat when the message is only that command, and not for other text", async () => {
    const plugin = join(home, "ping-plugin");
    await mkdir(plugin);
    await writeFile(
      join(plugin, "package.json"),
      JSON.stringify({ name: "ping-plugin", version: "0.1.0", type: "module", main: "index.mjs" }),
    );
    await writeFile(
      join(plugin, "clew.plugin.json"),
      JSON.stringify({ id: "ping", kind: "tools", configSchema: {} }),
    );
    await writeFile(
      join(plugin, "index.mjs"),
      `export default function register(api) {
  api.registerCommand({ name: "ping", description: "answers pong", handler: ({ args }) => "pong " + args });
}
`,
    );
    expect(await runCli(["plugins", "install", "--link", plugin], io().cliIo)).toBe(0);
    const chat = io(["/ping hello", "say /ping later"]);
    expect(await runCli(["chat"], chat.cliIo)).toBe(0);
    expect(chat.output().stdout).toContain("pong hello");
    expect(fake.requests).toHaveLength(1);
  });
});

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
