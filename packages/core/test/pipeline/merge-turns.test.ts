import { describe, expect, it } from "vitest";
import {
  ensureUserFirst,
  mergeConsecutiveTurns,
  SESSION_BOOTSTRAP_TEXT,
} from "../../src/pipeline/merge-turns.js";
import { assistant, call, deepFreeze, image, result, text, user } from "./builders.js";

const both = { mergeConsecutiveUser: true, mergeConsecutiveAssistant: true };

describe("mergeConsecutiveTurns", () => {
  it("merges consecutive user messages into text blocks, keeping images in order", () => {
    const messages = deepFreeze([
      user("one", 1),
      { role: "user" as const, content: [image(), text("two")], timestamp: 2 },
    ]);
    expect(mergeConsecutiveTurns(messages, both)).toEqual([
      { role: "user", content: [text("one"), image(), text("two")], timestamp: 2 },
    ]);
  });

  it("merges consecutive assistant messages, keeping the later usage and stop reason", () => {
    const first = assistant([text("a")], { stopReason: "length", timestamp: 1 });
    const second = {
      ...assistant([text("b"), call("c")], { timestamp: 2 }),
      usage: { ...first.usage, output: 99 },
    };
    const [merged] = mergeConsecutiveTurns(deepFreeze([first, second]), both);
    expect(merged).toEqual({ ...second, content: [text("a"), text("b"), call("c")] });
  });

  it("merges runs of three", () => {
    expect(mergeConsecutiveTurns([user("a"), user("b"), user("c")], both)).toEqual([
      { role: "user", content: [text("a"), text("b"), text("c")], timestamp: 1 },
    ]);
  });

  it("merges only the roles the options ask for", () => {
    const messages = [user("a"), user("b"), assistant([text("x")]), assistant([text("y")])];
    expect(
      mergeConsecutiveTurns(messages, { mergeConsecutiveUser: false, mergeConsecutiveAssistant: true }),
    ).toHaveLength(3);
    expect(
      mergeConsecutiveTurns(messages, { mergeConsecutiveUser: true, mergeConsecutiveAssistant: false }),
    ).toHaveLength(3);
    expect(
      mergeConsecutiveTurns(messages, { mergeConsecutiveUser: false, mergeConsecutiveAssistant: false }),
    ).toEqual(messages);
  });

  it("does not merge an assistant message that made tool calls or ended in error/aborted", () => {
    const messages = [
      assistant([call("a")]),
      assistant([text("x")], { stopReason: "aborted" }),
      assistant([text("y")]),
      assistant([text("z")], { stopReason: "error" }),
    ];
    expect(mergeConsecutiveTurns(messages, both)).toEqual(messages);
  });

  it("does not merge across a tool result", () => {
    const messages = [assistant([call("a")]), result("a"), assistant([text("y")])];
    expect(mergeConsecutiveTurns(messages, both)).toEqual(messages);
  });
});

describe("ensureUserFirst", () => {
  it("puts a bootstrap user message in front of a history that starts with an assistant", () => {
    const messages = [assistant([text("hello")], { timestamp: 5 }), user("hi")];
    expect(ensureUserFirst(messages)).toEqual([
      { role: "user", content: SESSION_BOOTSTRAP_TEXT, timestamp: 5 },
      ...messages,
    ]);
  });

  it("leaves a history that starts with a user message, or is empty, as it is", () => {
    expect(ensureUserFirst([user("hi"), assistant([text("x")])])).toEqual([
      user("hi"),
      assistant([text("x")]),
    ]);
    expect(ensureUserFirst([])).toEqual([]);
  });
});
