import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/messages.js";
import { SESSION_BOOTSTRAP_TEXT } from "../../src/pipeline/merge-turns.js";
import { prepareHistory } from "../../src/pipeline/prepare-history.js";
import { SYNTHETIC_TOOL_RESULT_TEXT } from "../../src/pipeline/repair-tool-pairing.js";
import { STRICT9_TOOL_CALL_ID } from "../../src/pipeline/tool-call-ids.js";
import { resolveTranscriptPolicy, type TranscriptPolicy } from "../../src/pipeline/transcript-policy.js";
import {
  assistant,
  bashExecution,
  call,
  deepFreeze,
  result,
  shape,
  text,
  thinking,
  user,
} from "./builders.js";

const anthropic = resolveTranscriptPolicy({ api: "anthropic-messages", provider: "anthropic" });
const google = resolveTranscriptPolicy({ api: "google-generative-ai", provider: "google" });
const mistral = resolveTranscriptPolicy({ api: "mistral-conversations", provider: "mistral" });

function texts(messages: readonly AgentMessage[]): string[] {
  return messages.map((message) => {
    if (message.role === "user") {
      return typeof message.content === "string"
        ? message.content
        : message.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("|");
    }
    if (message.role === "toolResult")
      return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    return message.content.map((block) => (block.type === "text" ? block.text : block.type)).join("|");
  });
}

describe("prepareHistory", () => {
  it("turns a bash execution into user text and merges it with the next user message for Anthropic", () => {
    const prepared = prepareHistory(deepFreeze([bashExecution("ls", "a.txt"), user("what is in a.txt?")]), {
      policy: anthropic,
    });
    expect(prepared).toHaveLength(1);
    expect(texts(prepared)).toEqual(["Ran `ls`\n```\na.txt\n```|what is in a.txt?"]);
  });

  it("answers an unanswered call with a synthetic result for Anthropic but not for the default policy", () => {
    const messages = [user("q"), assistant([call("a")]), user("hello?")];
    expect(texts(prepareHistory(messages, { policy: anthropic }))[2]).toBe(SYNTHETIC_TOOL_RESULT_TEXT);
    const plain = resolveTranscriptPolicy({ api: "unknown", provider: "x" });
    expect(shape(prepareHistory(messages, { policy: plain }))).toEqual(["user", "assistant[a]", "user"]);
  });

  it("drops thinking blocks when the policy says so", () => {
    const policy: TranscriptPolicy = { ...anthropic, dropThinking: true };
    const prepared = prepareHistory([user("q"), assistant([thinking("hmm"), text("a")])], { policy });
    expect(texts(prepared)).toEqual(["q", "a"]);
  });

  it("puts a bootstrap user message in front of an assistant-first history for Google", () => {
    const prepared = prepareHistory([assistant([text("hi")]), assistant([text("there")]), user("q")], {
      policy: google,
    });
    expect(texts(prepared)).toEqual([SESSION_BOOTSTRAP_TEXT, "hi|there", "q"]);
  });

  it("rewrites ids for Mistral before pairing, so calls and results still match", () => {
    const prepared = prepareHistory(
      [user("q"), assistant([call("toolu_1"), call("toolu_2")]), result("toolu_2"), result("toolu_1")],
      {
        policy: mistral,
      },
    );
    const [, turn, first, second] = prepared;
    const ids =
      turn?.role === "assistant"
        ? turn.content.map((block) => (block.type === "toolCall" ? block.id : ""))
        : [];
    for (const id of ids) expect(id).toMatch(STRICT9_TOOL_CALL_ID);
    expect(
      [first, second].map((message) => (message?.role === "toolResult" ? message.toolCallId : "")),
    ).toEqual(ids);
  });

  it("limits to the last user turns and re-pairs what the cut left", () => {
    const messages = [
      user("one"),
      assistant([call("a")]),
      result("a"),
      user("two"),
      assistant([text("r2")]),
      user("three"),
      assistant([call("b")]),
      result("b"),
    ];
    expect(shape(prepareHistory(messages, { policy: anthropic, maxUserTurns: 2 }))).toEqual([
      "user",
      "assistant",
      "user",
      "assistant[b]",
      "toolResult(b)",
    ]);
  });

  it("does not mutate its input and is idempotent", () => {
    const messages = deepFreeze([
      assistant([call("x.1")]),
      bashExecution("make", "error", 2),
      result("x.1"),
      result("orphan"),
      user("q"),
      assistant([text("a")]),
      assistant([call("y")], { stopReason: "aborted" }),
      result("y"),
    ]);
    for (const policy of [anthropic, google, mistral]) {
      const once = prepareHistory(messages, { policy, maxUserTurns: 1 });
      expect(prepareHistory(once, { policy, maxUserTurns: 1 })).toEqual(once);
    }
  });
});
