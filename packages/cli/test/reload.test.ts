import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeProvider, scriptedReplies, startFakeProvider } from "@clew/agent/testing";
import { MemoryLogger } from "@clew/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openReloadableAgentService } from "../src/agent-service.js";
import type { CliIo } from "../src/io.js";
import { runCli } from "../src/main.js";

const FIXTURE = join(import.meta.dirname, "../../plugins/test/fixtures/clew-engine");

let home: string;
let fake: FakeProvider;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-reload-"));
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

const io: () => CliIo = () => ({ stdout: () => {}, stderr: () => {}, env: { CLEW_HOME: home }, cwd: home });

describe("reloading a running agent", () => {
  it("picks up a plugin installed while it runs, and goes back to legacy after uninstall", async () => {
    const agent = await openReloadableAgentService(io(), { logger: new MemoryLogger() });
    try {
      await agent.service.createSession({ sessionKey: "agent:main:main" });
      expect((await agent.service.sendMessage("agent:main:main", "before")).ok).toBe(true);
      expect((await agent.service.status("agent:main:main")).text).toContain("Engine: legacy");

      expect(await runCli(["plugins", "install", FIXTURE], io())).toBe(0);
      expect(await agent.reload()).toMatchObject({ added: ["fixture-engine"] });
      expect((await agent.service.sendMessage("agent:main:main", "after install")).ok).toBe(true);
      expect((await agent.service.status("agent:main:main")).text).toContain("Engine: fixture-engine");

      expect(await runCli(["plugins", "uninstall", "fixture-engine"], io())).toBe(0);
      expect(await agent.reload()).toMatchObject({ removed: ["fixture-engine"] });
      expect((await agent.service.status("agent:main:main")).text).toContain("Engine: legacy");
      const detail = await agent.service.getSession("agent:main:main");
      expect(detail.messages.filter((message) => (message as { role: string }).role === "user")).toHaveLength(
        2,
      );
    } finally {
      await agent.service.close();
    }
  });
});
