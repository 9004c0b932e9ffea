/**
 * What `parseChatInput` makes of one chat message (reference §12).
 *
 * A message is either a standalone command (`kind: "command"`, never sent to the model) or a
 * message for the model (`kind: "message"`) from which directives and inline shortcuts have been
 * taken out. Setting commands with an argument (`/think high`, `/model x`) are directive-only
 * messages, not commands, so persisting and acknowledging a setting has one path
 * (`applyDirectives`); without an argument they are commands that show the current value.
 */
import type { ReasoningLevel, ThinkingLevel, UsageMode, VerboseLevel } from "./settings.js";

export const CONTEXT_MODES = ["list", "detail", "json", "map"] as const;
export type ContextMode = (typeof CONTEXT_MODES)[number];

interface CommandBase {
  kind: "command";
  /** The trimmed message as typed. */
  raw: string;
  /** The text after the command name, optional leading `:` removed, trimmed; `""` when none. */
  args: string;
  /**
   * Set when the command is known but its argument is not valid: the text to answer with. The
   * caller replies with it and does nothing else.
   */
  error?: string;
}

export type ChatCommand =
  | (CommandBase & { name: "status" | "reset" | "help" | "commands" })
  /** Without an argument these show the current value (with one they are directives). */
  | (CommandBase & { name: "think" | "verbose" | "reasoning" | "model" })
  | (CommandBase & { name: "context"; mode: ContextMode })
  | (CommandBase & { name: "compact"; instructions?: string })
  /** `cycle` when no mode was given: off → tokens → full → off. */
  | (CommandBase & { name: "usage"; mode: UsageMode | "cycle" })
  | (CommandBase & { name: "new"; model?: string });

export type ChatCommandName = ChatCommand["name"];

interface DirectiveBase {
  /** The directive as it appeared in the message, e.g. `/t: high`. */
  raw: string;
}

/** A recognised directive with a valid value. */
export type ValidDirective = DirectiveBase & { error?: undefined } & (
    | { kind: "think"; level: ThinkingLevel }
    | { kind: "verbose"; level: VerboseLevel }
    | { kind: "reasoning"; level: ReasoningLevel }
    | { kind: "model"; ref: string }
  );

/** A directive whose level is not one of the valid ones; `error` says which are. */
export interface InvalidDirective extends DirectiveBase {
  kind: "think" | "verbose" | "reasoning";
  /** The level as typed. */
  value: string;
  error: string;
}

export type Directive = ValidDirective | InvalidDirective;

/** Inline shortcuts answer at once and are stripped; the rest of the message still runs. */
export interface InlineShortcut {
  name: "help" | "commands" | "status";
  raw: string;
}

export interface ChatMessageInput {
  kind: "message";
  /** What the model sees: the message without directives and shortcuts, trimmed. */
  text: string;
  /** In extraction order: think, verbose, reasoning, model; in text order within a kind. */
  directives: Directive[];
  inline: InlineShortcut[];
  /**
   * True when directives or shortcuts were taken out and no text is left: the caller persists
   * the directives, answers, and does not run the model.
   */
  directiveOnly: boolean;
}

export type ParsedChatInput = ChatCommand | ChatMessageInput;

export interface ParseChatInputOptions {
  /** Unauthorized senders get no commands, directives or shortcuts: everything is plain text. */
  authorized: boolean;
}
