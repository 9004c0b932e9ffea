import { EXTRACTIVE_SUMMARIZER_ID, formatBytes } from "@clew/core";
import type { SummarySpendReport } from "../prepare/spend-report.js";
/**
 * The lossless engine's figures as short text lines: the status section (`/status`,
 * `clew context`), and one line per flight-recorder record (`clew lossless history`). Pure;
 * never throws.
 */
import { cacheReadShare, type ProviderCacheFigures } from "../recorder/model-call-cache.js";
import type { StoredAssemblyRecord, StoredCompactionPass } from "../store/store.js";
import { MAX_EARLIER_SESSIONS } from "../tools/earlier-sessions.js";
import type { PassCacheEffect } from "./provider-cache.js";
import type { LosslessSessionReport } from "./session-report.js";

/** The status section of one session: store, view, last compaction pass, last assembly. */
export function formatStatusLines(report: LosslessSessionReport, now: number): string[] {
  if (!report.store.available) {
    return [
      `store unavailable (${report.store.failure ?? "unknown reason"}); the host's messages are used as they are`,
    ];
  }
  const { session } = report;
  const kinds = session.summariesByKind;
  const lines = [
    `Store: ${formatBytes(report.store.bytesOnDisk)} (${report.store.kind}) · ${counted(session.messageCount, "message", "messages")} (${formatBytes(session.rawJsonBytes)} JSON) · ${counted(session.summaryCount, "summary", "summaries")} (${kinds.leaf} leaf, ${kinds.condensed} condensed; deepest chain ${session.deepestChain})`,
    `View: ${counted(session.viewItems, "item", "items")}, ${count(session.viewTokens)} tokens (version ${session.viewVersion}) · compactions: ${count(session.compactionPasses)}, ${count(session.tokensRemovedTotal)} tokens removed in all`,
    report.lastCompaction === undefined
      ? "Last compaction: none recorded"
      : `Last compaction: ${formatPass(report.lastCompaction, now, report.lastCompactionCacheEffect)}`,
    report.lastAssembly === undefined
      ? "Last assembly: none recorded"
      : `Last assembly: ${formatAssembly(report.lastAssembly, now)}`,
  ];
  if (report.summarySpend?.available === true) lines.push(formatSummarySpend(report.summarySpend));
  if (report.providerCache !== undefined) lines.push(formatProviderCache(report.providerCache));
  if (report.earlierSessions !== undefined && report.earlierSessions > 0) {
    const earlier = report.earlierSessions;
    const last = earlier === 1 ? "prev1" : `prev1–prev${earlier}`;
    // Recall reaches the newest eight: more may exist.
    const which =
      earlier >= MAX_EARLIER_SESSIONS
        ? `the ${earlier} newest sessions`
        : counted(earlier, "session", "sessions");
    lines.push(
      `Earlier sessions: ${which} of this conversation before a /new or /reset, searched by recall (${last})`,
    );
  }
  return lines;
}

/**
 * Who writes the session's summaries and what it cost: spend in the window against the budget,
 * the debt (summaries written extractively for lack of budget), prepared summaries waiting.
 */
export function formatSummarySpend(spend: SummarySpendReport): string {
  const { window, jobs } = spend;
  const parts = [`Summaries: ${spend.summarizer}`];
  if (spend.summarizer === EXTRACTIVE_SUMMARIZER_ID) parts[0] += " (no model calls)";
  else {
    parts.push(
      `${count(window.spentTokens)} of ${count(spend.limitTokens)} tokens spent in the last ${spend.windowHours} h (${counted(window.calls, "call", "calls")})`,
    );
    if (window.debtChunks > 0) {
      parts.push(
        `debt: ${counted(window.debtChunks, "summary", "summaries")} written extractively for lack of budget (${count(window.debtTokens)} tokens)`,
      );
    }
  }
  if (jobs.prepared > 0) {
    const upgrades = jobs.upgrades === 0 ? "" : ` (${counted(jobs.upgrades, "upgrade", "upgrades")})`;
    parts.push(`${count(jobs.prepared)} prepared${upgrades} waiting for the next compaction`);
  }
  if (jobs.leased > 0) parts.push(`${count(jobs.leased)} being prepared`);
  return parts.join(" · ");
}

/** The provider's prompt cache over the newest calls, as their replies reported it. */
export function formatProviderCache(figures: ProviderCacheFigures): string {
  const missed =
    figures.callsMostlyMissed === 0
      ? ""
      : ` (${counted(figures.callsMostlyMissed, "call", "calls")} under half)`;
  return (
    `Provider cache: ${percent(cacheReadShare(figures))} of ${count(figures.promptTokens)} prompt tokens read ` +
    `from cache over the last ${counted(figures.calls, "model call", "model calls")}${missed}`
  );
}

/** `provider cache 96% → 4%`: the share read from cache by the call before a pass and the first after. */
export function formatCacheEffect(effect: PassCacheEffect): string | undefined {
  const { before, after } = effect;
  if (before === undefined && after === undefined) return undefined;
  const share = (call: typeof before) => (call === undefined ? "?" : percent(cacheReadShare(call)));
  return `provider cache ${share(before)} → ${share(after)}`;
}

/**
 * One line per pass: id, when, trigger, outcome and level, tokens, summaries, time taken, what it
 * did to the provider's cache (when known), reason.
 */
export function formatPass(pass: StoredCompactionPass, now: number, cache?: PassCacheEffect): string {
  const removed = pass.tokensBefore - pass.tokensAfter;
  const change = removed > 0 ? ` (−${count(removed)})` : "";
  const effect = cache === undefined ? undefined : formatCacheEffect(cache);
  const reason = pass.reason === undefined ? "" : ` — ${pass.reason}`;
  return (
    `${pass.passId} ${formatAgo(pass.startedAt, now)} ${pass.trigger} ${pass.outcome} (${pass.level}): ` +
    `${count(pass.tokensBefore)} → ${count(pass.tokensAfter)} tokens${change}, ` +
    `${counted(pass.summaryIds.length, "summary", "summaries")}${preparedShare(pass)}, ${Math.round(pass.durationMs)} ms` +
    `${effect === undefined ? "" : `, ${effect}`}${reason}`
  );
}

/**
 * How many of a pass's summaries were prepared in the background, and how many of those were
 * upgrades (summaries the model wrote again); nothing when it wrote none.
 */
function preparedShare(pass: StoredCompactionPass): string {
  const { prepared, upgraded = 0 } = pass.outputs;
  if (prepared === undefined || pass.summaryIds.length === 0) return "";
  const upgrades = upgraded === 0 ? "" : `, ${upgraded} upgraded`;
  const all = prepared + upgraded === pass.summaryIds.length;
  return all && upgraded === 0 ? " (all prepared)" : ` (${prepared} prepared${upgrades})`;
}

/** One assembly: tokens of the budget by kind, what was left out, prefix stability. */
export function formatAssembly(record: StoredAssemblyRecord, now: number): string {
  const { tokensByKind, evicted } = record;
  const left =
    evicted.items === 0
      ? "nothing left out"
      : `${counted(evicted.items, "item", "items")} left out (${span(evicted.first, evicted.last)})`;
  const prefix =
    record.prefixStable === null
      ? "first recorded"
      : record.prefixStable
        ? "prefix stable"
        : "prefix changed";
  return (
    `${formatAgo(record.assembledAt, now)} ${count(record.tokens)} of ${count(record.budgetTokens)} tokens: ` +
    `raw ${count(tokensByKind.raw)} · summaries ${count(tokensByKind.summary)} · other ${count(tokensByKind.other)}; ` +
    `${left}; ${prefix}`
  );
}

/** `just now`, `5 s ago`, `3 min ago`, `2 h ago`, `4 d ago`. */
export function formatAgo(at: number, now: number): string {
  const seconds = Math.max(0, Math.round((now - at) / 1000));
  if (seconds < 1) return "just now";
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3_600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3_600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}

function span(first: string | undefined, last: string | undefined): string {
  return first === last ? (first ?? "?") : `${first ?? "?"}–${last ?? "?"}`;
}

function percent(share: number): string {
  return `${Math.round(share * 100)}%`;
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}

/** `1 summary`, `2 summaries`. */
function counted(value: number, one: string, many: string): string {
  return `${count(value)} ${value === 1 ? one : many}`;
}
