import type { AgentMessage, AssistantMessage, ToolResultMessage } from "@clew/core";
import {
  assistantText,
  assistantToolCall,
  codingConversation,
  toolResult,
  userText,
} from "@clew/plugin-sdk/testing";

export { assistantText, assistantToolCall, codingConversation, toolResult, userText };

/** A deterministic pseudo-random text of `length` characters (words and numbers). */
export function fillerText(length: number, seed: number): string {
  const words = ["alpha", "build", "cache", "delta", "engine", "fetch", "graph", "index", "json", "kernel"];
  let state = seed;
  const parts: string[] = [];
  let size = 0;
  while (size < length) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const word = `${words[state % words.length]}${state % 97}`;
    parts.push(word);
    size += word.length + 1;
  }
  return parts.join(" ").slice(0, length);
}

/** Messages exercising the round trip: unicode, a 100 KB tool result, thinking, images, empty text. */
export function awkwardMessages(start: number): AgentMessage[] {
  const thinking: AssistantMessage = {
    ...assistantText("Décidé: on garde ✓ — 决定保留 🚀", start + 1),
    content: [
      { type: "thinking", thinking: "Let me think… ünïcödé", thinkingSignature: "sig-Δ-42==" },
      { type: "text", text: "Décidé: on garde ✓ — 决定保留 🚀" },
    ],
  };
  const image: AgentMessage = {
    role: "user",
    content: [
      { type: "text", text: "Here is a screenshot" },
      { type: "image", data: Buffer.from("not really a png").toString("base64"), mimeType: "image/png" },
    ],
    timestamp: start + 2,
  };
  const big: ToolResultMessage = toolResult("call_big", "read", fillerText(100_000, 7), start + 4);
  return [
    userText("Ünïcödé ✓ 日本語のテキスト and emoji 👩‍💻", start),
    thinking,
    image,
    assistantToolCall("call_big", "read", { path: "logs/huge.log" }, start + 3),
    big,
    userText("", start + 5),
    assistantText("", start + 6),
  ];
}

/** A long conversation: `turns` coding turns, with the awkward messages in the middle. */
export function longConversation(turns: number): AgentMessage[] {
  const first = codingConversation(Math.floor(turns / 2), { toolOutputChars: 3_000 });
  const second = codingConversation(turns - Math.floor(turns / 2), { toolOutputChars: 3_000 }).map(
    (message) =>
      ({ ...message, timestamp: (message as { timestamp: number }).timestamp + 10_000 }) as AgentMessage,
  );
  return [...first, ...awkwardMessages(1_700_000_005_000), ...second];
}

/**
 * A tool call reading `output` (message m3 is its result), then 40 turns of notes, so the read
 * leaves any small context and only evidence can bring a part of it back.
 */
export function readOutputThenChat(output: string, start: number): AgentMessage[] {
  const messages: AgentMessage[] = [
    userText("Read the relay config.", start),
    assistantToolCall("call_1", "read", { path: "relay.conf" }, start + 1),
    toolResult("call_1", "read", output, start + 2),
    assistantText("Read it.", start + 3),
  ];
  for (let turn = 0; turn < 40; turn++) {
    const at = start + 10_000 + turn * 10;
    messages.push(
      userText(`Notes ${turn}: ${fillerText(300, turn + 10)}`, at),
      assistantText("Noted.", at + 1),
    );
  }
  return messages;
}
