/**
 * Recognises a message that is only a standalone command (reference §12). Names are matched
 * case-insensitively; an optional `:` may sit between the name and its arguments.
 */
import { type ChatCommand, type ChatCommandName, CONTEXT_MODES, type ContextMode } from "./chat-input.js";
import { normalizeUsageMode } from "./settings.js";

const COMMAND_NAMES: Readonly<Record<string, ChatCommandName>> = {
  status: "status",
  context: "context",
  compact: "compact",
  usage: "usage",
  new: "new",
  reset: "reset",
  model: "model",
  think: "think",
  thinking: "think",
  t: "think",
  verbose: "verbose",
  v: "verbose",
  reasoning: "reasoning",
  reason: "reasoning",
  help: "help",
  commands: "commands",
};

const CONTEXT_ALIASES: Readonly<Record<string, ContextMode>> = { show: "list", deep: "detail" };

export const CONTEXT_USAGE = `Usage: /context ${CONTEXT_MODES.join("|")}`;
export const USAGE_USAGE = "⚙️ Usage: /usage off|tokens|full";
export const NEW_USAGE = "⚙️ Usage: /new [model]";
export const RESET_USAGE = "⚙️ Usage: /reset";

const COMMAND_PATTERN = /^\/([A-Za-z]+)(?=$|\s|:)/;

/**
 * The command `text` (already trimmed) consists of, or `undefined` when it is not one: unknown
 * names, and commands that take no argument but have text after them (`/status what's up` is
 * an inline shortcut plus text), and setting commands with an argument (those are directives).
 * Known commands with a bad argument come back with `error` set.
 */
export function parseStandaloneCommand(text: string): ChatCommand | undefined {
  const match = COMMAND_PATTERN.exec(text);
  const word = match?.[1]?.toLowerCase();
  if (match === null || word === undefined || !Object.hasOwn(COMMAND_NAMES, word)) return undefined;
  const name = COMMAND_NAMES[word];
  if (name === undefined) return undefined;
  const args = text.slice(match[0].length).trim().replace(/^:/, "").trim();
  const base = { kind: "command" as const, raw: text, args };
  switch (name) {
    case "status":
    case "help":
    case "commands":
    case "think":
    case "verbose":
    case "reasoning":
    case "model":
      return args === "" ? { ...base, name } : undefined;
    case "reset":
      return args === "" ? { ...base, name } : { ...base, name, error: RESET_USAGE };
    case "context":
      return parseContextCommand(base);
    case "compact":
      return args === "" ? { ...base, name } : { ...base, name, instructions: args };
    case "usage":
      return parseUsageCommand(base);
    case "new":
      return parseNewCommand(base);
  }
}

type Base = { kind: "command"; raw: string; args: string };

function parseContextCommand(base: Base): ChatCommand {
  const word = (base.args.split(/\s+/)[0] ?? "").toLowerCase();
  if (word === "") return { ...base, name: "context", mode: "list" };
  const alias = Object.hasOwn(CONTEXT_ALIASES, word) ? CONTEXT_ALIASES[word] : undefined;
  const mode = CONTEXT_MODES.find((candidate) => candidate === word) ?? alias;
  if (mode !== undefined) return { ...base, name: "context", mode };
  const error = word === "help" ? CONTEXT_USAGE : `Unknown /context mode "${word}".\n${CONTEXT_USAGE}`;
  return { ...base, name: "context", mode: "list", error };
}

function parseUsageCommand(base: Base): ChatCommand {
  if (base.args === "") return { ...base, name: "usage", mode: "cycle" };
  const mode = normalizeUsageMode(base.args);
  if (mode !== undefined) return { ...base, name: "usage", mode };
  return { ...base, name: "usage", mode: "cycle", error: USAGE_USAGE };
}

function parseNewCommand(base: Base): ChatCommand {
  if (base.args === "") return { ...base, name: "new" };
  if (/\s/.test(base.args)) return { ...base, name: "new", error: NEW_USAGE };
  return { ...base, name: "new", model: base.args };
}
