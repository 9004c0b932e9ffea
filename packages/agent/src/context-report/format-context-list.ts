import type { ContextRunReport } from "@clew/core";
import {
  type ContextTextOptions,
  headLines,
  historyLines,
  injectedFileLines,
  joinBlocks,
  namesLine,
  sessionTokensLine,
  skillsListLine,
  toolListLines,
  truncationWarningLines,
} from "./context-sections.js";

const LISTED_SKILL_NAMES = 20;
const LISTED_TOOL_NAMES = 30;

/**
 * The `/context list` answer (reference §2.6 in the seed's format, adapted to Clew): header and
 * limits, the truncation warning when a file was cut, injected files, skills and tools, history
 * by kind, session tokens. Blocks are separated by one blank line. The `(run)` or `(estimate)`
 * label comes from `report.source`. Pure; never throws.
 */
export function formatContextList(report: ContextRunReport, options: ContextTextOptions): string {
  return joinBlocks([
    headLines(report, options, "🧠 Context breakdown"),
    truncationWarningLines(report),
    injectedFileLines(report),
    [
      skillsListLine(report),
      namesLine("Skills", distinct(report.skills.entries.map((entry) => entry.name)), LISTED_SKILL_NAMES),
      ...toolListLines(report),
      namesLine(
        "Tools",
        report.tools.entries.map((entry) => entry.name),
        LISTED_TOOL_NAMES,
      ),
    ],
    historyLines(report),
    [sessionTokensLine(report, options)],
  ]);
}

function distinct(names: readonly string[]): string[] {
  return [...new Set(names)];
}
