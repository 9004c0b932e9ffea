import { resolveModel } from "@clew/agent";
import {
  type ClewConfig,
  type ContextEngineHostDescriptor,
  embeddedHostDescriptor,
  resolveClewHome,
} from "@clew/core";
import { LOSSLESS_DATABASE_FILE, LOSSLESS_PLUGIN_ID } from "@clew/engine-lossless";
import { type DoctorReport, formatDoctorChecks, runDoctor } from "@clew/plugins";
import { type Command, CommanderError } from "commander";
import type { CliIo } from "../io.js";
import { readLosslessStoreTotals } from "./lossless-common.js";

/**
 * `clew doctor [--json]`: config, plugins, the selected context engine, the memory slot and the
 * session stores, one line per check. Exit status 0 when all are ok, 1 with warnings, 2 with
 * errors; the status travels as a `CommanderError`, which `runCli` turns into the exit code
 * without printing anything more.
 */
export function registerDoctorCommand(program: Command, io: CliIo): void {
  program
    .command("doctor")
    .description("check config, plugins, the context engine, the memory slot and session stores")
    .option("--json", "print the checks as JSON")
    .action(async (options: { json?: boolean }) => {
      const home = resolveClewHome(io.env);
      const report = await runDoctor({
        home,
        hostFor: (config) => doctorHost(config, io.env),
        engineStore: {
          engineId: LOSSLESS_PLUGIN_ID,
          fileName: LOSSLESS_DATABASE_FILE,
          readTotals: readLosslessStoreTotals,
        },
      });
      io.stdout(options.json ? `${JSON.stringify(doctorJson(report), null, 2)}\n` : formatReport(report));
      if (report.exitCode !== 0) throw new CommanderError(report.exitCode, "clew.doctor", "");
    });
}

/**
 * The host the agent would run engines on: Clew's embedded runner, offering engines a model call
 * (`runtime-llm-complete`) only when a model resolves for the main agent: the summary model
 * (`agents.defaults.compaction.model`) or the chat model, as the agent runtime binds it.
 */
export function doctorHost(
  config: ClewConfig,
  env: Record<string, string | undefined>,
): ContextEngineHostDescriptor {
  const resolves = (purpose: "chat" | "summary") => {
    try {
      resolveModel(config, { agentId: "main", purpose, env });
      return true;
    } catch {
      return false;
    }
  };
  return embeddedHostDescriptor({ llmComplete: resolves("summary") || resolves("chat") });
}

function formatReport(report: DoctorReport): string {
  const counts = { ok: 0, warning: 0, error: 0 };
  for (const check of report.checks) counts[check.status] += 1;
  const summary =
    report.exitCode === 0
      ? `All ${counts.ok} checks passed.`
      : `${counts.error} error(s), ${counts.warning} warning(s), ${counts.ok} ok.`;
  return `${formatDoctorChecks(report.checks)}${summary}\n`;
}

/** The `--json` shape: `{ home, status, exitCode, checks: [{ id, status, message, fix? }] }`. */
function doctorJson(report: DoctorReport) {
  return { home: report.home, status: report.status, exitCode: report.exitCode, checks: report.checks };
}
