import { describe, expect, it, vi } from "vitest";
import {
  type ContextEngine,
  SubagentPreparationError,
  type SubagentSpawnParams,
  type SubagentSpawnRequest,
} from "../src/index.js";
import { defineEngine, type EngineParts, paramsOf, registerEngine, slotConfig } from "./fixtures.js";
import { createTestHost } from "./support.js";

function setup(parts: EngineParts) {
  const context = createTestHost({ config: slotConfig("acme") });
  registerEngine(context.registry, "acme", defineEngine("acme", parts));
  return context;
}

function preparing(rollback = vi.fn(async () => {})) {
  const prepareSubagentSpawn = vi.fn<NonNullable<ContextEngine["prepareSubagentSpawn"]>>(async () => ({
    rollback,
  }));
  return { prepareSubagentSpawn, rollback };
}

const spawn: SubagentSpawnParams = {
  parentSessionKey: "agent:main:parent",
  childSessionKey: "agent:main:subagent:child",
  contextMode: "fork",
  parentSessionId: "parent",
  parentSessionFile: "memory:parent",
  childSessionId: "child",
  childSessionFile: "memory:child",
  ttlMs: 120_000,
};

describe("preparing a subagent spawn", () => {
  it("prepareSubagentSpawn params pass through unchanged", async () => {
    const { prepareSubagentSpawn, rollback } = preparing();
    const { host } = setup({ prepareSubagentSpawn });
    const child = vi.fn(async () => "child answer");

    const result = await host.spawnSubagent(spawn, child);

    expect(result).toBe("child answer");
    expect(prepareSubagentSpawn).toHaveBeenCalledTimes(1);
    expect(paramsOf(prepareSubagentSpawn)).toEqual(spawn);
    expect(child).toHaveBeenCalledTimes(1);
    expect(rollback).not.toHaveBeenCalled();
  });

  it("preparation runs before the child starts", async () => {
    const events: string[] = [];
    const { host } = setup({
      prepareSubagentSpawn: async () => {
        events.push("prepare");
        return undefined;
      },
    });

    await host.spawnSubagent(spawn, async () => {
      events.push("child");
    });

    expect(events).toEqual(["prepare", "child"]);
  });

  it("the host-only lightContext flag is not passed to the engine", async () => {
    const { prepareSubagentSpawn } = preparing();
    const { host } = setup({ prepareSubagentSpawn });

    await host.spawnSubagent({ ...spawn, contextMode: "fork", lightContext: true }, async () => undefined);

    expect(Object.hasOwn(paramsOf(prepareSubagentSpawn), "lightContext")).toBe(false);
  });
});

describe("rollback", () => {
  it("rollback is called when the child fails after preparation, and the child's error is rethrown", async () => {
    const { prepareSubagentSpawn, rollback } = preparing();
    const { host } = setup({ prepareSubagentSpawn });
    const failure = new Error("child crashed");

    await expect(
      host.spawnSubagent(spawn, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);

    expect(rollback).toHaveBeenCalledTimes(1);
  });

  it("a failing rollback is logged and the child's error still wins", async () => {
    const { prepareSubagentSpawn } = preparing(
      vi.fn(async () => {
        throw new Error("rollback failed");
      }),
    );
    const { host, logger } = setup({ prepareSubagentSpawn });
    const failure = new Error("child crashed");

    await expect(
      host.spawnSubagent(spawn, async () => {
        throw failure;
      }),
    ).rejects.toBe(failure);

    expect(logger.messages("warn")).toContain("context engine subagent rollback failed: rollback failed");
  });
});

describe("light-context spawns", () => {
  it.each<[string, SubagentSpawnRequest]>([
    ["an explicit isolated mode", { ...spawn, contextMode: "isolated", lightContext: true }],
    [
      "the default (isolated) mode",
      { parentSessionKey: "agent:main:p", childSessionKey: "agent:main:c", lightContext: true },
    ],
  ])("lightContext with %s skips preparation", async (_label, request) => {
    const { prepareSubagentSpawn } = preparing();
    const { host } = setup({ prepareSubagentSpawn });
    const child = vi.fn(async () => "ran");

    expect(await host.spawnSubagent(request, child)).toBe("ran");

    expect(prepareSubagentSpawn).not.toHaveBeenCalled();
    expect(child).toHaveBeenCalledTimes(1);
  });

  it("a fork with lightContext is still prepared", async () => {
    const { prepareSubagentSpawn } = preparing();
    const { host } = setup({ prepareSubagentSpawn });

    await host.spawnSubagent({ ...spawn, contextMode: "fork", lightContext: true }, async () => undefined);

    expect(prepareSubagentSpawn).toHaveBeenCalledTimes(1);
    expect(paramsOf(prepareSubagentSpawn).contextMode).toBe("fork");
  });

  it("an isolated spawn without lightContext is prepared", async () => {
    const { prepareSubagentSpawn } = preparing();
    const { host } = setup({ prepareSubagentSpawn });

    await host.spawnSubagent({ ...spawn, contextMode: "isolated" }, async () => undefined);

    expect(prepareSubagentSpawn).toHaveBeenCalledTimes(1);
  });
});

describe("preparation failures", () => {
  it('a preparation failure rejects with SubagentPreparationError "Context engine subagent preparation failed: ..." and quarantines', async () => {
    const cause = new Error("shared store unavailable");
    const { host, registry } = setup({
      prepareSubagentSpawn: async () => {
        throw cause;
      },
    });
    const child = vi.fn(async () => "never");

    let thrown: unknown;
    try {
      await host.spawnSubagent(spawn, child);
    } catch (error) {
      thrown = error;
    }

    expect(thrown).toBeInstanceOf(SubagentPreparationError);
    const error = thrown as SubagentPreparationError;
    expect(error.message).toBe("Context engine subagent preparation failed: shared store unavailable");
    expect(error.cause).toBe(cause);
    expect(error.code).toBe("subagent_preparation_failed");
    expect(child).not.toHaveBeenCalled();
    expect(registry.quarantine.get("acme")).toMatchObject({
      operation: "prepareSubagentSpawn",
      reason: "shared store unavailable",
    });
  });

  it("the preparation error names the engine that failed, not its fallback", async () => {
    const { host } = setup({
      prepareSubagentSpawn: async () => {
        throw new Error("shared store unavailable");
      },
    });

    const attempt = host.spawnSubagent(spawn, async () => "never");

    await expect(attempt).rejects.toBeInstanceOf(SubagentPreparationError);
    await expect(attempt).rejects.toHaveProperty("engineId", "acme");
  });

  it("after a preparation failure later spawns run on the legacy fallback without preparation", async () => {
    const prepareSubagentSpawn = vi.fn<NonNullable<ContextEngine["prepareSubagentSpawn"]>>(async () => {
      throw new Error("broken");
    });
    const { host } = setup({ prepareSubagentSpawn });
    await expect(host.spawnSubagent(spawn, async () => "x")).rejects.toBeInstanceOf(SubagentPreparationError);

    expect(await host.spawnSubagent(spawn, async () => "second")).toBe("second");
    expect(prepareSubagentSpawn).toHaveBeenCalledTimes(1);
  });
});

describe("subagent end notifications", () => {
  it("onSubagentEnded receives the child key and the reason", async () => {
    const onSubagentEnded = vi.fn<NonNullable<ContextEngine["onSubagentEnded"]>>(async () => {});
    const { host } = setup({ onSubagentEnded });

    await host.endSubagent({ childSessionKey: "agent:main:subagent:child", reason: "swept" });

    expect(onSubagentEnded).toHaveBeenCalledWith({
      childSessionKey: "agent:main:subagent:child",
      reason: "swept",
    });
  });

  it("onSubagentEnded errors are only logged: endSubagent resolves and the failure is recorded", async () => {
    const { host, registry, logger } = setup({
      onSubagentEnded: async () => {
        throw new Error("notify failed");
      },
    });

    await expect(host.endSubagent({ childSessionKey: "c", reason: "completed" })).resolves.toBeUndefined();

    expect(logger.messages("error")).toEqual([
      '[context-engine] Context engine "acme" owner=plugin:acme failed during onSubagentEnded: notify failed; quarantining it for this process and falling back to default engine "legacy".',
    ]);
    expect(registry.quarantine.get("acme")?.operation).toBe("onSubagentEnded");
  });

  it("endSubagent never throws, even when the host cannot resolve an engine", async () => {
    const { host, logger } = setup({});
    await host.dispose();

    await expect(host.endSubagent({ childSessionKey: "c", reason: "deleted" })).resolves.toBeUndefined();

    expect(logger.messages("warn")).toEqual([
      "context-engine onSubagentEnded failed (best-effort): context engine host is disposed",
    ]);
  });

  it("an engine without onSubagentEnded is not an error", async () => {
    const { host, logger } = setup({});
    await host.endSubagent({ childSessionKey: "c", reason: "released" });
    expect(logger.records).toEqual([]);
  });
});
