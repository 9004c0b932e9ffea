import type { MemoryPromptSectionParams } from "@clew/plugin-sdk";
import { MEMORY_DIR_NAME } from "./memory-files.js";
import { MEMORY_GET_TOOL, MEMORY_SEARCH_TOOL } from "./memory-tools.js";

/**
 * memory-core's prompt section (a `MemoryPromptSectionBuilder`): a few lines telling the model
 * where durable notes are and how to use the memory tools it actually has this run. Empty when it
 * has neither tool, so no prompt points at a tool that is not there.
 */
export function buildMemoryPromptSection(params: MemoryPromptSectionParams): string[] {
  const canSearch = params.availableTools.has(MEMORY_SEARCH_TOOL);
  const canGet = params.availableTools.has(MEMORY_GET_TOOL);
  if (!canSearch && !canGet) return [];
  const lines = [
    "## Memory",
    `Durable notes live in the workspace: MEMORY.md (lasting facts, preferences, decisions) and ${MEMORY_DIR_NAME}/YYYY-MM-DD.md (dated notes).`,
  ];
  if (canSearch && canGet) {
    lines.push(
      `Before answering about earlier work, decisions, dates, people, preferences or open tasks, run ${MEMORY_SEARCH_TOOL}, then ${MEMORY_GET_TOOL} for the lines you need.`,
    );
  } else if (canSearch) {
    lines.push(
      `Before answering about earlier work, decisions, dates, people, preferences or open tasks, run ${MEMORY_SEARCH_TOOL}.`,
    );
  } else {
    lines.push(`Read notes with ${MEMORY_GET_TOOL} (path, and from/lines for a range).`);
  }
  if (params.availableTools.has("write") || params.availableTools.has("edit")) {
    lines.push(
      `To remember something for later, append it to ${MEMORY_DIR_NAME}/YYYY-MM-DD.md (today's date); keep notes short and factual.`,
    );
  }
  if (params.citationsMode !== "off") {
    lines.push("When a note informs your answer, cite it as <path>#L<from>-L<to>.");
  }
  return lines;
}
