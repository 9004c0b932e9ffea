import type { ContextEngineStatusSection } from "@clew/core";

/**
 * An engine's own status section (`ContextEngine.describeStatus`, a Clew extension) as card
 * lines: the title, then each line indented. Empty for a section without lines. Never throws.
 */
export function formatEngineSection(section: ContextEngineStatusSection): string {
  if (section.lines.length === 0) return "";
  return [`🗃️ ${section.title}`, ...section.lines.map((line) => `   ${line}`)].join("\n");
}
