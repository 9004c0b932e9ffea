import { countTokens, encode } from "gpt-tokenizer/encoding/o200k_base";
import { beforeAll, describe, expect, it } from "vitest";
import {
  type AgentMessage,
  countMessagesTokens,
  createO200kTokenCounter,
  loadO200kTokenCounter,
  O200K_IMAGE_TOKENS,
  type TokenCounter,
} from "../../src/index.js";
import { loadPiSessionMessages, toolCallMessage, toolResultMessage } from "../summarizer/session-fixtures.js";
import { assistantMessage, userMessage } from "../support.js";

let counter: TokenCounter;

beforeAll(async () => {
  counter = await loadO200kTokenCounter();
});

describe("o200k token counter", () => {
  it("counts known strings exactly as the library encodes them", () => {
    expect(counter.id).toBe("o200k");
    expect(counter.countText("hello world")).toBe(2);
    expect(counter.countText("")).toBe(0);
    for (const text of [
      "The quick brown fox jumps over the lazy dog.",
      "export function extractIdentifiers(text: string): string[] {",
      "Error: ENOENT: no such file or directory, open '/Users/me/project/src/index.ts'",
      "  indented\n\ttabs\r\nand CRLF",
    ]) {
      expect(counter.countText(text)).toBe(encode(text).length);
    }
  });

  it("counts CJK text by the encoding, not by characters or chars/4", () => {
    const text = "你好，世界。コンテキストを要約してください。안녕하세요";
    const expected = encode(text).length;
    expect(counter.countText(text)).toBe(expected);
    expect(expected).toBeGreaterThan(Math.ceil(text.length / 4));
  });

  it("counts special-token text as plain text instead of throwing", () => {
    const text = "before <|endoftext|> after <|im_start|>";
    expect(() => countTokens(text)).toThrow();
    expect(counter.countText(text)).toBeGreaterThan(4);
  });

  it("counts the model-visible parts of each message role", () => {
    expect(counter.countMessage(userMessage("hello world"))).toBe(2);
    const thinking: AgentMessage = {
      ...assistantMessage("the answer"),
      content: [
        { type: "thinking", thinking: "let me think" },
        { type: "text", text: "the answer" },
      ],
    };
    expect(counter.countMessage(thinking)).toBe(encode("let me think").length + encode("the answer").length);
    const call = toolCallMessage("read", { path: "src/index.ts", limit: 20 });
    expect(counter.countMessage(call)).toBe(
      encode("read").length + encode(JSON.stringify({ path: "src/index.ts", limit: 20 })).length,
    );
    expect(counter.countMessage(toolResultMessage("read", "line one\nline two"))).toBe(
      encode("line one\nline two").length,
    );
  });

  it("counts each image as a fixed 1,200 tokens", () => {
    const withImage: AgentMessage = {
      role: "user",
      content: [
        { type: "text", text: "hello world" },
        { type: "image", data: "aGVsbG8=".repeat(10_000), mimeType: "image/png" },
      ],
      timestamp: 1,
    };
    expect(counter.countMessage(withImage)).toBe(2 + O200K_IMAGE_TOKENS);
  });

  it("counts unknown and custom messages by their JSON", () => {
    const custom = {
      role: "bashExecution",
      command: "ls",
      output: "a.ts\nb.ts",
      exitCode: 0,
    } as unknown as AgentMessage;
    expect(counter.countMessage(custom)).toBe(encode(JSON.stringify(custom)).length);
  });

  it("falls back to chars/4 when the tokenizer throws, instead of throwing", () => {
    const failing = createO200kTokenCounter(() => {
      throw new Error("tokenizer broke");
    });
    expect(failing.countText("12345678")).toBe(2);
  });

  it("matches the library on the tool results of a real pi session", () => {
    const messages = loadPiSessionMessages("large-session").slice(0, 100);
    for (const message of messages) {
      if (!("role" in message) || message.role !== "toolResult") continue;
      const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      if (message.content.length === 1) expect(counter.countMessage(message)).toBe(encode(text).length);
    }
  });

  it("totals the two real pi sessions at their recorded o200k figures", () => {
    // SOURCES.md records about 403k and 137k o200k tokens for these files.
    const before = countMessagesTokens(counter, loadPiSessionMessages("before-compaction"));
    const large = countMessagesTokens(counter, loadPiSessionMessages("large-session"));
    expect(before).toBe(403_191);
    expect(large).toBe(137_496);
  });
});
