import { formatBytes } from "@clew/core";
import {
  executePrune,
  type PrunePlan,
  type PruneSelector,
  parseDuration,
  planPrune,
} from "@clew/engine-lossless";
import type { Command } from "commander";
import { type CliIo, CliUsageError } from "../io.js";
import { type LosslessAgentOptions, sessionIdOf, withLosslessStore } from "./lossless-common.js";

/**
 * `clew lossless prune` and `clew lossless vacuum`: the only commands that delete messages (whole
 * sessions, and only with `--yes`) or rewrite the store file. Both open the store for writing;
 * a running gateway's writes wait for them (up to its busy timeout), so run them when it is idle.
 */
export function registerLosslessUpkeepCommands(lossless: Command, io: CliIo): void {
  lossless
    .command("prune")
    .description("delete whole sessions from the store: one by id, or all idle for longer than a duration")
    .option("--agent <id>", "agent", "main")
    .option("--session <id>", "session id or session key")
    .option("--older-than <duration>", "sessions whose newest message is older than this (12h, 90d, 8w)")
    .option("--yes", "delete; without it, only say what would be deleted")
    .option("--json", "print as JSON")
    .action(
      async (options: LosslessAgentOptions & { session?: string; olderThan?: string; yes?: boolean }) => {
        const selector = await selectorOf(io, options);
        await withLosslessStore(io, options.agent, "write", async (store, path) => {
          const plan = await planPrune(store, selector, path);
          const deleted = options.yes === true ? await executePrune(store, plan) : undefined;
          if (options.json) {
            io.stdout(
              `${JSON.stringify({ path, plan, ...(deleted === undefined ? {} : { deleted }) }, null, 2)}\n`,
            );
            return;
          }
          io.stdout(pruneText(plan, deleted !== undefined));
        });
      },
    );

  lossless
    .command("vacuum")
    .description("return the store's unused space to the file system and report the bytes freed")
    .option("--agent <id>", "agent", "main")
    .option("--json", "print as JSON")
    .action(async (options: LosslessAgentOptions) => {
      await withLosslessStore(io, options.agent, "write", async (store, path) => {
        const reclaimed = await store.reclaimSpace("full");
        const bytesFreed = Math.max(0, reclaimed.bytesBefore - reclaimed.bytesAfter);
        if (options.json) {
          io.stdout(`${JSON.stringify({ path, ...reclaimed, bytesFreed }, null, 2)}\n`);
          return;
        }
        io.stdout(
          `Vacuumed ${path}: ${formatBytes(reclaimed.bytesBefore)} → ${formatBytes(reclaimed.bytesAfter)} (${formatBytes(bytesFreed)} freed)\n`,
        );
      });
    });
}

async function selectorOf(
  io: CliIo,
  options: LosslessAgentOptions & { session?: string; olderThan?: string },
): Promise<PruneSelector> {
  if ((options.session === undefined) === (options.olderThan === undefined)) {
    throw new CliUsageError("prune needs exactly one of --session <id> or --older-than <duration>");
  }
  if (options.session !== undefined)
    return { sessionId: await sessionIdOf(io, options.agent, options.session) };
  return { olderThan: Date.now() - parseDuration(options.olderThan ?? "", "--older-than") };
}

function pruneText(plan: PrunePlan, deleted: boolean): string {
  if (plan.sessions.length === 0) return "No session matches; nothing to delete.\n";
  const what = `${plan.sessions.length} session(s): ${plan.messages} messages and ${plan.summaries} summaries`;
  const lines = plan.sessions.map(
    (session) =>
      `  ${session.sessionId}: ${session.messageCount} messages, ${session.summaryCount} summaries, newest message ${new Date(session.lastMessageAt).toISOString()}`,
  );
  const outcome = deleted
    ? `Deleted ${what}. Run clew lossless vacuum to return the space to the file system.`
    : `Would delete ${what}. Nothing was deleted; run again with --yes to delete them.`;
  return `${[outcome, ...lines].join("\n")}\n`;
}
