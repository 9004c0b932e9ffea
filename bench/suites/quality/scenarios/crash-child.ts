/**
 * Child of the crash-replay check (M13): replays the first `--turns` turns of the preset's agent
 * session through the engine into `--root`, prints `CRASH_READY` on stdout, then idles until the
 * parent kills it with SIGKILL (no cleanup runs: locks, buffers and engine state are left as a
 * crash leaves them). Exit code 2 for unusable arguments, 1 when the replay fails.
 */
import { parseArgs } from "node:util";
import { describeError, loadO200kTokenCounter, withTokenCache } from "@clew/core";
import { generateAgentSession } from "../../../workloads/agent/generate-agent-session.js";
import { Provenance } from "../harness/provenance.js";
import { qualityPreset } from "../presets.js";
import { CRASH_READY_LINE, crashSessionInput } from "./crash-scenario.js";
import { createQualityRun, openSession } from "./quality-run.js";

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      engine: { type: "string" },
      root: { type: "string" },
      preset: { type: "string" },
      turns: { type: "string" },
    },
    strict: true,
  });
  const turns = Number(values.turns);
  if (
    values.engine === undefined ||
    values.root === undefined ||
    values.preset === undefined ||
    !(turns >= 0)
  ) {
    process.stderr.write("crash-child: --engine, --root, --preset and --turns <n> are required\n");
    process.exitCode = 2;
    return;
  }
  const workload = generateAgentSession(qualityPreset(values.preset).agent);
  const run = createQualityRun({
    engine: values.engine,
    root: values.root,
    counter: withTokenCache(await loadO200kTokenCounter()),
    log: () => {},
  });
  const { session } = await openSession(run, crashSessionInput(new Provenance(workload.sources)));
  const outcome = await session.replay(workload.turns.slice(0, turns), () => {});
  if (outcome.failures.length > 0) throw new Error(outcome.failures.join("; "));
  process.stdout.write(`${CRASH_READY_LINE}\n`);
  // Keep the process (and the open session) alive until the parent's SIGKILL.
  setInterval(() => {}, 60_000);
}

main().catch((error: unknown) => {
  process.stderr.write(`crash-child: ${describeError(error)}\n`);
  process.exit(1);
});
