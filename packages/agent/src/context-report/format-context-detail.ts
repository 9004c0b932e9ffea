import type { ContextRunReport } from "@clew/core";
import {
  type ContextTextOptions,
  headLines,
  historyLines,
  injectedFileLines,
  joinBlocks,
  sessionTokensLine,
  skillsListLine,
  sum,
  toolListLines,
  truncationWarningLines,
} from "./context-sections.js";
import { formatCharsAndTokens, formatInteger, tokensFromChars } from "./format-figures.js";

/** How many entries each "Top …" list shows before `… (+N more …)`. */
export const DETAIL_TOP_COUNT = 30;

/**
 * The `/context detail` answer (reference §2.7, adapted to Clew): the list's header, the system
 * prompt by section, per-file sizes, the largest skills and tools (top 30 each, then
 * `… (+N more skills|tools)`), history by kind with compactions, and the tracked estimate against
 * the provider's figure. Unlike the reference, blank lines between blocks are kept so a long
 * answer stays scannable. Pure; never throws.
 */
export function formatContextDetail(report: ContextRunReport, options: ContextTextOptions): string {
  return joinBlocks([
    headLines(report, options, "🧠 Context breakdown (detailed)"),
    systemPromptSectionLines(report),
    truncationWarningLines(report),
    injectedFileLines(report),
    [skillsListLine(report), ...topSkillLines(report)],
    [...toolListLines(report), ...topToolLines(report)],
    [...historyLines(report), `Compactions: ${formatInteger(report.session.compactions)}`],
    [...trackedLines(report), sessionTokensLine(report, options)],
  ]);
}

function systemPromptSectionLines(report: ContextRunReport): string[] {
  const prompt = report.systemPrompt;
  const sections = prompt.sections.map(
    (section) => `- ${section.name}: ${formatCharsAndTokens(section.chars)}`,
  );
  const lines = ["System prompt sections:", ...(sections.length > 0 ? sections : ["- (none)"])];
  if (prompt.engineAdditionChars > 0) {
    lines.push(`Engine addition (systemPromptAddition): ${formatCharsAndTokens(prompt.engineAdditionChars)}`);
  }
  lines.push(`System prompt hash: ${prompt.hash.slice(0, 16)}`);
  return lines;
}

interface Sized {
  name: string;
  size: number;
}

/**
 * `- name: <text>` for the largest `DETAIL_TOP_COUNT` entries (ties by name, so the order is
 * stable across runs), then the omitted count.
 */
function topLines(entries: readonly Sized[], describe: (size: number) => string, noun: string): string[] {
  if (entries.length === 0) return ["- (none)"];
  const sorted = [...entries].sort((left, right) => right.size - left.size || compareNames(left, right));
  const lines = sorted.slice(0, DETAIL_TOP_COUNT).map((entry) => `- ${entry.name}: ${describe(entry.size)}`);
  const omitted = sorted.length - DETAIL_TOP_COUNT;
  if (omitted > 0) lines.push(`… (+${omitted} more ${noun})`);
  return lines;
}

function compareNames(left: Sized, right: Sized): number {
  if (left.name === right.name) return 0;
  return left.name < right.name ? -1 : 1;
}

function topSkillLines(report: ContextRunReport): string[] {
  const entries = report.skills.entries.map((entry) => ({ name: entry.name, size: entry.blockChars }));
  return ["Top skills (prompt entry size):", ...topLines(entries, sizeText, "skills")];
}

function topToolLines(report: ContextRunReport): string[] {
  const tools = report.tools.entries;
  const bySchema = tools.map((tool) => ({ name: tool.name, size: tool.schemaChars }));
  const bySummary = tools.map((tool) => ({ name: tool.name, size: tool.summaryChars }));
  const byParams = tools.flatMap((tool) =>
    tool.propertiesCount === null ? [] : [{ name: tool.name, size: tool.propertiesCount }],
  );
  return [
    "Top tools (schema size):",
    ...topLines(bySchema, sizeText, "tools"),
    "Top tools (summary text size):",
    ...topLines(bySummary, sizeText, "tools"),
    "Tools (param count):",
    ...topLines(byParams, (count) => `${formatInteger(count)} params`, "tools"),
  ];
}

function sizeText(chars: number): string {
  return formatCharsAndTokens(chars);
}

/**
 * Tracked = system prompt (files, skills and tool list are inside it) + tool schemas + history.
 * Its tokens add the history's counted tokens to the estimate of the rest, so the comparison with
 * the provider's figure uses the best number for each part.
 */
function trackedLines(report: ContextRunReport): string[] {
  const history = report.history;
  const historyChars = sum(Object.values(history.chars));
  const historyTokens = sum(Object.values(history.tokens));
  const promptChars = report.systemPrompt.chars + report.tools.schemaChars;
  const trackedTokens = tokensFromChars(promptChars) + historyTokens;
  const actual = report.session.contextTokens;
  const lines = [
    `Tracked prompt estimate: ${formatCharsAndTokens(promptChars + historyChars, trackedTokens)}`,
    actual === null
      ? "Actual context usage (provider): unavailable"
      : `Actual context usage (provider): ${formatInteger(actual)} tok`,
  ];
  if (actual !== null) {
    const untracked = actual - trackedTokens;
    lines.push(
      untracked > 0
        ? `Untracked provider/runtime overhead: ~${formatInteger(untracked)} tok`
        : "Untracked provider/runtime overhead: not observed in the provider's figure",
    );
  }
  return lines;
}
