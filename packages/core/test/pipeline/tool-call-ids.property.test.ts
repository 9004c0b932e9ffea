import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/messages.js";
import { isValidToolCallId, sanitizeToolCallIds } from "../../src/pipeline/tool-call-ids.js";
import type { ToolCallIdMode } from "../../src/pipeline/transcript-policy.js";
import { assistant, call, deepFreeze, result } from "./builders.js";

const ID_POOL = [
  "a",
  "b",
  "a_b",
  "a.b",
  "a:b",
  "toolu_01",
  "abcDEF123",
  "x|y",
  "ü",
  `fc_${"z".repeat(90)}`,
  "",
];
const idArbitrary = fc.oneof(fc.constantFrom(...ID_POOL), fc.string({ maxLength: 12 }));
const messageArbitrary: fc.Arbitrary<AgentMessage> = fc.oneof(
  fc.array(idArbitrary, { minLength: 1, maxLength: 3 }).map((ids) => assistant(ids.map((id) => call(id)))),
  idArbitrary.map((id) => result(id)),
);
const modeArbitrary = fc.constantFrom<ToolCallIdMode>("strict", "strict9");

/** For each result, the position (message, block) of the latest earlier call with its original id. */
function owners(messages: readonly AgentMessage[]): Map<number, [number, number]> {
  const latest = new Map<string, [number, number]>();
  const owned = new Map<number, [number, number]>();
  messages.forEach((message, index) => {
    if (message.role === "assistant") {
      message.content.forEach((block, blockIndex) => {
        if (block.type === "toolCall") latest.set(block.id, [index, blockIndex]);
      });
    }
    if (message.role === "toolResult") {
      const owner = latest.get(message.toolCallId);
      if (owner !== undefined) owned.set(index, owner);
    }
  });
  return owned;
}

function idAt(messages: readonly AgentMessage[], [index, blockIndex]: [number, number]): string | undefined {
  const message = messages[index];
  const block = message?.role === "assistant" ? message.content[blockIndex] : undefined;
  return block?.type === "toolCall" ? block.id : undefined;
}

describe("sanitizeToolCallIds properties", () => {
  it("gives every id the mode's shape, keeps call ids unique and keeps each result with its call", () => {
    fc.assert(
      fc.property(fc.array(messageArbitrary, { maxLength: 20 }), modeArbitrary, (messages, mode) => {
        const sanitized = sanitizeToolCallIds(deepFreeze(messages), mode);
        const callIds: string[] = [];
        for (const message of sanitized) {
          if (message.role === "toolResult") expect(isValidToolCallId(message.toolCallId, mode)).toBe(true);
          if (message.role !== "assistant") continue;
          for (const block of message.content) if (block.type === "toolCall") callIds.push(block.id);
        }
        for (const id of callIds) expect(isValidToolCallId(id, mode), id).toBe(true);
        expect(new Set(callIds).size).toBe(callIds.length);
        for (const [resultIndex, owner] of owners(messages)) {
          const resultMessage = sanitized[resultIndex];
          expect(resultMessage?.role === "toolResult" && resultMessage.toolCallId).toBe(
            idAt(sanitized, owner),
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it("does not turn an orphan result into a result of some call", () => {
    fc.assert(
      fc.property(fc.array(messageArbitrary, { maxLength: 20 }), modeArbitrary, (messages, mode) => {
        const sanitized = sanitizeToolCallIds(messages, mode);
        const before = owners(messages);
        for (const index of owners(sanitized).keys()) expect(before.has(index)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
