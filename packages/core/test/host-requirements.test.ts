import { describe, expect, it, vi } from "vitest";
import {
  ALL_HOST_CAPABILITIES,
  assertContextEngineHostSupport,
  type ContextEngine,
  type ContextEngineHostCapability,
  type ContextEngineHostDescriptor,
  ContextEngineHostUnsupportedError,
  type ContextEngineInfo,
  type ContextEngineOperation,
  embeddedHostDescriptor,
  evaluateContextEngineHostSupport,
} from "../src/index.js";
import { defineEngine, registerEngine, slotConfig } from "./fixtures.js";
import { conversation, createTestHost, EchoModel, testModel } from "./support.js";

/** A generic CLI backend: no prompt assembly, no compaction, no model call for engines. */
const claudeCli: ContextEngineHostDescriptor = {
  id: "cli:claude-cli",
  label: 'CLI backend "claude-cli"',
  capabilities: ["bootstrap", "after-turn", "maintain"],
};

const bareHost: ContextEngineHostDescriptor = {
  id: "cli:bare",
  label: 'CLI backend "bare"',
  capabilities: [],
};

const codexLike: ContextEngineHostDescriptor = {
  id: "codex-app-server",
  label: "Codex app-server harness",
  capabilities: [
    "bootstrap",
    "assemble-before-prompt",
    "after-turn",
    "maintain",
    "compact",
    "runtime-llm-complete",
    "thread-bootstrap-projection",
  ],
};

const OPERATIONS: ContextEngineOperation[] = ["agent-run", "manual-compact", "subagent-spawn"];

function losslessInfo(
  operation: ContextEngineOperation,
  requiredCapabilities: ContextEngineHostCapability[],
  unsupportedMessage?: string,
): ContextEngineInfo {
  return {
    id: "lossless-claw",
    name: "Lossless Claw",
    hostRequirements: {
      [operation]: {
        requiredCapabilities,
        ...(unsupportedMessage === undefined ? {} : { unsupportedMessage }),
      },
    },
  };
}

describe("engines without requirements (checklist 53)", () => {
  it.each(OPERATIONS)("an engine without requirements can run %s on any host", (operation) => {
    const info: ContextEngineInfo = { id: "plain", name: "Plain" };
    for (const host of [bareHost, claudeCli, codexLike, embeddedHostDescriptor({ llmComplete: false })]) {
      expect(evaluateContextEngineHostSupport(info, operation, host)).toEqual({ ok: true });
      expect(() => assertContextEngineHostSupport(info, operation, host)).not.toThrow();
    }
  });

  it("an empty requirement list is satisfied by a host with no capabilities", () => {
    expect(evaluateContextEngineHostSupport(losslessInfo("agent-run", []), "agent-run", bareHost)).toEqual({
      ok: true,
    });
  });

  it("an engine without requirements runs a turn on a host with no capabilities", async () => {
    const { host, registry, sessions } = createTestHost({
      config: slotConfig("plain"),
      hostDescriptor: bareHost,
    });
    registerEngine(registry, "plain", defineEngine("plain"));

    const result = await host.runTurn({
      session: sessions.open({ sessionId: "s1" }),
      prompt: "hello",
      systemPrompt: "sys",
      model: testModel,
      callModel: new EchoModel().step,
    });

    expect(result.engineId).toBe("plain");
    expect(result.steps).toBe(1);
  });
});

describe("failing closed on a missing capability (checklist 54)", () => {
  it('a CLI host missing runtime-llm-complete throws Context engine "lossless-claw" cannot run operation "agent-run" on CLI backend "claude-cli".', () => {
    const info = losslessInfo("agent-run", ["runtime-llm-complete"]);

    let thrown: unknown;
    try {
      assertContextEngineHostSupport(info, "agent-run", claudeCli);
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(ContextEngineHostUnsupportedError);
    const error = thrown as ContextEngineHostUnsupportedError;
    expect(error.message).toBe(
      'Context engine "lossless-claw" cannot run operation "agent-run" on CLI backend "claude-cli". ' +
        "Missing host capabilities: runtime-llm-complete. Required capabilities: runtime-llm-complete. " +
        "Host capabilities: bootstrap, after-turn, maintain.",
    );
    expect(error.engineId).toBe("lossless-claw");
    expect(error.operation).toBe("agent-run");
    expect(error.missingCapabilities).toEqual(["runtime-llm-complete"]);
    expect(error.code).toBe("context_engine_host_unsupported");
  });

  it("the engine's unsupportedMessage is appended and a host without capabilities says (none)", () => {
    const info = losslessInfo(
      "agent-run",
      ["assemble-before-prompt", "compact"],
      "Switch this agent to the embedded runner.",
    );

    expect(() => assertContextEngineHostSupport(info, "agent-run", bareHost)).toThrow(
      'Context engine "lossless-claw" cannot run operation "agent-run" on CLI backend "bare". ' +
        "Missing host capabilities: assemble-before-prompt, compact. " +
        "Required capabilities: assemble-before-prompt, compact. Host capabilities: (none). " +
        "Switch this agent to the embedded runner.",
    );
  });

  it("a turn on an incompatible host fails before the engine or the model is called, without quarantine", async () => {
    const { host, registry, sessions } = createTestHost({
      config: slotConfig("lossless-claw"),
      hostDescriptor: claudeCli,
    });
    const assemble = vi.fn<ContextEngine["assemble"]>(async (params) => ({
      messages: params.messages,
      estimatedTokens: 0,
    }));
    const bootstrap = vi.fn(async () => ({ bootstrapped: true }));
    registerEngine(
      registry,
      "lossless-claw",
      defineEngine("lossless-claw", {
        info: losslessInfo("agent-run", ["assemble-before-prompt", "runtime-llm-complete"]),
        assemble,
        bootstrap,
      }),
    );
    const session = sessions.open({ sessionId: "s1", messages: conversation(1) });
    const model = new EchoModel();

    const run = host.runTurn({
      session,
      prompt: "hello",
      systemPrompt: "sys",
      model: testModel,
      callModel: model.step,
    });

    await expect(run).rejects.toBeInstanceOf(ContextEngineHostUnsupportedError);
    await expect(run).rejects.toThrow(
      'Context engine "lossless-claw" cannot run operation "agent-run" on CLI backend "claude-cli".',
    );
    expect(assemble).not.toHaveBeenCalled();
    expect(bootstrap).not.toHaveBeenCalled();
    expect(model.requests).toHaveLength(0);
    expect(registry.quarantine.list()).toEqual([]);
    expect(await session.messages()).toHaveLength(2);
  });
});

describe("evaluating support without throwing (checklist 55)", () => {
  it("evaluateContextEngineHostSupport reports ok:false with the missing capabilities", () => {
    const info = losslessInfo("agent-run", ["assemble-before-prompt", "bootstrap", "runtime-llm-complete"]);

    const support = evaluateContextEngineHostSupport(info, "agent-run", claudeCli);

    expect(support).toEqual({
      ok: false,
      missingCapabilities: ["assemble-before-prompt", "runtime-llm-complete"],
      requiredCapabilities: ["assemble-before-prompt", "bootstrap", "runtime-llm-complete"],
      message:
        'Context engine "lossless-claw" cannot run operation "agent-run" on CLI backend "claude-cli". ' +
        "Missing host capabilities: assemble-before-prompt, runtime-llm-complete. " +
        "Required capabilities: assemble-before-prompt, bootstrap, runtime-llm-complete. " +
        "Host capabilities: bootstrap, after-turn, maintain.",
    });
  });

  it("requirements are per operation", () => {
    const info = losslessInfo("subagent-spawn", ["runtime-llm-complete"]);
    expect(evaluateContextEngineHostSupport(info, "agent-run", claudeCli)).toEqual({ ok: true });
    expect(evaluateContextEngineHostSupport(info, "subagent-spawn", claudeCli).ok).toBe(false);
  });

  it("host status reports support for every operation", async () => {
    const { host, registry } = createTestHost({
      config: slotConfig("lossless-claw"),
      hostDescriptor: claudeCli,
    });
    registerEngine(
      registry,
      "lossless-claw",
      defineEngine("x", { info: losslessInfo("manual-compact", ["compact"]) }),
    );

    const status = await host.status();

    expect(status.host).toEqual({
      id: "cli:claude-cli",
      label: 'CLI backend "claude-cli"',
      capabilities: [...claudeCli.capabilities],
    });
    expect(status.hostSupport["agent-run"]).toEqual({ ok: true });
    expect(status.hostSupport["subagent-spawn"]).toEqual({ ok: true });
    expect(status.hostSupport["manual-compact"]).toMatchObject({
      ok: false,
      missingCapabilities: ["compact"],
    });
  });
});

describe("host descriptors (checklist 56)", () => {
  it('the Clew embedded host is "clew-embedded" and satisfies assemble-before-prompt', () => {
    const embedded = embeddedHostDescriptor({ llmComplete: false });
    expect(embedded).toEqual({
      id: "clew-embedded",
      label: "Clew embedded runner",
      capabilities: ["bootstrap", "assemble-before-prompt", "after-turn", "maintain", "compact"],
    });
    expect(
      evaluateContextEngineHostSupport(
        losslessInfo("agent-run", ["assemble-before-prompt"]),
        "agent-run",
        embedded,
      ),
    ).toEqual({ ok: true });
  });

  it("the embedded host offers runtime-llm-complete only when a model call is configured", async () => {
    expect(embeddedHostDescriptor({ llmComplete: true }).capabilities).toContain("runtime-llm-complete");
    expect(embeddedHostDescriptor({ llmComplete: false }).capabilities).not.toContain("runtime-llm-complete");

    const without = createTestHost();
    const withLlm = createTestHost({ llm: { complete: async () => ({ text: "ok" }) } });
    expect(without.host.hostDescriptor.id).toBe("clew-embedded");
    expect(without.host.hostDescriptor.capabilities).not.toContain("runtime-llm-complete");
    expect(withLlm.host.hostDescriptor.capabilities).toContain("runtime-llm-complete");
  });

  it("thread-bootstrap-projection is satisfied by a Codex-like host but not by the Clew embedded host", () => {
    const info = losslessInfo("agent-run", ["assemble-before-prompt", "thread-bootstrap-projection"]);
    expect(evaluateContextEngineHostSupport(info, "agent-run", codexLike)).toEqual({ ok: true });
    expect(
      evaluateContextEngineHostSupport(info, "agent-run", embeddedHostDescriptor({ llmComplete: true })),
    ).toMatchObject({
      ok: false,
      missingCapabilities: ["thread-bootstrap-projection"],
    });
    expect(ALL_HOST_CAPABILITIES).toEqual(codexLike.capabilities);
  });
});

describe("requirements of the other operations", () => {
  it("manual compaction fails closed when the host lacks a manual-compact capability", async () => {
    const { host, registry, sessions } = createTestHost({
      config: slotConfig("lossless-claw"),
      hostDescriptor: claudeCli,
    });
    const compact = vi.fn<ContextEngine["compact"]>(async () => ({ ok: true, compacted: true }));
    registerEngine(
      registry,
      "lossless-claw",
      defineEngine("lossless-claw", { info: losslessInfo("manual-compact", ["compact"]), compact }),
    );

    await expect(host.compactManually(sessions.open({ sessionId: "s1" }))).rejects.toThrow(
      'Context engine "lossless-claw" cannot run operation "manual-compact" on CLI backend "claude-cli".',
    );
    expect(compact).not.toHaveBeenCalled();
  });

  it("a subagent spawn fails closed when the host lacks a subagent-spawn capability", async () => {
    const { host, registry } = createTestHost({
      config: slotConfig("lossless-claw"),
      hostDescriptor: claudeCli,
    });
    const prepareSubagentSpawn = vi.fn(async () => undefined);
    registerEngine(
      registry,
      "lossless-claw",
      defineEngine("lossless-claw", {
        info: losslessInfo("subagent-spawn", ["runtime-llm-complete"]),
        prepareSubagentSpawn,
      }),
    );
    const child = vi.fn(async () => "child result");

    await expect(
      host.spawnSubagent({ parentSessionKey: "agent:main:p", childSessionKey: "agent:main:c" }, child),
    ).rejects.toBeInstanceOf(ContextEngineHostUnsupportedError);
    expect(prepareSubagentSpawn).not.toHaveBeenCalled();
    expect(child).not.toHaveBeenCalled();
  });
});
