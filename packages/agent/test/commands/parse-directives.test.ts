import { describe, expect, it } from "vitest";
import { type ChatMessageInput, parseChatInput } from "../../src/commands/index.js";

function message(text: string, authorized = true): ChatMessageInput {
  const parsed = parseChatInput(text, { authorized });
  if (parsed.kind !== "message") throw new Error(`expected a message for ${JSON.stringify(text)}`);
  return parsed;
}

/** Directives as compact strings (`think=high`) so tables stay readable. */
function summary(text: string): { text: string; directives: string[]; directiveOnly: boolean } {
  const parsed = message(text);
  const directives = parsed.directives.map((directive) => {
    if (directive.error !== undefined) return `${directive.kind}!${directive.value}`;
    return directive.kind === "model" ? `model=${directive.ref}` : `${directive.kind}=${directive.level}`;
  });
  return { text: parsed.text, directives, directiveOnly: parsed.directiveOnly };
}

describe("directive names and levels", () => {
  it.each([
    ["/think high", "think=high"],
    ["/thinking low", "think=low"],
    ["/t minimal", "think=minimal"],
    ["/T XHIGH", "think=xhigh"],
    ["/think off", "think=off"],
    ["/think medium", "think=medium"],
    ["/think on", "think=low"],
    ["/think min", "think=minimal"],
    ["/think x-high", "think=xhigh"],
    ["/think:high", "think=high"],
    ["/think: high", "think=high"],
    ["/think : high", "think=high"],
    ["/verbose on", "verbose=on"],
    ["/verbose off", "verbose=off"],
    ["/v full", "verbose=full"],
    ["/v:full", "verbose=full"],
    ["/reasoning on", "reasoning=on"],
    ["/reasoning stream", "reasoning=stream"],
    ["/reason off", "reasoning=off"],
    ["/reason show", "reasoning=on"],
    ["/model openai/gpt-4o", "model=openai/gpt-4o"],
    ["/model: anthropic/claude@work", "model=anthropic/claude@work"],
  ])("reads %j alone as the directive-only %s", (text, directive) => {
    expect(summary(text)).toEqual({ text: "", directives: [directive], directiveOnly: true });
  });

  it.each([
    ["/think hard", "think!hard", "off, minimal, low, medium, high, xhigh"],
    ["/v loud", "verbose!loud", "off, on, full"],
    ["/reasoning maybe", "reasoning!maybe", "off, on, stream"],
  ])("marks the invalid level in %j with an error listing the valid levels", (text, directive, valid) => {
    const parsed = message(text);
    expect(summary(text).directives).toEqual([directive]);
    expect(parsed.directives[0]?.error).toContain(`Valid levels: ${valid}.`);
    expect(parsed.directiveOnly).toBe(true);
  });

  it("spells out the invalid level and the valid ones", () => {
    expect(message("/think hard").directives[0]?.error).toBe(
      '⚠️ Unrecognized thinking level "hard". Valid levels: off, minimal, low, medium, high, xhigh.',
    );
  });
});

describe("directives inside text", () => {
  it.each([
    ["/think high explain monads", "explain monads", ["think=high"]],
    ["explain monads /think high", "explain monads", ["think=high"]],
    ["explain /t low monads please", "explain monads please", ["think=low"]],
    ["summarise this /v", "summarise this", ["verbose=on"]],
    ["fix it /model openai/gpt-4o now", "fix it now", ["model=openai/gpt-4o"]],
    ["  a   /think high   b  ", "a b", ["think=high"]],
    ["keep  double  spaces /t low", "keep  double  spaces", ["think=low"]],
  ])("takes the directives out of %j", (text, remaining, directives) => {
    expect(summary(text)).toEqual({ text: remaining, directives, directiveOnly: false });
  });

  it("keeps a line break where a removed directive separated two lines", () => {
    expect(message("first line\n/think high\nsecond line").text).toBe("first line\nsecond line");
    expect(message("code:\n    indented /t low\n    more").text).toBe("code:\n    indented\n    more");
  });

  it("extracts in the fixed order think, verbose, reasoning, model whatever the text order", () => {
    expect(summary("/model m1 /reasoning on /v full /think high go").directives).toEqual([
      "think=high",
      "verbose=full",
      "reasoning=on",
      "model=m1",
    ]);
  });

  it("extracts every occurrence of a kind in text order", () => {
    expect(summary("/t low and /t high").directives).toEqual(["think=low", "think=high"]);
  });

  it("lets an earlier kind take its token before /model could swallow it", () => {
    expect(summary("/model /think high")).toEqual({
      text: "/model",
      directives: ["think=high"],
      directiveOnly: false,
    });
    expect(summary("/model /status")).toMatchObject({ text: "/model", directives: [] });
  });

  it.each([
    "see http://host/think high",
    "a/think high",
    "/thinkhigh",
    "/think2 high",
    "/tea time",
    "/models list",
  ])("leaves %j alone: the name is not a standalone token", (text) => {
    expect(summary(text)).toEqual({ text, directives: [], directiveOnly: false });
  });

  it.each([
    ["please /think", "please /think"],
    ["/think 42 things", "/think 42 things"],
    ["/think\nhigh", "/think\nhigh"],
    ["/reasoning", undefined],
    ["use /model", "use /model"],
  ])("leaves %j as text when a required argument is missing", (text, remaining) => {
    const parsed = parseChatInput(text, { authorized: true });
    if (remaining === undefined) {
      expect(parsed.kind).toBe("command");
      return;
    }
    expect(parsed).toMatchObject({ kind: "message", text: remaining, directives: [] });
  });

  it("keeps the directive as typed in raw", () => {
    expect(message("go /t: high now").directives[0]?.raw).toBe("/t: high");
  });
});

describe("inline shortcuts", () => {
  it.each([
    ["what is up /status", "what is up", ["status"]],
    ["/help me understand this", "me understand this", ["help"]],
    ["list them /commands please", "list them please", ["commands"]],
    ["/status: and then", "and then", ["status"]],
    ["/help /status", "", ["help", "status"]],
  ])("takes the shortcuts out of %j", (text, remaining, names) => {
    const parsed = message(text);
    expect(parsed.text).toBe(remaining);
    expect(parsed.inline.map((shortcut) => shortcut.name)).toEqual(names);
  });

  it("counts a message of shortcuts and directives only as directive-only", () => {
    const parsed = message("/think high /status");
    expect(parsed.directiveOnly).toBe(true);
    expect(parsed.inline).toEqual([{ name: "status", raw: "/status" }]);
  });

  it("does not take shortcuts out of paths", () => {
    expect(message("open docs/help and /usr/status").inline).toEqual([]);
  });
});

describe("unauthorized senders", () => {
  it.each([
    "/status",
    "/think high",
    "/model evil/model",
    "/compact",
    "hello /think high /status",
    "/usage full",
  ])("get %j back as plain text", (text) => {
    expect(parseChatInput(text, { authorized: false })).toEqual({
      kind: "message",
      text,
      directives: [],
      inline: [],
      directiveOnly: false,
    });
  });

  it("get their text trimmed but otherwise untouched", () => {
    expect(message("  a  /t  high  \n", false).text).toBe("a  /t  high");
  });
});

describe("plain messages", () => {
  it("reports no directives and not directive-only", () => {
    expect(parseChatInput("just a question", { authorized: true })).toEqual({
      kind: "message",
      text: "just a question",
      directives: [],
      inline: [],
      directiveOnly: false,
    });
  });

  it("does not call an empty message directive-only", () => {
    expect(message("   ").directiveOnly).toBe(false);
  });
});

describe("large messages", () => {
  it("parses a 200 kB message with thousands of directives without quadratic slowdown", () => {
    const text = "some words /t high and more /model x/y then /status ok\n".repeat(3600);
    const started = performance.now();
    const parsed = message(text);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(parsed.directives).toHaveLength(7200);
    expect(parsed.text.startsWith("some words and more then ok\nsome words")).toBe(true);
  });
});
