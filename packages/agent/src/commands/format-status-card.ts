import {
  type ContextEngineStatus,
  type ContextEngineStatusSection,
  type ContextPruningMode,
  formatContextEngineStatusLine,
} from "@clew/core";
import { formatEngineSection } from "./format-engine-section.js";
import {
  formatCompactTokens,
  formatContextUsage,
  formatDuration,
  formatPercent,
  formatTimeAgo,
  formatUsd,
} from "./format-numbers.js";
import type { UsageTotals } from "./format-usage-footer.js";
import type { ReasoningLevel, ThinkingLevel, UsageMode, VerboseLevel } from "./settings.js";

/** Everything the `/status` card shows; the caller gathers it, the formatter only lays it out. */
export interface StatusCardData {
  /** Clew's version, e.g. `0.1.0`. */
  version: string;
  /** Short git commit, shown in parentheses after the version when known. */
  commit?: string;
  /** A caller-made time line (e.g. `🕒 Time: …`), shown as is under the version. */
  timeLine?: string;
  /** `provider/model` of the session. */
  model: string;
  /** How the provider is authenticated (`api-key`, `oauth`, a profile label), when known. */
  authLabel?: string;
  /** The session's accumulated usage; `cost` in dollars, absent when pricing is unknown. */
  usage: UsageTotals;
  context: {
    /** Tokens the session's context holds now; absent when unknown. */
    used?: number;
    window: number;
    compactions: number;
  };
  /** The context engine in use, from `describeContextEngineStatus`; no line when absent. */
  engine?: ContextEngineStatus;
  /** The engine's own section (`describeStatus`), shown under the engine line; none when absent. */
  engineSection?: ContextEngineStatusSection;
  /** Session pruning; no line when absent. */
  pruning?: { mode: ContextPruningMode; ttlMs?: number };
  session: {
    key: string;
    /** Epoch milliseconds of the last activity; absent when there was none. */
    updatedAt?: number;
  };
  /** Epoch milliseconds "now", for the `updated … ago` figure. */
  now: number;
  /** The effective settings (session values with defaults filled in). */
  runtime: {
    thinkingLevel: ThinkingLevel;
    verbose: VerboseLevel;
    reasoning: ReasoningLevel;
    usageMode: UsageMode;
  };
}

/**
 * The `/status` card (reference §3.1, adapted to Clew): one line per fact, lines without data
 * dropped, joined with `\n`. Never throws.
 */
export function formatStatusCard(data: StatusCardData): string {
  const lines = [
    data.commit === undefined ? `🧶 Clew ${data.version}` : `🧶 Clew ${data.version} (${data.commit})`,
    data.timeLine,
    data.authLabel === undefined
      ? `🧠 Model: ${data.model}`
      : `🧠 Model: ${data.model} · 🔑 ${data.authLabel}`,
    tokensLine(data.usage),
    cacheLine(data.usage),
    `📚 Context: ${formatContextUsage(data.context.used, data.context.window)} · 🧹 Compactions: ${data.context.compactions}`,
    data.engine === undefined ? undefined : engineLine(data.engine),
    data.engineSection === undefined ? undefined : formatEngineSection(data.engineSection),
    data.pruning === undefined ? undefined : pruningLine(data.pruning),
    sessionLine(data.session, data.now),
    runtimeLine(data.runtime),
  ];
  return lines.filter((line): line is string => line !== undefined && line !== "").join("\n");
}

function tokensLine(usage: UsageTotals): string {
  const tokens = `🧮 Tokens: ${formatCompactTokens(usage.input)} in / ${formatCompactTokens(usage.output)} out`;
  return usage.cost === undefined ? tokens : `${tokens} · 💵 Cost: ${formatUsd(usage.cost)}`;
}

/** Hit rate counts fresh input as misses: cacheRead / (cacheRead + cacheWrite + input). */
function cacheLine(usage: UsageTotals): string | undefined {
  if (usage.cacheRead <= 0 && usage.cacheWrite <= 0) return undefined;
  const hit = formatPercent(usage.cacheRead, usage.cacheRead + usage.cacheWrite + usage.input);
  return `🗄️ Cache: ${hit} hit · ${formatCompactTokens(usage.cacheRead)} cached, ${formatCompactTokens(usage.cacheWrite)} new`;
}

const CORE_ENGINE_PREFIX = "Context engine: ";

/** Keeps core's wording of configured vs effective engine and the reason they differ. */
function engineLine(status: ContextEngineStatus): string {
  const line = formatContextEngineStatusLine(status);
  const body = line.startsWith(CORE_ENGINE_PREFIX) ? line.slice(CORE_ENGINE_PREFIX.length) : line;
  return `🧩 Engine: ${body}`;
}

function pruningLine(pruning: { mode: ContextPruningMode; ttlMs?: number }): string {
  if (pruning.mode === "off" || pruning.ttlMs === undefined) return `✂️ Pruning: ${pruning.mode}`;
  return `✂️ Pruning: ${pruning.mode} (ttl ${formatDuration(pruning.ttlMs)})`;
}

function sessionLine(session: StatusCardData["session"], now: number): string {
  const activity =
    session.updatedAt === undefined ? "no activity" : `updated ${formatTimeAgo(session.updatedAt, now)}`;
  return `🧵 Session: ${session.key} • ${activity}`;
}

/** Verbose and reasoning appear only when on, as in the reference's runtime line. */
function runtimeLine(runtime: StatusCardData["runtime"]): string {
  const parts = [`⚙️ Think: ${runtime.thinkingLevel}`];
  if (runtime.verbose === "on") parts.push("verbose");
  if (runtime.verbose === "full") parts.push("verbose:full");
  if (runtime.reasoning !== "off") parts.push(`Reasoning: ${runtime.reasoning}`);
  parts.push(`Usage: ${runtime.usageMode}`);
  return parts.join(" · ");
}
