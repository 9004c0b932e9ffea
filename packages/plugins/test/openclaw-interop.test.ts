import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { editClewConfig, OPENCLAW_SDK_SPECIFIERS, PluginStore } from "../src/index.js";
import { createTempHome, FIXTURES, OPENCLAW_ENGINE_FIXTURE } from "./support.js";

const run = promisify(execFile);

interface TurnRun {
  plugins: Array<{
    id: string;
    source: string;
    loaded: boolean;
    error?: unknown;
    contextEngineIds: string[];
  }>;
  engineIds: string[];
  systemPrompts: string[];
  compaction: { ok: boolean; compacted: boolean };
  firstMessageRole: string;
  messageCount: number;
  logs: string[];
}

let installed: Awaited<ReturnType<typeof createTempHome>>;
let linked: Awaited<ReturnType<typeof createTempHome>>;
beforeEach(async () => {
  installed = await createTempHome();
  linked = await createTempHome();
});
afterEach(async () => {
  await installed.cleanup();
  await linked.cleanup();
});

describe("an OpenClaw context-engine plugin in Clew", () => {
  it("installs and links unchanged, resolves its openclaw/plugin-sdk imports to Clew's SDK under tsx, and runs turns with compaction delegated to the runtime", async () => {
    const installResult = await new PluginStore({ home: installed.home }).install(OPENCLAW_ENGINE_FIXTURE);
    expect(installResult.selection.selectedContextEngine).toBe(true);
    await new PluginStore({ home: linked.home }).link(OPENCLAW_ENGINE_FIXTURE);
    await editClewConfig(linked.home, (config) => {
      config.plugins ??= {};
      config.plugins.entries = {
        "openclaw-fixture": { enabled: true, config: { greeting: "linked hello" } },
      };
    });

    const { stdout } = await run(
      process.execPath,
      [
        join(FIXTURES, "launch-like-clew.mjs"),
        join(FIXTURES, "run-openclaw-turns.ts"),
        installed.home,
        linked.home,
      ],
      { cwd: FIXTURES, timeout: 20_000 },
    );
    const output = JSON.parse(stdout) as { runs: TurnRun[]; specifiers: Record<string, string> };

    const [fromInstall, fromLink] = output.runs;
    for (const [turns, source, greeting] of [
      [fromInstall, "path", "hello from openclaw-fixture"],
      [fromLink, "link", "linked hello"],
    ] as const) {
      expect(turns?.plugins).toEqual([
        { id: "openclaw-fixture", source, loaded: true, contextEngineIds: ["openclaw-fixture"] },
      ]);
      expect(turns?.engineIds).toEqual([
        "openclaw-fixture",
        "openclaw-fixture",
        "openclaw-fixture",
        "openclaw-fixture",
      ]);
      expect(turns?.systemPrompts[0]).toContain(`${greeting}; ingested 0; delegated compactions 0`);
      expect(turns?.systemPrompts[1]).toContain(`${greeting}; ingested 2; delegated compactions 0`);
      expect(turns?.compaction).toMatchObject({ ok: true, compacted: true });
      expect(turns?.systemPrompts[3]).toContain("delegated compactions 1");
      expect(turns?.logs.filter((line) => line.startsWith("error"))).toEqual([]);
    }
    for (const specifier of OPENCLAW_SDK_SPECIFIERS) expect(output.specifiers[specifier]).toBe("clew-sdk");
    expect(output.specifiers["openclaw/plugin-sdk/memory-host-core"]).toMatch(
      /^error: Clew does not provide "openclaw\/plugin-sdk\/memory-host-core".*openclaw\/plugin-sdk\/core/,
    );
  });
});
