/**
 * The text format of a compaction summary: one `## <Section>` heading per entry of
 * `SUMMARY_SECTIONS`, in that order, each followed by `- ` bullet items (`- (none)` when empty).
 * Rendering, parsing, and `ensureIdentifiers`, which guarantees by code that every identifier of
 * the span survives summarization verbatim.
 */
import { SUMMARY_SECTIONS, type SummarySection } from "./summarizer.js";

/** At most this many identifiers are listed by code; the rest are counted ("…and N more"). */
export const MAX_SUMMARY_IDENTIFIERS = 200;

export type SummaryItems = Partial<Record<SummarySection, readonly string[]>>;

export interface ParsedSummary {
  /** The items under each recognised heading (bullets, or plain lines), without `(none)`. */
  sections: Partial<Record<SummarySection, string[]>>;
  /** Text before the first heading. */
  preamble: string;
  /** Headings that are not ours (a model's `## Tool Failures`), kept in order with their bodies. */
  extraSections: Array<{ heading: string; body: string }>;
}

/**
 * Every section of `SUMMARY_SECTIONS` in order, each item as a bullet (continuation lines indented
 * by two spaces), `- (none)` for empty sections. Sections not in `items` render as empty.
 */
export function renderSummary(items: SummaryItems): string {
  return SUMMARY_SECTIONS.map((section) => renderSection(section, items[section] ?? [])).join("\n\n");
}

export function renderSection(section: SummarySection, items: readonly string[]): string {
  const lines = items.length === 0 ? ["- (none)"] : items.map(renderItem);
  return `## ${section}\n${lines.join("\n")}`;
}

function renderItem(item: string): string {
  return `- ${item.replace(/\n/g, "\n  ")}`;
}

/**
 * Splits a summary into its sections. Headings are `## ` lines matched loosely (case, `&` or `/`,
 * OpenClaw's and pi's names such as `Decisions` or `Constraints & Preferences`); `###` lines are
 * content. Never throws; text without headings is all preamble.
 */
export function parseSummary(text: string): ParsedSummary {
  const parsed: ParsedSummary = { sections: {}, preamble: "", extraSections: [] };
  const preamble: string[] = [];
  let current: { section?: SummarySection; heading: string; lines: string[] } | undefined;
  const flush = () => {
    if (current === undefined) return;
    if (current.section === undefined) {
      parsed.extraSections.push({ heading: current.heading, body: current.lines.join("\n").trim() });
    } else {
      const existing = parsed.sections[current.section] ?? [];
      parsed.sections[current.section] = [...existing, ...bodyItems(current.lines)];
    }
  };
  for (const line of text.split("\n")) {
    const heading = headingOf(line);
    if (heading === undefined) {
      (current?.lines ?? preamble).push(line);
      continue;
    }
    flush();
    current = { section: sectionNamed(heading), heading, lines: [] };
  }
  flush();
  parsed.preamble = preamble.join("\n").trim();
  return parsed;
}

/**
 * Adds every identifier that does not appear verbatim in `summary` to its `## Exact Identifiers`
 * section, one bullet each, creating the section (in `SUMMARY_SECTIONS` order) when it is missing.
 * "Verbatim" respects word edges: `30s` is not found inside `130s`, nor `v1.2.3` inside `v1.2.30`.
 * At most `limit` bullets are added, then `- …and N more identifiers`. Returns `summary` unchanged
 * when nothing is missing. Never throws.
 */
export function ensureIdentifiers(
  summary: string,
  identifiers: readonly string[],
  limit = MAX_SUMMARY_IDENTIFIERS,
): string {
  const missing = [...new Set(identifiers)].filter(
    (identifier) => identifier.trim().length > 0 && !containsVerbatim(summary, identifier),
  );
  if (missing.length === 0) return summary;
  const bullets = identifierBullets(missing, limit);
  const lines = summary.split("\n");
  const headingIndex = lines.findIndex((line) => sectionOfLine(line) === "Exact Identifiers");
  if (headingIndex >= 0) return appendToSection(lines, headingIndex, bullets).join("\n");
  return insertSection(lines, ["## Exact Identifiers", ...bullets]).join("\n");
}

/** Bullets for `identifiers`, at most `limit` of them, then a count of the rest. */
export function identifierBullets(identifiers: readonly string[], limit = MAX_SUMMARY_IDENTIFIERS): string[] {
  const shown = identifiers.slice(0, Math.max(0, limit)).map((identifier) => `- ${identifier}`);
  const rest = identifiers.length - shown.length;
  return rest > 0 ? [...shown, `- …and ${rest} more identifiers`] : shown;
}

/** Whether `identifier` occurs in `text` without a letter or digit glued to either edge. */
export function containsVerbatim(text: string, identifier: string): boolean {
  if (identifier.length === 0) return true;
  const wordStart = WORD_CHARACTER.test(identifier.charAt(0));
  const wordEnd = WORD_CHARACTER.test(identifier.charAt(identifier.length - 1));
  for (let index = text.indexOf(identifier); index >= 0; index = text.indexOf(identifier, index + 1)) {
    const before = text.charAt(index - 1);
    const after = text.charAt(index + identifier.length);
    const cleanStart = !wordStart || before === "" || !WORD_CHARACTER.test(before);
    const cleanEnd = !wordEnd || after === "" || !WORD_CHARACTER.test(after);
    if (cleanStart && cleanEnd) return true;
  }
  return false;
}

const WORD_CHARACTER = /[\p{L}\p{N}_]/u;

const SECTION_ALIASES: ReadonlyMap<string, SummarySection> = new Map([
  ["goal", "Goal"],
  ["goals", "Goal"],
  ["original request", "Goal"],
  ["constraints rules", "Constraints & Rules"],
  ["constraints preferences", "Constraints & Rules"],
  ["constraints", "Constraints & Rules"],
  ["progress", "Progress"],
  ["early progress", "Progress"],
  ["key decisions", "Key Decisions"],
  ["decisions", "Key Decisions"],
  ["open todos", "Open TODOs"],
  ["todos", "Open TODOs"],
  ["pending user asks", "Pending User Asks"],
  ["exact identifiers", "Exact Identifiers"],
  ["identifiers", "Exact Identifiers"],
  ["next steps", "Next Steps"],
  ["critical context", "Critical Context"],
  ["context for suffix", "Critical Context"],
]);

function headingOf(line: string): string | undefined {
  const match = /^##(?!#)\s+(.+?)\s*#*\s*$/.exec(line);
  return match?.[1];
}

function sectionNamed(heading: string): SummarySection | undefined {
  const key = heading
    .toLowerCase()
    .replace(/[^a-z]+/g, " ")
    .trim();
  return SECTION_ALIASES.get(key);
}

function sectionOfLine(line: string): SummarySection | undefined {
  const heading = headingOf(line);
  return heading === undefined ? undefined : sectionNamed(heading);
}

/** Bullets start items; indented lines continue them; `(none)` and blank lines are dropped. */
function bodyItems(lines: readonly string[]): string[] {
  const items: string[] = [];
  for (const line of lines) {
    if (line.trim().length === 0) continue;
    const bullet = /^\s{0,1}[-*+]\s+(.*)$/.exec(line);
    const last = items.length - 1;
    if (bullet === null) {
      if (/^\s{2,}\S/.test(line) && last >= 0) items[last] = `${items[last]}\n${line.trim()}`;
      else items.push(line.trim());
      continue;
    }
    items.push((bullet[1] ?? "").trim());
  }
  return items.filter((item) => !/^\(none\)$/i.test(item));
}

function appendToSection(lines: string[], headingIndex: number, bullets: readonly string[]): string[] {
  let end = lines.findIndex((line, index) => index > headingIndex && headingOf(line) !== undefined);
  if (end < 0) end = lines.length;
  let lastContent = end - 1;
  while (lastContent > headingIndex && (lines[lastContent] ?? "").trim().length === 0) lastContent--;
  const body = lines
    .slice(headingIndex + 1, lastContent + 1)
    .filter((line) => !/^\s*[-*]\s+\(none\)\s*$/i.test(line));
  return [...lines.slice(0, headingIndex + 1), ...body, ...bullets, ...lines.slice(lastContent + 1)];
}

/** Puts the new section before the first heading that comes after it in `SUMMARY_SECTIONS`. */
function insertSection(lines: string[], sectionLines: readonly string[]): string[] {
  const order = SUMMARY_SECTIONS.indexOf("Exact Identifiers");
  const before = lines.findIndex((line) => {
    const section = sectionOfLine(line);
    return section !== undefined && SUMMARY_SECTIONS.indexOf(section) > order;
  });
  if (before < 0) {
    const trimmed = [...lines];
    while (trimmed.length > 0 && (trimmed.at(-1) ?? "").trim().length === 0) trimmed.pop();
    return trimmed.length === 0 ? [...sectionLines] : [...trimmed, "", ...sectionLines];
  }
  return [...lines.slice(0, before), ...sectionLines, "", ...lines.slice(before)];
}
