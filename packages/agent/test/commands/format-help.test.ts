import { describe, expect, it } from "vitest";
import { formatHelp, parseChatInput } from "../../src/commands/index.js";

const GOLDEN_HELP = [
  "ℹ️ Commands",
  "/status — model, usage, context, engine and session at a glance",
  "/context [list|detail|json|map] — what the model sees on each run",
  "/compact [instructions] — summarise older history now",
  "/usage [off|tokens|full] — usage footer under replies (no argument cycles)",
  "/new [model] — start a fresh session, optionally on another model",
  "/reset — start a fresh session",
  "/model [provider/model] — show or set the session's model",
  "/think [level] — show or set thinking (off, minimal, low, medium, high, xhigh)",
  "/verbose [on|off|full] — show or set tool output detail",
  "/reasoning [on|off|stream] — show or set how model reasoning is shown",
  "/help, /commands — this list",
  "",
  "🧭 Directives (anywhere in a message)",
  "/think|/thinking|/t <level>",
  "/verbose|/v [on|off|full]",
  "/reasoning|/reason <on|off|stream>",
  "/model <provider/model>",
  "A message of only directives changes the session; inside a message they apply to that message only, except /model, which sticks.",
  "/help, /commands and /status also work inside a message; the rest of it still goes to the model.",
].join("\n");

describe("formatHelp", () => {
  it("matches the golden help text", () => {
    expect(formatHelp()).toBe(GOLDEN_HELP);
  });

  it("lists only commands the parser recognises", () => {
    const listed = formatHelp()
      .split("\n")
      .slice(1, 12)
      .map((line) => line.split(/[ ,]/)[0] ?? "");
    for (const name of listed) expect(parseChatInput(name, { authorized: true }).kind).toBe("command");
  });
});
