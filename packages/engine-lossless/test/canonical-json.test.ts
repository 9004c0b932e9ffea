import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, identifyMessages } from "../src/ingest/message-identity.js";

/** The definition canonical JSON must keep byte for byte: JSON.stringify with a key-sorting replacer. */
function sortedByReplacer(value: unknown): string {
  return (
    JSON.stringify(value, (_key, member: unknown) => {
      if (typeof member !== "object" || member === null || Array.isArray(member)) return member;
      const sorted: Record<string, unknown> = {};
      for (const key of Object.keys(member).sort()) sorted[key] = (member as Record<string, unknown>)[key];
      return sorted;
    }) ?? "null"
  );
}

const toolCallMessage = {
  role: "assistant",
  timestamp: 1_700_000_000_000,
  content: [
    { type: "thinking", thinking: "check src/a.ts" },
    { type: "toolCall", id: "call_1", name: "read", arguments: { path: "src/a.ts", limit: 20 } },
  ],
  stopReason: "toolUse",
  usage: { output: 12, input: 345 },
  api: "openai-responses",
  provider: "openai",
  model: "gpt-x",
};

describe("canonical JSON", () => {
  it("serializes like JSON.stringify with sorted keys, toJSON and odd values included", () => {
    const nestedToJson = { toJSON: () => ({ z: 1, toJSON: () => "not called twice", a: [undefined, 2] }) };
    const holes: unknown[] = [1];
    holes[2] = 3;
    const withToJson = Object.assign(() => 1, { toJSON: () => ({ y: 1, x: 2 }) });
    const values: unknown[] = [
      toolCallMessage,
      { b: { d: 1, c: [{ y: 2, x: 1 }] }, a: undefined, f: () => 1, n: Number.NaN, i: -0 },
      { when: new Date(Date.UTC(2024, 0, 2)), nested: nestedToJson, holes },
      [undefined, () => 1, Symbol("s"), { "": 1, " ": 2, é: 3, e: 4, E: 5, "10": 6, "9": 7 }],
      { boxed: Object(1), text: Object("ab"), flag: Object(true) },
      { callable: withToJson, list: [withToJson, () => 2], toJSON: undefined },
      "plain",
      42,
      null,
      undefined,
    ];
    for (const value of values) expect(canonicalJson(value)).toBe(sortedByReplacer(value));
  });

  it("sorts any keys as the definition does, however many and whatever their characters", () => {
    const key = fc.oneof(
      fc.string(),
      fc.string({ unit: "binary" }),
      fc.constantFrom("10", "9", "é", "E", "e", ""),
    );
    const record = fc.dictionary(key, fc.oneof(fc.integer(), fc.string(), fc.constant(null)), {
      maxKeys: 40,
    });
    fc.assert(
      fc.property(fc.array(record, { maxLength: 3 }), (records) => {
        expect(canonicalJson(records)).toBe(sortedByReplacer(records));
      }),
      { numRuns: 300 },
    );
  });

  it("keeps stored identities: the same message gets the identity earlier versions gave it", () => {
    expect(identifyMessages("session-1", [toolCallMessage as never, toolCallMessage as never])).toEqual([
      expect.objectContaining({
        identity: "ce3095b231fec8117f2ac60bc61f0c496c1184e09a67fd05c535b7b34daac783",
      }),
      expect.objectContaining({
        identity: "c15c06e7e844e5cf229d6c15bc21294eec82c82f458dcef31fbe883134b21e24",
      }),
    ]);
  });
});
