import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ClewConfig,
  type ContextEngine,
  createContextEngineRegistry,
  createTokenCounter,
  MemoryLogger,
} from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { LocalAgentService } from "../../src/service/local-agent-service.js";

let home: string;
let service: LocalAgentService | undefined;
afterEach(async () => {
  await service?.close();
  await rm(home, { recursive: true, force: true });
});

async function start(config: ClewConfig, engine?: ContextEngine) {
  home = await mkdtemp(join(tmpdir(), "clew-cli-backend-"));
  const registry = createContextEngineRegistry();
  if (engine !== undefined)
    registry.registerContextEngine("needs-assembly", () => engine, { owner: "test:cli" });
  service = new LocalAgentService({
    home,
    config,
    configPath: join(home, "clew.json"),
    env: {},
    logger: new MemoryLogger(),
    counter: await createTokenCounter(config),
    registry,
  });
  await service.createSession({ sessionKey: "agent:main:main" });
  return service;
}

const backendConfig: ClewConfig = {
  cliBackends: { upper: { command: "sh", args: ["-c", "tr a-z A-Z"] } },
  agents: { defaults: { model: "cli/upper" } },
};

describe("a command-line backend as the model", () => {
  it("sends the prompt on stdin and stores the command's output as the reply", async () => {
    const agent = await start(backendConfig);
    const result = await agent.sendMessage("agent:main:main", "hello there");
    expect(result).toMatchObject({ ok: true, text: "HELLO THERE" });
    const detail = await agent.getSession("agent:main:main");
    expect(detail.messages.map((message) => (message as { role: string }).role)).toEqual([
      "user",
      "assistant",
    ]);
  });

  it("refuses an engine that needs assembly before the prompt, without starting the command", async () => {
    const engine: ContextEngine = {
      info: {
        id: "needs-assembly",
        name: "Needs assembly",
        hostRequirements: {
          "agent-run": {
            requiredCapabilities: ["assemble-before-prompt"],
            unsupportedMessage: "Pick an API model for this engine.",
          },
        },
      },
      ingest: async () => ({ ingested: false }),
      assemble: async (params) => ({ messages: params.messages, estimatedTokens: 0 }),
      compact: async () => ({ ok: true, compacted: false }),
    };
    const marker = join(tmpdir(), `clew-cli-marker-${process.pid}`);
    const agent = await start(
      {
        cliBackends: { touch: { command: "sh", args: ["-c", `touch ${marker}; cat`] } },
        agents: { defaults: { model: "cli/touch" } },
        plugins: { slots: { contextEngine: "needs-assembly" } },
      },
      engine,
    );
    const result = await agent.sendMessage("agent:main:main", "hello");
    expect(result.ok).toBe(false);
    expect(result.text).toContain('cannot run operation "agent-run" on CLI backend "touch"');
    expect(result.text).toContain("Pick an API model for this engine.");
    const { existsSync } = await import("node:fs");
    expect(existsSync(marker)).toBe(false);
  });
});
