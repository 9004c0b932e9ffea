import { describe, expect, it } from "vitest";
import { type ChatCommand, parseChatInput } from "../../src/commands/index.js";

const authorized = { authorized: true };

function command(text: string): ChatCommand {
  const parsed = parseChatInput(text, authorized);
  if (parsed.kind !== "command") throw new Error(`expected a command for ${JSON.stringify(text)}`);
  return parsed;
}

describe("standalone commands", () => {
  it.each([
    ["/status", "status"],
    ["/STATUS", "status"],
    ["/reset", "reset"],
    ["/help", "help"],
    ["/commands", "commands"],
    ["/model", "model"],
    ["/think", "think"],
    ["/thinking", "think"],
    ["/t", "think"],
    ["/verbose", "verbose"],
    ["/v", "verbose"],
    ["/reasoning", "reasoning"],
    ["/reason", "reasoning"],
    ["/new", "new"],
    ["/compact", "compact"],
    ["/context", "context"],
    ["/usage", "usage"],
    ["  /status \n", "status"],
    ["/think:", "think"],
  ])("recognises %j as the %s command", (text, name) => {
    const parsed = command(text);
    expect(parsed.name).toBe(name);
    expect(parsed.args).toBe("");
    expect(parsed.raw).toBe(text.trim());
    expect(parsed.error).toBeUndefined();
  });

  it.each([
    ["/context", "list"],
    ["/context list", "list"],
    ["/context show", "list"],
    ["/context detail", "detail"],
    ["/context deep", "detail"],
    ["/context JSON", "json"],
    ["/context map", "map"],
    ["/context: map", "map"],
    ["/context:detail", "detail"],
  ])("reads %j as context mode %s", (text, mode) => {
    expect(command(text)).toMatchObject({ name: "context", mode });
  });

  it("answers an unknown /context mode with the valid modes", () => {
    expect(command("/context nope")).toMatchObject({
      name: "context",
      error: 'Unknown /context mode "nope".\nUsage: /context list|detail|json|map',
    });
    expect(command("/context help").error).toBe("Usage: /context list|detail|json|map");
    expect(command("/context constructor").error).toContain('Unknown /context mode "constructor"');
  });

  it.each([
    ["/compact", undefined, ""],
    ["/compact Focus on the API decisions", "Focus on the API decisions", "Focus on the API decisions"],
    ["/compact: keep the file names", "keep the file names", "keep the file names"],
    ["/compact:  spaced  out ", "spaced  out", "spaced  out"],
    ["/compact keep /think high verbatim", "keep /think high verbatim", "keep /think high verbatim"],
  ])("takes %j's instructions as the raw text after it", (text, instructions, args) => {
    const parsed = command(text);
    expect(parsed).toMatchObject({ name: "compact", args });
    expect(parsed.name === "compact" ? parsed.instructions : "not compact").toBe(instructions);
  });

  it.each([
    ["/usage", "cycle"],
    ...["off", "false", "no", "0", "disable", "disabled", "OFF"].map((word) => [`/usage ${word}`, "off"]),
    ...["on", "true", "yes", "1", "enable", "enabled", "tokens", "token", "tok", "minimal", "min"].map(
      (word) => [`/usage ${word}`, "tokens"],
    ),
    ["/usage full", "full"],
    ["/usage session", "full"],
    ["/usage: full", "full"],
  ])("normalises %j to usage mode %s", (text, mode) => {
    expect(command(text as string)).toMatchObject({ name: "usage", mode });
  });

  it("answers a bad /usage argument with the usage line", () => {
    expect(command("/usage loud").error).toBe("⚙️ Usage: /usage off|tokens|full");
    expect(command("/usage off now").error).toBe("⚙️ Usage: /usage off|tokens|full");
  });

  it("takes /new's single argument as the model and rejects more", () => {
    const withModel = command("/new openai/gpt-4o");
    expect(withModel.name === "new" ? withModel.model : "not new").toBe("openai/gpt-4o");
    expect(command("/new: anthropic/claude").name === "new").toBe(true);
    expect(command("/new a b").error).toBe("⚙️ Usage: /new [model]");
  });

  it("rejects arguments to /reset", () => {
    expect(command("/reset soft").error).toBe("⚙️ Usage: /reset");
  });
});

describe("what is not a standalone command", () => {
  it.each(["/something", "/foo bar", "/statusx", "/stat", "/", "/ status", "hello /status?", "//status"])(
    "keeps %j as plain text for the model",
    (text) => {
      const parsed = parseChatInput(text, authorized);
      expect(parsed.kind).toBe("message");
    },
  );

  it("passes unknown slash words to the model unchanged", () => {
    expect(parseChatInput("/something weird here", authorized)).toEqual({
      kind: "message",
      text: "/something weird here",
      directives: [],
      inline: [],
      directiveOnly: false,
    });
  });

  it("treats setting commands with an argument as directive-only messages", () => {
    const parsed = parseChatInput("/model openai/gpt-4o", authorized);
    expect(parsed).toMatchObject({ kind: "message", directiveOnly: true, text: "" });
  });

  it("treats /status with text after it as an inline shortcut plus text", () => {
    expect(parseChatInput("/status what changed?", authorized)).toMatchObject({
      kind: "message",
      text: "what changed?",
      inline: [{ name: "status", raw: "/status" }],
    });
  });
});
