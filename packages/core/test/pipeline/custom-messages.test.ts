import { describe, expect, it } from "vitest";
import {
  bashExecutionText,
  convertCustomMessages,
  dropThinkingBlocks,
} from "../../src/pipeline/custom-messages.js";
import { assistant, call, deepFreeze, image, result, text, thinking, user } from "./builders.js";

describe("convertCustomMessages", () => {
  it("turns a bashExecution into a user message showing command and output", () => {
    const converted = convertCustomMessages([
      {
        role: "bashExecution",
        command: "ls",
        output: "a.txt\nb.txt\n",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        timestamp: 7,
      },
    ]);
    expect(converted).toEqual([{ role: "user", content: "Ran `ls`\n```\na.txt\nb.txt\n```", timestamp: 7 }]);
  });

  it("shows a non-zero exit code, cancellation and truncation", () => {
    const failed = bashExecutionText({
      role: "bashExecution",
      command: "false",
      output: "",
      exitCode: 1,
      timestamp: 0,
    });
    expect(failed).toBe("Ran `false`\n(no output)\n(exit code 1)");
    const cancelled = bashExecutionText({
      role: "bashExecution",
      command: "sleep 9",
      output: "x",
      exitCode: null,
      cancelled: true,
      truncated: true,
      timestamp: 0,
    });
    expect(cancelled).toBe("Ran `sleep 9`\n```\nx\n```\n(command cancelled)\n(output truncated)");
  });

  it("uses a longer fence when the output itself contains a code fence", () => {
    const textOut = bashExecutionText({
      role: "bashExecution",
      command: "cat x.md",
      output: "```js\n1\n```",
      timestamp: 0,
    });
    expect(textOut).toBe("Ran `cat x.md`\n````\n```js\n1\n```\n````");
  });

  it("drops a bashExecution the user kept out of context", () => {
    const converted = convertCustomMessages([
      {
        role: "bashExecution",
        command: "ls",
        output: "",
        exitCode: 0,
        excludeFromContext: true,
        timestamp: 1,
      },
    ]);
    expect(converted).toEqual([]);
  });

  it("turns compaction and branch summaries and custom messages into user messages", () => {
    const converted = convertCustomMessages([
      { role: "compactionSummary", summary: "We fixed the parser.", tokensBefore: 9, timestamp: 1 },
      { role: "branchSummary", summary: "Tried plan B.", fromId: "x", timestamp: 2 },
      { role: "custom", customType: "note", content: [text("hello"), image()], display: true, timestamp: 3 },
    ]);
    expect(converted.map((message) => message.role)).toEqual(["user", "user", "user"]);
    expect(converted[0]?.content).toContain("<summary>\nWe fixed the parser.\n</summary>");
    expect(converted[1]?.content).toContain("Tried plan B.");
    expect(converted[2]?.content).toEqual([text("hello"), image()]);
  });

  it("drops unknown roles, non-objects and malformed messages without throwing", () => {
    const converted = convertCustomMessages([
      null,
      42,
      "user",
      { role: "notification", text: "hi" },
      { role: "user", content: 5, timestamp: 1 },
      { role: "assistant", content: "not blocks" },
      { role: "toolResult", content: [] },
      { role: "compactionSummary" },
      user("kept"),
    ]);
    expect(converted).toEqual([user("kept")]);
  });

  it("strips toolResult details and keeps everything else", () => {
    const withDetails = { ...result("a", "out"), details: { diff: "+1" } };
    const [converted] = convertCustomMessages([deepFreeze(withDetails)]);
    expect(converted).toEqual(result("a", "out"));
    expect(withDetails.details).toEqual({ diff: "+1" });
  });

  it("drops tool calls without an id, name or arguments, and assistant messages left empty", () => {
    const broken = { type: "toolCall", id: "", name: "read", arguments: {} };
    const nameless = { type: "toolCall", id: "b", name: "  ", arguments: {} };
    const argless = { type: "toolCall", id: "c", name: "read" };
    const converted = convertCustomMessages([
      { ...assistant([text("hi"), call("a")]), content: [text("hi"), broken, call("a"), nameless, argless] },
      { ...assistant([]), content: [broken] },
    ]);
    expect(converted).toEqual([assistant([text("hi"), call("a")])]);
  });

  it("trims tool names and removes unknown assistant blocks", () => {
    const [converted] = convertCustomMessages([
      { ...assistant([call("a")]), content: [{ ...call("a"), name: " read " }, { type: "mystery" }] },
    ]);
    expect(converted).toEqual(assistant([call("a")]));
  });

  it("returns well-formed messages as the same objects", () => {
    const messages = [user("a"), assistant([text("b")]), result("c")];
    const converted = convertCustomMessages(messages);
    expect(converted).not.toBe(messages);
    converted.forEach((message, index) => {
      expect(message).toBe(messages[index]);
    });
  });
});

describe("dropThinkingBlocks", () => {
  it("removes thinking blocks and assistant messages that only thought", () => {
    const messages = deepFreeze([
      user("q"),
      assistant([thinking("hmm")]),
      assistant([thinking("so"), text("answer")]),
    ]);
    expect(dropThinkingBlocks(messages)).toEqual([user("q"), assistant([text("answer")])]);
  });
});
