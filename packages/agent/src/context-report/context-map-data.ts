/**
 * What `/context map` draws: the tracked contributors of one run report as groups of leaves,
 * each sized in characters (reference §2.8, with Clew's groups: history by kind and summaries
 * come from the report, not from re-reading the transcript).
 */
import type { ContextRunReport } from "@clew/core";
import { sum } from "./context-sections.js";
import { tokensFromChars } from "./format-figures.js";

export type ContextMapGroupId = "workspace" | "system" | "skills" | "tools" | "history" | "summaries";

export interface ContextMapLeaf {
  name: string;
  chars: number;
  /** Counted tokens for history leaves; `ceil(chars / 4)` for the rest. */
  tokens: number;
}

export interface ContextMapGroup {
  id: ContextMapGroupId;
  name: string;
  /** Base colour, `[red, green, blue]` 0–255; leaves are shades of it. */
  color: readonly [number, number, number];
  /** Sum of the leaves. */
  chars: number;
  tokens: number;
  /** Largest first; never empty, no zero leaf. */
  leaves: ContextMapLeaf[];
}

export interface ContextMapData {
  source: ContextRunReport["source"];
  provider?: string;
  model?: string;
  /** Non-empty groups, largest first. */
  groups: ContextMapGroup[];
  totalChars: number;
  totalTokens: number;
  /** The provider's prompt figure for the run, when it reported one. */
  contextTokens: number | null;
  window: number;
}

/** One colour per group, far enough apart to tell apart in the legend. */
export const CONTEXT_MAP_GROUPS: Readonly<
  Record<ContextMapGroupId, { name: string; color: readonly [number, number, number] }>
> = {
  workspace: { name: "Workspace files", color: [58, 145, 91] },
  system: { name: "System prompt", color: [222, 138, 46] },
  skills: { name: "Skills", color: [132, 91, 173] },
  tools: { name: "Tool schemas", color: [59, 118, 184] },
  history: { name: "History", color: [201, 82, 96] },
  summaries: { name: "Summaries", color: [34, 150, 160] },
};

/**
 * The map's data for `report`. Leaves of zero size and empty groups are dropped; sizes below zero
 * (a report that disagrees with itself) are floored at zero. Pure; never throws.
 */
export function contextMapData(report: ContextRunReport): ContextMapData {
  const candidates: Array<[ContextMapGroupId, ContextMapLeaf[]]> = [
    ["workspace", workspaceLeaves(report)],
    ["system", systemPromptLeaves(report)],
    ["skills", report.skills.entries.map((entry) => estimatedLeaf(entry.name, entry.blockChars))],
    ["tools", report.tools.entries.map((entry) => estimatedLeaf(entry.name, entry.schemaChars))],
    ["history", historyLeaves(report)],
    [
      "summaries",
      [countedLeaf("Summaries", report.history.chars.summaries, report.history.tokens.summaries)],
    ],
  ];
  const groups = candidates
    .map(([id, leaves]) => buildGroup(id, leaves))
    .filter((group): group is ContextMapGroup => group !== undefined)
    .sort((left, right) => right.chars - left.chars);
  return {
    source: report.source,
    ...(report.provider === undefined ? {} : { provider: report.provider }),
    ...(report.model === undefined ? {} : { model: report.model }),
    groups,
    totalChars: sum(groups.map((group) => group.chars)),
    totalTokens: sum(groups.map((group) => group.tokens)),
    contextTokens: report.session.contextTokens,
    window: report.session.window,
  };
}

function buildGroup(id: ContextMapGroupId, leaves: ContextMapLeaf[]): ContextMapGroup | undefined {
  const kept = leaves.filter((leaf) => leaf.chars > 0).sort((left, right) => right.chars - left.chars);
  if (kept.length === 0) return undefined;
  const { name, color } = CONTEXT_MAP_GROUPS[id];
  return {
    id,
    name,
    color,
    chars: sum(kept.map((leaf) => leaf.chars)),
    tokens: sum(kept.map((leaf) => leaf.tokens)),
    leaves: kept,
  };
}

function estimatedLeaf(name: string, chars: number): ContextMapLeaf {
  const size = Math.max(0, chars);
  return { name, chars: size, tokens: tokensFromChars(size) };
}

function countedLeaf(name: string, chars: number, tokens: number): ContextMapLeaf {
  return { name, chars: Math.max(0, chars), tokens: Math.max(0, tokens) };
}

/** Each injected file, then the heading, separators and truncation notice around them. */
function workspaceLeaves(report: ContextRunReport): ContextMapLeaf[] {
  const files = report.injectedWorkspaceFiles.map((file) => estimatedLeaf(file.name, file.injectedChars));
  const frame = report.systemPrompt.projectContextChars - sum(files.map((leaf) => leaf.chars));
  return [...files, estimatedLeaf("Project context frame", frame)];
}

/**
 * The prompt outside Project Context, less what other groups draw (skill entries) and what gets
 * its own leaf (tool list, engine addition), so no character is drawn twice.
 */
function systemPromptLeaves(report: ContextRunReport): ContextMapLeaf[] {
  const prompt = report.systemPrompt;
  const skillEntries = sum(report.skills.entries.map((entry) => entry.blockChars));
  const base =
    prompt.nonProjectContextChars - skillEntries - report.tools.listChars - prompt.engineAdditionChars;
  return [
    estimatedLeaf("Base instructions", base),
    estimatedLeaf("Tool list", report.tools.listChars),
    estimatedLeaf("Engine addition", prompt.engineAdditionChars),
  ];
}

function historyLeaves(report: ContextRunReport): ContextMapLeaf[] {
  const { chars, tokens } = report.history;
  return [
    countedLeaf("User", chars.user, tokens.user),
    countedLeaf("Assistant", chars.assistant, tokens.assistant),
    countedLeaf("Tool results", chars.toolResults, tokens.toolResults),
    countedLeaf("Other", chars.other, tokens.other),
  ];
}
