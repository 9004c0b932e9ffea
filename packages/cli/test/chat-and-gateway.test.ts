import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { type FakeProvider, scriptedReplies, startFakeProvider } from "@clew/agent/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../src/io.js";
import { runCli } from "../src/main.js";

let home: string;
let fake: FakeProvider;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-chat-"));
  fake = await startFakeProvider({
    protocol: "openai-completions",
    script: scriptedReplies([
      { toolCalls: [{ name: "write", arguments: { path: "hello.txt", content: "hi" } }] },
      { text: "Saved hello.txt.", usage: { input: 1_500, output: 12 } },
      { text: "Second answer." },
    ]),
  });
  await writeFile(
    join(home, "clew.json"),
    `{
  // a local OpenAI-compatible server
  models: { providers: { local: { api: "openai-completions", baseUrl: "${fake.baseUrl}", models: [{ id: "tiny" }] } } },
  agents: { defaults: { model: "local/tiny" } },
}`,
  );
});

afterEach(async () => {
  await fake.close();
  await rm(home, { recursive: true, force: true });
});

function io(lines: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const cliIo: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { CLEW_HOME: home, CLEW_LOG_LEVEL: "error", ...env },
    cwd: home,
    stdin: Readable.from(lines.map((line) => `${line}\n`)),
  };
  return { cliIo, output: () => ({ stdout, stderr }) };
}

describe("clew chat", () => {
  it("streams replies, shows tool calls, runs commands and prints the usage footer", async () => {
    const session = io([
      "/usage tokens",
      "save a greeting",
      "/status",
      "again please",
      "/exit",
      "never sent",
    ]);
    const code = await runCli(["chat"], session.cliIo);
    const { stdout, stderr } = session.output();
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("⚙️ Usage footer: tokens.");
    expect(stdout).toContain('→ write({"path":"hello.txt","content":"hi"})');
    // The footer sums both model calls of the turn (the tool call and the answer).
    expect(stdout).toContain("Saved hello.txt.\n\nUsage: 1.5k in / 17 out");
    expect(stdout).toContain("🧠 Model: local/tiny");
    expect(stdout).toContain("Second answer.");
    expect(fake.requests).toHaveLength(3);
  });

  it("says exactly which setting to set when no model is configured", async () => {
    await writeFile(join(home, "clew.json"), "{}");
    const session = io(["hello"]);
    expect(await runCli(["chat"], session.cliIo)).toBe(0);
    expect(session.output().stdout).toContain("agents.defaults.model");
  });

  it("exits with status 2 naming the file, line and field of a bad config", async () => {
    await writeFile(join(home, "clew.json"), "{\n  agents: { defaults: { model: 42 } },\n}");
    const session = io([]);
    expect(await runCli(["chat"], session.cliIo)).toBe(2);
    expect(session.output().stderr).toContain(
      `${join(home, "clew.json")}:2: agents.defaults.model: must be string`,
    );
  });
});

describe("clew gateway and clew chat --url", () => {
  it("serves the agent and chats with it over HTTP until asked to stop", async () => {
    let stop = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    const server = io([]);
    const running = runCli(["gateway", "--port", "0"], server.cliIo, { signals: { wait: () => stopped } });
    let url = "";
    for (let attempt = 0; attempt < 100 && url === ""; attempt++) {
      url = /listening on (\S+)/.exec(server.output().stdout)?.[1] ?? "";
      if (url === "") await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const client = io(["save a greeting", "/status"]);
    expect(await runCli(["chat", "--url", url], client.cliIo)).toBe(0);
    expect(client.output().stdout).toContain("Saved hello.txt.");
    expect(client.output().stdout).toContain("🧠 Model: local/tiny");
    stop();
    expect(await running).toBe(0);
    expect(server.output().stdout).toContain("Shutting down");
  });

  it("refuses to bind beyond loopback without a token", async () => {
    const server = io([]);
    const code = await runCli(["gateway", "--host", "0.0.0.0", "--port", "0"], server.cliIo, {
      signals: { wait: () => Promise.resolve() },
    });
    expect(code).toBe(1);
    expect(server.output().stderr).toContain("token");
  });
});
