import { THINKING_LEVELS } from "./settings.js";

const COMMAND_LINES = [
  "/status — model, usage, context, engine and session at a glance",
  "/context [list|detail|json|map] — what the model sees on each run",
  "/compact [instructions] — summarise older history now",
  "/usage [off|tokens|full] — usage footer under replies (no argument cycles)",
  "/new [model] — start a fresh session, optionally on another model",
  "/reset — start a fresh session",
  "/model [provider/model] — show or set the session's model",
  `/think [level] — show or set thinking (${THINKING_LEVELS.join(", ")})`,
  "/verbose [on|off|full] — show or set tool output detail",
  "/reasoning [on|off|stream] — show or set how model reasoning is shown",
  "/help, /commands — this list",
];

const DIRECTIVE_LINES = [
  "/think|/thinking|/t <level>",
  "/verbose|/v [on|off|full]",
  "/reasoning|/reason <on|off|stream>",
  "/model <provider/model>",
];

/**
 * The answer to `/help` and `/commands`: every command, then the directives and how they apply
 * (alone they change the session; inside a message they apply to it only, except `/model`).
 */
export function formatHelp(): string {
  return [
    "ℹ️ Commands",
    ...COMMAND_LINES,
    "",
    "🧭 Directives (anywhere in a message)",
    ...DIRECTIVE_LINES,
    "A message of only directives changes the session; inside a message they apply to that message only, except /model, which sticks.",
    "/help, /commands and /status also work inside a message; the rest of it still goes to the model.",
  ].join("\n");
}
