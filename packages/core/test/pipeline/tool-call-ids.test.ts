import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/messages.js";
import {
  STRICT_TOOL_CALL_ID,
  STRICT9_TOOL_CALL_ID,
  sanitizeToolCallIds,
} from "../../src/pipeline/tool-call-ids.js";
import { assistant, call, deepFreeze, result, shape, user } from "./builders.js";

const responsesId = `call_${"x".repeat(40)}|fc_${"y".repeat(420)}`;

function callIds(messages: readonly AgentMessage[]): string[] {
  return messages.flatMap((message) =>
    message.role === "assistant"
      ? message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
      : [],
  );
}

describe("sanitizeToolCallIds", () => {
  it("keeps ids that already follow the rule", () => {
    const messages = [assistant([call("toolu_01ABC-x")]), result("toolu_01ABC-x")];
    const sanitized = sanitizeToolCallIds(messages, "strict");
    expect(sanitized[0]).toBe(messages[0]);
    expect(sanitized[1]).toBe(messages[1]);
  });

  it("rewrites an OpenAI Responses id to the strict rule in the call and its result alike", () => {
    const messages = deepFreeze([assistant([call(responsesId)]), result(responsesId)]);
    const sanitized = sanitizeToolCallIds(messages, "strict");
    const [id] = callIds(sanitized);
    expect(id).toMatch(STRICT_TOOL_CALL_ID);
    expect(shape(sanitized)).toEqual([`assistant[${id}]`, `toolResult(${id})`]);
  });

  it("replaces forbidden characters readably when the id is short", () => {
    const sanitized = sanitizeToolCallIds([assistant([call("call.1:a")]), result("call.1:a")], "strict");
    expect(shape(sanitized)).toEqual(["assistant[call_1_a]", "toolResult(call_1_a)"]);
  });

  it("keeps ids unique when two ids sanitize to the same text", () => {
    const messages = [assistant([call("a.b"), call("a:b")]), result("a:b"), result("a.b")];
    const sanitized = sanitizeToolCallIds(messages, "strict");
    const [first, second] = callIds(sanitized);
    expect(first).toBe("a_b");
    expect(second).not.toBe(first);
    expect(second).toMatch(STRICT_TOOL_CALL_ID);
    expect(shape(sanitized).slice(1)).toEqual([`toolResult(${second})`, `toolResult(${first})`]);
  });

  it("gives a reused call id a new id, and later results follow the latest call", () => {
    const messages = [
      assistant([call("t1")]),
      result("t1"),
      user("again"),
      assistant([call("t1")]),
      result("t1"),
    ];
    const sanitized = sanitizeToolCallIds(messages, "strict");
    const [first, second] = callIds(sanitized);
    expect(first).toBe("t1");
    expect(second).not.toBe("t1");
    expect(shape(sanitized)).toEqual([
      "assistant[t1]",
      "toolResult(t1)",
      "user",
      `assistant[${second}]`,
      `toolResult(${second})`,
    ]);
  });

  it("keeps an orphan result from taking over a call's id", () => {
    const sanitized = sanitizeToolCallIds([result("a.b"), assistant([call("a_b")])], "strict");
    const [callId] = callIds(sanitized);
    expect(sanitized[0]?.role === "toolResult" && sanitized[0].toolCallId).not.toBe(callId);
  });

  it("makes Mistral ids exactly nine alphanumerics", () => {
    const messages = [
      assistant([call("toolu_01XYZ"), call("abcDEF123")]),
      result("toolu_01XYZ"),
      result("abcDEF123"),
    ];
    const sanitized = sanitizeToolCallIds(messages, "strict9");
    const ids = callIds(sanitized);
    for (const id of ids) expect(id).toMatch(STRICT9_TOOL_CALL_ID);
    expect(ids[1]).toBe("abcDEF123");
    expect(shape(sanitized).slice(1)).toEqual([`toolResult(${ids[0]})`, `toolResult(${ids[1]})`]);
  });

  it("is deterministic and idempotent", () => {
    const messages = [assistant([call(responsesId), call("x y")]), result(responsesId), result("x y")];
    const once = sanitizeToolCallIds(messages, "strict9");
    expect(sanitizeToolCallIds(messages, "strict9")).toEqual(once);
    expect(sanitizeToolCallIds(once, "strict9")).toEqual(once);
  });

  it("changes nothing in mode none", () => {
    const messages = [assistant([call(responsesId)]), result(responsesId)];
    expect(sanitizeToolCallIds(messages, "none")).toEqual(messages);
  });
});
