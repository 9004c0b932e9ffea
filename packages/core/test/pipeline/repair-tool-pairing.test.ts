import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../src/messages.js";
import {
  repairToolResultPairing,
  repairToolResultPairingWithReport,
  SYNTHETIC_TOOL_RESULT_TEXT,
  toolCallsOf,
} from "../../src/pipeline/repair-tool-pairing.js";
import { assistant, call, deepFreeze, result, shape, text, user } from "./builders.js";

describe("repairToolResultPairing", () => {
  it("leaves a well-paired transcript as it is", () => {
    const messages = [
      user("q"),
      assistant([call("a"), call("b")]),
      result("a"),
      result("b"),
      assistant([text("done")]),
    ];
    expect(repairToolResultPairing(messages)).toEqual(messages);
  });

  it("moves results right after their call, in call order, ahead of steering messages", () => {
    const messages = deepFreeze([
      assistant([call("a"), call("b")]),
      user("wait, also check c"),
      result("b"),
      result("a"),
      assistant([text("ok")]),
    ]);
    expect(shape(repairToolResultPairing(messages))).toEqual([
      "assistant[a,b]",
      "toolResult(a)",
      "toolResult(b)",
      "user",
      "assistant",
    ]);
  });

  it("inserts a synthetic error result, with the call's tool name, for a call without one", () => {
    const repaired = repairToolResultPairingWithReport([
      assistant([call("a", "bash")], { timestamp: 50 }),
      user("next"),
    ]);
    expect(repaired.syntheticResults).toBe(1);
    expect(repaired.messages[1]).toEqual({
      role: "toolResult",
      toolCallId: "a",
      toolName: "bash",
      content: [{ type: "text", text: SYNTHETIC_TOOL_RESULT_TEXT }],
      isError: true,
      timestamp: 50,
    });
  });

  it("leaves calls unanswered when synthetic results are off", () => {
    const messages = [assistant([call("a"), call("b")]), result("b")];
    const repaired = repairToolResultPairing(messages, { insertSyntheticResults: false });
    expect(shape(repaired)).toEqual(["assistant[a,b]", "toolResult(b)"]);
  });

  it("drops duplicate results, keeping the first", () => {
    const first = result("a", "first");
    const repaired = repairToolResultPairingWithReport([
      assistant([call("a")]),
      first,
      result("a", "second"),
    ]);
    expect(repaired.messages).toEqual([assistant([call("a")]), first]);
    expect(repaired.droppedDuplicates).toBe(1);
  });

  it("drops a result repeated after a later assistant message as a duplicate", () => {
    const repaired = repairToolResultPairingWithReport([
      assistant([call("a")]),
      result("a"),
      assistant([text("x")]),
      result("a"),
    ]);
    expect(shape(repaired.messages)).toEqual(["assistant[a]", "toolResult(a)", "assistant"]);
    expect(repaired.droppedDuplicates).toBe(1);
  });

  it("drops orphan results: before any call, for another turn's call, or after a plain message", () => {
    const repaired = repairToolResultPairingWithReport([
      result("early"),
      user("q"),
      assistant([call("a")]),
      result("zzz"),
      result("a"),
      assistant([text("reply")]),
      result("late"),
    ]);
    expect(shape(repaired.messages)).toEqual(["user", "assistant[a]", "toolResult(a)", "assistant"]);
    expect(repaired.droppedOrphans).toBe(3);
  });

  it("drops results of aborted and failed turns and adds no synthetic results for them", () => {
    for (const stopReason of ["aborted", "error"] as const) {
      const repaired = repairToolResultPairingWithReport([
        user("q"),
        assistant([call("a"), call("b")], { stopReason }),
        result("a"),
        user("retry"),
      ]);
      expect(shape(repaired.messages)).toEqual(["user", "assistant[a,b]", "user"]);
      expect(repaired.syntheticResults).toBe(0);
    }
  });

  it("removes a call that reuses an earlier call's id, and drops the message if nothing is left", () => {
    const repaired = repairToolResultPairingWithReport([
      assistant([call("a"), call("a")]),
      result("a"),
      assistant([call("a")]),
      result("a"),
      assistant([text("end")]),
    ]);
    expect(shape(repaired.messages)).toEqual(["assistant[a]", "toolResult(a)", "assistant"]);
    expect(repaired.droppedDuplicateCalls).toBe(2);
  });

  it("lets a finished turn reuse the id of an aborted turn's call", () => {
    const repaired = repairToolResultPairing([
      assistant([call("a")], { stopReason: "aborted" }),
      user("again"),
      assistant([call("a")]),
      result("a"),
    ]);
    expect(shape(repaired)).toEqual(["assistant[a]", "user", "assistant[a]", "toolResult(a)"]);
  });

  it("passes unknown roles through without throwing", () => {
    const odd = { role: "notification", text: "x" } as never;
    expect(repairToolResultPairing([odd, user("q")])).toEqual([odd, user("q")]);
  });

  it("is idempotent", () => {
    const messages = [assistant([call("a"), call("b")]), user("s"), result("b"), result("x"), result("b")];
    const once = repairToolResultPairing(messages);
    expect(repairToolResultPairing(once)).toEqual(once);
  });
});

describe("toolCallsOf", () => {
  it("finds no calls in an assistant message whose content is not a list, or in blocks that are not objects", () => {
    const odd = (content: unknown) =>
      ({ role: "assistant", content, timestamp: 1 }) as unknown as AssistantMessage;
    expect(toolCallsOf(odd("plain text"))).toEqual([]);
    expect(toolCallsOf(odd(null))).toEqual([]);
    expect(
      toolCallsOf(odd(["a string", null, { type: "toolCall", id: "c1", name: "read", arguments: {} }])),
    ).toEqual([{ type: "toolCall", id: "c1", name: "read", arguments: {} }]);
  });
});
