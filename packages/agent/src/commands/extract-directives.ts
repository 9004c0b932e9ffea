/**
 * Takes directives and inline shortcuts out of a message (reference §12).
 *
 * A directive is the token `/<name>` at the start of the message or after whitespace, ended by
 * whitespace, `:` or the end; an optional `:` and spaces may separate it from its argument.
 * Levels are one `[A-Za-z-]+` word on the same line; a model reference is one non-space token.
 * Kinds are extracted in a fixed order (think, verbose, reasoning, inline shortcuts, model), each
 * on what the earlier kinds left, so `/model /status` never takes `/status` as a model name.
 */
import type { Directive, InlineShortcut } from "./chat-input.js";
import {
  normalizeReasoningLevel,
  normalizeThinkingLevel,
  normalizeVerboseLevel,
  REASONING_LEVELS,
  THINKING_LEVELS,
  VERBOSE_LEVELS,
} from "./settings.js";
import { createTextMask, maskView, remainingText, removeRange, type TextMask } from "./text-mask.js";

type LevelKind = "think" | "verbose" | "reasoning";

interface LevelSpec {
  kind: LevelKind;
  names: readonly string[];
  /** Without a level the directive means this value; undefined when a level is required. */
  bareLevel?: string;
  validLevels: readonly string[];
  label: string;
}

const LEVEL_SPECS: readonly LevelSpec[] = [
  {
    kind: "think",
    names: ["thinking", "think", "t"],
    validLevels: THINKING_LEVELS,
    label: "thinking level",
  },
  {
    kind: "verbose",
    names: ["verbose", "v"],
    bareLevel: "on",
    validLevels: VERBOSE_LEVELS,
    label: "verbose level",
  },
  {
    kind: "reasoning",
    names: ["reasoning", "reason"],
    validLevels: REASONING_LEVELS,
    label: "reasoning level",
  },
];

const SHORTCUT_NAMES = ["help", "commands", "status"] as const;
const SEPARATOR = /[ \t]*:?[ \t]*/y;
const LEVEL_TOKEN = /[A-Za-z-]+(?=$|[\s.,;!?])/y;
const REFERENCE_TOKEN = /\S+/y;

export interface DirectiveExtraction {
  text: string;
  directives: Directive[];
  inline: InlineShortcut[];
}

/** Never throws; callers decide beforehand whether the sender may use directives at all. */
export function extractDirectives(text: string): DirectiveExtraction {
  const mask = createTextMask(text);
  const directives: Directive[] = [];
  const inline: InlineShortcut[] = [];
  for (const spec of LEVEL_SPECS) directives.push(...extractLevelDirectives(mask, spec));
  inline.push(...extractShortcuts(mask));
  directives.push(...extractModelDirectives(mask));
  return { text: remainingText(mask), directives, inline };
}

/** Group 1 is the whitespace before the name; capturing it is much faster than a lookbehind. */
function namePattern(names: readonly string[]): RegExp {
  return new RegExp(`(^|\\s)/(?:${names.join("|")})(?=$|\\s|:)`, "gi");
}

/**
 * Every occurrence in text order, found on the view as it was before this kind's pass. An
 * occurrence inside a range an earlier one of the same pass took (`/model /model x`) is skipped;
 * levels cannot contain `/`, so only a model reference can cover a later name.
 */
function findNames(mask: TextMask, names: readonly string[]): { view: string; start: number; end: number }[] {
  const view = maskView(mask);
  return Array.from(view.matchAll(namePattern(names)), (match) => ({
    view,
    start: match.index + (match[1] ?? "").length,
    end: match.index + match[0].length,
  }));
}

function matchArgument(
  view: string,
  from: number,
  token: RegExp,
): { value: string; end: number } | undefined {
  SEPARATOR.lastIndex = from;
  SEPARATOR.exec(view);
  token.lastIndex = SEPARATOR.lastIndex;
  const match = token.exec(view);
  if (match === null) return undefined;
  return { value: match[0], end: token.lastIndex };
}

function extractLevelDirectives(mask: TextMask, spec: LevelSpec): Directive[] {
  const found: Directive[] = [];
  for (const name of findNames(mask, spec.names)) {
    const argument = matchArgument(name.view, name.end, LEVEL_TOKEN);
    if (argument === undefined && spec.bareLevel === undefined) continue;
    const end = argument?.end ?? attachedColonEnd(mask, name.end);
    const raw = mask.text.slice(name.start, end);
    removeRange(mask, name.start, end);
    found.push(levelDirective(spec, argument?.value ?? spec.bareLevel ?? "", raw));
  }
  return found;
}

function attachedColonEnd(mask: TextMask, end: number): number {
  return mask.text.charAt(end) === ":" ? end + 1 : end;
}

function levelDirective(spec: LevelSpec, value: string, raw: string): Directive {
  const valid = validLevelDirective(spec.kind, value, raw);
  if (valid !== undefined) return valid;
  const error = `⚠️ Unrecognized ${spec.label} "${value}". Valid levels: ${spec.validLevels.join(", ")}.`;
  return { kind: spec.kind, value, error, raw };
}

function validLevelDirective(kind: LevelKind, value: string, raw: string): Directive | undefined {
  if (kind === "think") {
    const level = normalizeThinkingLevel(value);
    return level === undefined ? undefined : { kind, level, raw };
  }
  if (kind === "verbose") {
    const level = normalizeVerboseLevel(value);
    return level === undefined ? undefined : { kind, level, raw };
  }
  const level = normalizeReasoningLevel(value);
  return level === undefined ? undefined : { kind, level, raw };
}

function extractShortcuts(mask: TextMask): InlineShortcut[] {
  const found: InlineShortcut[] = [];
  for (const name of findNames(mask, SHORTCUT_NAMES)) {
    const end = attachedColonEnd(mask, name.end);
    const raw = mask.text.slice(name.start, end);
    removeRange(mask, name.start, end);
    const word = raw.slice(1).replace(/:$/, "").toLowerCase();
    const shortcut = SHORTCUT_NAMES.find((candidate) => candidate === word);
    if (shortcut !== undefined) found.push({ name: shortcut, raw });
  }
  return found;
}

function extractModelDirectives(mask: TextMask): Directive[] {
  const found: Directive[] = [];
  let takenUpTo = 0;
  for (const name of findNames(mask, ["model"])) {
    if (name.start < takenUpTo) continue;
    const argument = matchArgument(name.view, name.end, REFERENCE_TOKEN);
    if (argument === undefined) continue;
    const raw = mask.text.slice(name.start, argument.end);
    removeRange(mask, name.start, argument.end);
    takenUpTo = argument.end;
    found.push({ kind: "model", ref: argument.value, raw });
  }
  return found;
}
