/**
 * Applies parsed directives and setting commands to session settings (reference §12, §3.2).
 * Pure: the caller stores `settings` and uses `messageSettings` for the run.
 */
import type { Directive, ValidDirective } from "./chat-input.js";
import { nextUsageMode, type SessionSettings, THINKING_LEVELS, type UsageMode } from "./settings.js";

export interface ApplyDirectivesOptions {
  /**
   * True for a directive-only message: every directive is stored on the session. False for a
   * message with text: directives apply to this message only, except `/model`, which is stored.
   */
  persist: boolean;
}

export interface ApplyDirectivesResult {
  /** What the session stores from now on. */
  settings: SessionSettings;
  /** What this message runs with: `settings` plus the per-message hints. */
  messageSettings: SessionSettings;
  /** One line per applied directive, in order, e.g. `⚙️ Thinking level: high.` */
  acknowledgements: string[];
  /**
   * The errors of invalid directives. When there is any, nothing is applied (`settings` and
   * `messageSettings` equal the input) and the caller answers with them instead of running the
   * model, so a half-understood message never changes the session.
   */
  errors: string[];
}

const MESSAGE_ONLY = " (this message only)";

/** Never mutates `settings`; never throws. Later directives of the same kind win. */
export function applyDirectives(
  settings: SessionSettings,
  directives: readonly Directive[],
  options: ApplyDirectivesOptions,
): ApplyDirectivesResult {
  const errors = directives.flatMap((directive) => (directive.error === undefined ? [] : [directive.error]));
  if (errors.length > 0) {
    return { settings: { ...settings }, messageSettings: { ...settings }, acknowledgements: [], errors };
  }
  const stored: SessionSettings = { ...settings };
  const hints: SessionSettings = {};
  const acknowledgements: string[] = [];
  for (const directive of directives.filter(isValidDirective)) {
    const persisted = options.persist || directive.kind === "model";
    applyOne(persisted ? stored : hints, directive);
    acknowledgements.push(acknowledgementOf(directive) + (persisted ? "." : `${MESSAGE_ONLY}.`));
  }
  return { settings: stored, messageSettings: { ...stored, ...hints }, acknowledgements, errors: [] };
}

function isValidDirective(directive: Directive): directive is ValidDirective {
  return directive.error === undefined;
}

function applyOne(target: SessionSettings, directive: ValidDirective): void {
  if (directive.kind === "think") target.thinkingLevel = directive.level;
  else if (directive.kind === "verbose") target.verbose = directive.level;
  else if (directive.kind === "reasoning") target.reasoning = directive.level;
  else target.model = directive.ref;
}

function acknowledgementOf(directive: ValidDirective): string {
  if (directive.kind === "think") return `⚙️ Thinking level: ${directive.level}`;
  if (directive.kind === "verbose") return `⚙️ Verbose: ${directive.level}`;
  if (directive.kind === "reasoning") return `⚙️ Reasoning: ${directive.level}`;
  return `⚙️ Model: ${directive.ref}`;
}

/**
 * `/usage [mode]`: stores the given mode, or the next one in the cycle when the command had
 * none (`cycle`). Answers `⚙️ Usage footer: <mode>.` Never mutates `settings`.
 */
export function applyUsageCommand(
  settings: SessionSettings,
  mode: UsageMode | "cycle",
): { settings: SessionSettings; acknowledgement: string } {
  const next = mode === "cycle" ? nextUsageMode(settings.usageMode) : mode;
  return { settings: { ...settings, usageMode: next }, acknowledgement: `⚙️ Usage footer: ${next}.` };
}

/** Defaults the session falls back to when a setting is unset; shown by the bare commands. */
export interface SettingDefaults {
  thinkingLevel: string;
  verbose: string;
  reasoning: string;
  model: string;
}

/**
 * The answer to a bare `/think`, `/verbose`, `/reasoning` or `/model`: the current value (the
 * default when unset) and how to change it.
 */
export function formatCurrentSetting(
  name: "think" | "verbose" | "reasoning" | "model",
  settings: SessionSettings,
  defaults: SettingDefaults,
): string {
  if (name === "think") {
    const level = settings.thinkingLevel ?? defaults.thinkingLevel;
    return `⚙️ Thinking level: ${level}. Options: ${THINKING_LEVELS.join(", ")}.`;
  }
  if (name === "verbose")
    return `⚙️ Verbose: ${settings.verbose ?? defaults.verbose}. Options: off, on, full.`;
  if (name === "reasoning") {
    return `⚙️ Reasoning: ${settings.reasoning ?? defaults.reasoning}. Options: off, on, stream.`;
  }
  return `⚙️ Model: ${settings.model ?? defaults.model}. Change it with /model <provider/model>.`;
}
