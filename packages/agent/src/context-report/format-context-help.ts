/**
 * The `/context` and `/context help` answer (reference §2.1, Clew's wording): what the command
 * shows, the modes, and how inline shortcuts behave. Pure; never throws.
 */
export function formatContextHelp(): string {
  return [
    "🧠 /context",
    "What the model sees on each run: system prompt, injected workspace files, skills, tool schemas and history, with their sizes.",
    "Try:",
    "- /context list — short breakdown",
    "- /context detail — by prompt section, file, skill and tool",
    "- /context map — treemap image of the latest run",
    "- /context json — the same data, machine-readable",
    "Sizes come from the latest run's report; before the first run, list, detail and json show an estimate and map waits for a run.",
    "Inline shortcuts: /help, /commands and /status also work inside a normal message; they answer at once and the rest of the message still goes to the model.",
  ].join("\n");
}
