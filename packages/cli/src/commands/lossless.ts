import { formatBytes } from "@clew/core";
import {
  formatAssembly,
  formatCacheEffect,
  formatPass,
  formatStatusLines,
  isEmptyCacheEffect,
  LosslessRecordNotFoundError,
  LosslessSessionNotFoundError,
  type LosslessStore,
  readPassCacheEffect,
  readSessionReport,
  type StoredCompactionPass,
  type StoredSummary,
} from "@clew/engine-lossless";
import type { Command } from "commander";
import type { CliIo } from "../io.js";
import {
  type LosslessAgentOptions,
  positiveInteger,
  sessionIdOf,
  withLosslessStore,
} from "./lossless-common.js";
import { registerLosslessUpkeepCommands } from "./lossless-upkeep.js";

/**
 * `clew lossless history|show|prune|vacuum`: the lossless engine's flight recorder and upkeep,
 * over `<CLEW_HOME>/agents/<agent>/lossless.db`. `history` and `show` open the store read-only,
 * so they work while a gateway writes to it.
 */
export function registerLosslessCommands(program: Command, io: CliIo): void {
  const lossless = program
    .command("lossless")
    .description("the lossless engine's store: compaction history, records, pruning and vacuum");

  lossless
    .command("history")
    .description("compaction passes, newest first; with --session also its figures and last assembly")
    .option("--agent <id>", "agent", "main")
    .option("--session <id>", "session id or session key (default: every session)")
    .option("--limit <n>", "passes to show", "20")
    .option("--json", "print as JSON")
    .action(async (options: LosslessAgentOptions & { session?: string; limit: string }) => {
      const limit = positiveInteger(options.limit, "--limit");
      const sessionId =
        options.session === undefined ? undefined : await sessionIdOf(io, options.agent, options.session);
      await withLosslessStore(io, options.agent, "read", (store, path) =>
        printHistory(io, store, path, { sessionId, limit, json: options.json === true }),
      );
    });

  lossless
    .command("show")
    .description("one compaction pass (pass_…) or summary (sum_…) in full")
    .argument("<id>", "a pass id or a summary id")
    .option("--agent <id>", "agent", "main")
    .option("--json", "print as JSON")
    .action(async (id: string, options: LosslessAgentOptions) => {
      await withLosslessStore(io, options.agent, "read", async (store, path) => {
        const shown = await showRecord(store, path, id.trim());
        io.stdout(options.json ? `${JSON.stringify(shown.json, null, 2)}\n` : shown.text);
      });
    });

  registerLosslessUpkeepCommands(lossless, io);
}

async function printHistory(
  io: CliIo,
  store: LosslessStore,
  path: string,
  options: { sessionId: string | undefined; limit: number; json: boolean },
): Promise<void> {
  const { sessionId, limit } = options;
  if (sessionId !== undefined) {
    const known = (await store.listSessions()).some((session) => session.sessionId === sessionId);
    if (!known) throw new LosslessSessionNotFoundError(sessionId, path);
  }
  const passes = await store.listCompactionPasses({
    ...(sessionId === undefined ? {} : { sessionId }),
    limit,
  });
  const report = sessionId === undefined ? undefined : await readSessionReport(store, undefined, sessionId);
  const bytesOnDisk = await store.sizeOnDisk();
  const caches = await Promise.all(passes.map((pass) => readPassCacheEffect(store, pass)));
  if (options.json) {
    const withCache = passes.map((pass, index) => {
      const cacheEffect = caches[index];
      return cacheEffect === undefined || isEmptyCacheEffect(cacheEffect) ? pass : { ...pass, cacheEffect };
    });
    io.stdout(
      `${JSON.stringify({ path, bytesOnDisk, ...(report === undefined ? {} : { report }), passes: withCache }, null, 2)}\n`,
    );
    return;
  }
  const now = Date.now();
  const lines = [`Lossless store ${path} (${formatBytes(bytesOnDisk)})`];
  if (report !== undefined) {
    lines.push(`Session ${report.sessionId}:`, ...formatStatusLines(report, now).map((line) => `  ${line}`));
  }
  lines.push(passes.length === 0 ? "No compaction passes recorded." : "Compaction passes, newest first:");
  for (const [index, pass] of passes.entries()) {
    const session = sessionId === undefined ? ` [session ${pass.sessionId}]` : "";
    lines.push(`  ${formatPass(pass, now, caches[index])}${session}`);
  }
  io.stdout(`${lines.join("\n")}\n`);
}

/** A pass or a summary, as text and JSON. Throws `LosslessRecordNotFoundError` for an unknown id. */
async function showRecord(
  store: LosslessStore,
  path: string,
  id: string,
): Promise<{ text: string; json: unknown }> {
  if (id.startsWith("pass_")) {
    const pass = await store.readCompactionPass(id);
    if (pass === undefined) throw new LosslessRecordNotFoundError(id, path);
    const [assembly] = await store.listAssemblies(pass.sessionId, 1);
    const cacheEffect = await readPassCacheEffect(store, pass);
    const effect = formatCacheEffect(cacheEffect);
    const lines = [
      `Compaction pass ${pass.passId} of session ${pass.sessionId}`,
      `  ${formatPass(pass, Date.now())}`,
      `  started ${new Date(pass.startedAt).toISOString()}, view version ${pass.viewVersionBefore} → ${pass.viewVersionAfter}`,
      `  target ${pass.targetTokens} tokens of a ${pass.budgetTokens}-token budget`,
      `  replaced ${pass.inputs.messages} messages and ${pass.inputs.summaries} summaries (${pass.inputs.tokens} tokens)`,
      `  wrote ${pass.outputs.leaf} leaf and ${pass.outputs.condensed} condensed summaries${upgrades(pass)} (${pass.outputs.tokens} tokens)${madeWhere(pass)}`,
      `  summarizer ${pass.summarizer}; written by ${pass.writtenBy.join(", ") || "nothing"}; cost ${pass.costUsd === undefined ? "unknown" : formatUsd(pass.costUsd)}`,
      ...(effect === undefined
        ? []
        : [
            `  ${effect} (share of the prompt read from cache: the call before the pass, the first call after it)`,
          ]),
      ...pass.summaryIds.map((summaryId) => `  ${summaryId}`),
      ...(assembly === undefined
        ? []
        : [`Latest assembly of the session: ${formatAssembly(assembly, Date.now())}`]),
    ];
    return {
      text: `${lines.join("\n")}\n`,
      json: isEmptyCacheEffect(cacheEffect) ? pass : { ...pass, cacheEffect },
    };
  }
  const sessionId = id.startsWith("sum_") ? await store.findSummarySession(id) : undefined;
  const [summary] = sessionId === undefined ? [] : await store.readSummaries(sessionId, [id]);
  if (sessionId === undefined || summary === undefined) throw new LosslessRecordNotFoundError(id, path);
  return { text: summaryText(sessionId, summary), json: { sessionId, ...summary } };
}

/** The summaries a pass swapped for the model's rewrite of them (see `outputs.upgraded`). */
function upgrades(pass: StoredCompactionPass): string {
  const upgraded = pass.outputs.upgraded ?? 0;
  if (upgraded === 0) return "";
  return `, and ${upgraded} ${upgraded === 1 ? "summary" : "summaries"} the model rewrote in place of those written without it`;
}

/** Where a pass's summaries were made: prepared in the background, or during the pass (a model call each). */
function madeWhere(pass: StoredCompactionPass): string {
  const { leaf, condensed, prepared } = pass.outputs;
  if (prepared === undefined || leaf + condensed === 0) return "";
  return `: ${prepared} prepared in the background, ${leaf + condensed - prepared} made during the pass`;
}

function summaryText(sessionId: string, summary: StoredSummary): string {
  const ranges = summary.sourceRanges
    .map(([first, last]) => (first === last ? `m${first}` : `m${first}–m${last}`))
    .join(", ");
  const lines = [
    `Summary ${summary.summaryId} of session ${sessionId}: ${summary.kind}, depth ${summary.depth}`,
    `  covers ${summary.sourceCount} messages (${ranges}), ${summary.sourceTokens} tokens raw, ${summary.tokens} as a summary`,
    `  written by ${summary.summarizer} on ${new Date(summary.createdAt).toISOString()}${summary.costUsd === undefined ? "" : ` for ${formatUsd(summary.costUsd)}`}`,
    `  parent ${summary.parentId ?? "none"}; children ${summary.childIds.join(", ") || "none"}`,
    `  anchors (${summary.anchors.length}): ${summary.anchors
      .slice(0, 20)
      .map((anchor) => anchor.value)
      .join(", ")}${summary.anchors.length > 20 ? ", …" : ""}`,
    "",
    summary.content,
  ];
  return `${lines.join("\n")}\n`;
}

/** Dollars with four decimals, or two significant digits below a cent (so a cheap call never reads as $0.0000). */
function formatUsd(usd: number): string {
  return `$${usd >= 0.01 || usd === 0 ? usd.toFixed(4) : usd.toPrecision(2)}`;
}
