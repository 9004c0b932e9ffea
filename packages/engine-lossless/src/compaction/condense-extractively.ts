/**
 * Folds several summaries into one without a model: the sections of each (`parseSummary` from
 * core) are merged item by item, duplicates removed. The goal is the first one stated; pending
 * asks and next steps are the newest child's, because older ones were answered or done. Over the
 * length budget, identifiers are first held to `IDENTIFIER_SHARE` of it (every one stays in the
 * node's anchors), then the longest section gives up its oldest items until the text fits.
 * Deterministic and never throws: it is the fallback when a model cannot condense.
 */
import {
  parseSummary,
  renderSummary,
  SUMMARY_SECTIONS,
  type SummaryItems,
  type SummarySection,
} from "@clew/core";

/** Most of the length budget the identifier list may take before other sections lose items. */
const IDENTIFIER_SHARE = 0.3;

/** Sections that describe the newest state: older children's items are superseded. */
const NEWEST_ONLY: ReadonlySet<SummarySection> = new Set(["Pending User Asks", "Next Steps"]);

export function condenseExtractively(bodies: readonly string[], maxTokens: number): string {
  const merged = new Map<SummarySection, string[]>(SUMMARY_SECTIONS.map((section) => [section, []]));
  // The items already in each merged section, so a child's items are added in one pass each
  // (identifier lists run to hundreds of items per child).
  const present = new Map<SummarySection, Set<string>>();
  const append = (section: SummarySection, items: readonly string[]) => {
    const list = merged.get(section) ?? [];
    let seen = present.get(section);
    if (seen === undefined) {
      seen = new Set(list);
      present.set(section, seen);
    }
    for (const item of items) {
      if (seen.has(item)) continue;
      seen.add(item);
      list.push(item);
    }
    merged.set(section, list);
  };
  const preambles: string[] = [];
  for (const body of bodies) {
    const parsed = parseSummary(body);
    if (parsed.preamble.length > 0) preambles.push(parsed.preamble);
    for (const section of SUMMARY_SECTIONS) {
      const items = parsed.sections[section] ?? [];
      if (items.length === 0) continue;
      const current = merged.get(section) ?? [];
      if (section === "Goal") merged.set(section, current.length > 0 ? current : items);
      else if (NEWEST_ONLY.has(section)) merged.set(section, items);
      else append(section, items);
    }
  }
  if (preambles.length > 0) append("Critical Context", preambles);
  return shrinkToBudget(merged, maxTokens * 4);
}

function shrinkToBudget(sections: Map<SummarySection, string[]>, maxChars: number): string {
  const identifiers = sections.get("Exact Identifiers") ?? [];
  let identifierChars = sizeOf(identifiers);
  while (identifiers.length > 0 && identifierChars > maxChars * IDENTIFIER_SHARE) {
    identifierChars -= (identifiers.shift() ?? "").length + 3;
  }
  const sizes = new Map([...sections].map(([section, items]) => [section, sizeOf(items)]));
  const render = () => renderSummary(Object.fromEntries(sections) as SummaryItems);
  // Rendering adds a heading per section and "- (none)" per empty one; the sizes track items only.
  const overhead = render().length - sum([...sizes.values()]);
  while (overhead + sum([...sizes.values()]) > maxChars) {
    const longest = longestSection(sizes);
    const items = longest === undefined ? undefined : sections.get(longest);
    if (longest === undefined || items === undefined || items.length === 0) break;
    const removed = items.shift() ?? "";
    sizes.set(longest, (sizes.get(longest) ?? 0) - removed.length - 3);
  }
  return render();
}

/** The section with the most characters of items. */
function longestSection(sizes: ReadonlyMap<SummarySection, number>): SummarySection | undefined {
  let best: SummarySection | undefined;
  let bestSize = 0;
  for (const [section, size] of sizes) {
    if (size > bestSize) {
      best = section;
      bestSize = size;
    }
  }
  return best;
}

/** Characters the items take rendered as bullets ("- " and a newline each). */
function sizeOf(items: readonly string[]): number {
  return items.reduce((total, item) => total + item.length + 3, 0);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
