import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/messages.js";
import { pruneContext } from "../../src/pruning/prune-context.js";
import { type ContextPruningSettings, DEFAULT_CONTEXT_PRUNING_SETTINGS } from "../../src/pruning/settings.js";
import { messageChars } from "../../src/tokens/estimate.js";
import { assistant, call, deepFreeze, image, result, text, user } from "../pipeline/builders.js";

const NOW = 1_000_000_000;

// Bodies from empty to well past the soft-trim limits used below, some with CJK text; lengths near
// 1,000 meet the near-threshold trim settings below, where a careless trim would grow a result.
const lengthArbitrary = fc.oneof(
  fc.integer({ min: 0, max: 40 }),
  fc.integer({ min: 960, max: 1_100 }),
  fc.integer({ min: 0, max: 3_000 }),
);
const bodyArbitrary = fc
  .record({ length: lengthArbitrary, filler: fc.constantFrom("x", "ab\n", "漢", "é") })
  .map(({ length, filler }) => filler.repeat(Math.ceil(length / filler.length)).slice(0, length));

const messageArbitrary: fc.Arbitrary<AgentMessage> = fc.oneof(
  fc.string({ maxLength: 20 }).map((value) => user(value)),
  fc.string({ maxLength: 20 }).map((value) => assistant([text(value), call("t")])),
  fc
    .record({
      body: bodyArbitrary,
      toolName: fc.constantFrom("read", "bash", "exec"),
      withImage: fc.boolean(),
    })
    .map(({ body, toolName, withImage }) =>
      result("t", withImage ? [text(body), image()] : body, { toolName }),
    ),
);

const settingsArbitrary: fc.Arbitrary<ContextPruningSettings> = fc.record({
  mode: fc.constant("cache-ttl" as const),
  ttlMs: fc.integer({ min: 0, max: 10_000 }),
  keepLastAssistants: fc.integer({ min: 0, max: 4 }),
  softTrimRatio: fc.double({ min: 0, max: 1, noNaN: true }),
  hardClearRatio: fc.double({ min: 0, max: 1, noNaN: true }),
  minPrunableToolChars: fc.integer({ min: 0, max: 5_000 }),
  softTrim: fc.oneof(
    fc.record({
      maxChars: fc.integer({ min: 0, max: 2_000 }),
      headChars: fc.integer({ min: 0, max: 800 }),
      tailChars: fc.integer({ min: 0, max: 800 }),
    }),
    fc.constant({ maxChars: 900, headChars: 480, tailChars: 480 }),
  ),
  hardClear: fc.record({
    enabled: fc.boolean(),
    placeholder: fc.constantFrom("[cleared]", "[Old tool result content cleared]", "", "p".repeat(60)),
  }),
  tools: fc.record({
    allow: fc.subarray(["read", "b*", "*"]),
    deny: fc.subarray(["exec", "r*"]),
  }),
});

const scenarioArbitrary = fc.record({
  messages: fc.array(messageArbitrary, { maxLength: 30 }),
  settings: settingsArbitrary,
  contextWindowTokens: fc.integer({ min: 1, max: 5_000 }),
  elapsedMs: fc.integer({ min: 0, max: 20_000 }),
});

function protectedIndexes(messages: readonly AgentMessage[], keepLastAssistants: number): Set<number> {
  const protectedSet = new Set<number>();
  const firstUser = messages.findIndex((message) => message.role === "user");
  const head = firstUser === -1 ? messages.length : firstUser;
  for (let index = 0; index < head; index++) protectedSet.add(index);
  if (keepLastAssistants > 0) {
    const assistants = messages.flatMap((message, index) => (message.role === "assistant" ? [index] : []));
    const cutoff =
      assistants.length >= keepLastAssistants ? assistants[assistants.length - keepLastAssistants] : 0;
    for (let index = cutoff ?? 0; index < messages.length; index++) protectedSet.add(index);
  }
  return protectedSet;
}

const runs = { numRuns: 150 };

describe("pruneContext properties", () => {
  it("keeps the length, changes only unprotected tool results without images, and never adds chars", () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ messages, settings, contextWindowTokens, elapsedMs }) => {
        const frozen = deepFreeze(messages);
        const pruned = pruneContext(frozen, {
          settings,
          contextWindowTokens,
          now: NOW,
          lastCacheTouchAt: NOW - elapsedMs,
        });
        expect(pruned.messages).toHaveLength(messages.length);
        const untouchable = protectedIndexes(messages, settings.keepLastAssistants);
        let changedCount = 0;
        pruned.messages.forEach((message, index) => {
          const original = messages[index] as AgentMessage;
          if (message === original) return;
          changedCount++;
          expect(untouchable.has(index), `protected message ${index} changed`).toBe(false);
          expect(original.role).toBe("toolResult");
          expect(
            original.role === "toolResult" && original.content.some((block) => block.type === "image"),
          ).toBe(false);
          expect(messageChars(message)).toBeLessThan(messageChars(original));
        });
        expect(pruned.changed).toBe(changedCount > 0);
        expect(pruned.softTrimmed + pruned.hardCleared).toBeGreaterThanOrEqual(changedCount);
        expect(pruned.charsAfter).toBeLessThanOrEqual(pruned.charsBefore);
        expect(pruned.charsAfter).toBe(
          pruned.messages.reduce((sum, message) => sum + messageChars(message), 0),
        );
        if (elapsedMs < settings.ttlMs) expect(pruned.changed).toBe(false);
      }),
      runs,
    );
  });

  it("never mutates its input", () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ messages, settings, contextWindowTokens }) => {
        const snapshot = structuredClone(messages);
        pruneContext(deepFreeze(messages), { settings, contextWindowTokens, now: NOW, lastCacheTouchAt: 0 });
        expect(messages).toEqual(snapshot);
      }),
      runs,
    );
  });

  it("changes nothing with mode off", () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ messages, settings, contextWindowTokens }) => {
        const off = { ...settings, mode: "off" as const };
        const pruned = pruneContext(messages, {
          settings: off,
          contextWindowTokens,
          now: NOW,
          lastCacheTouchAt: 0,
        });
        expect(pruned.changed).toBe(false);
        pruned.messages.forEach((message, index) => {
          expect(message).toBe(messages[index]);
        });
      }),
      runs,
    );
  });

  it("prunes something once the ratio is high and the defaults apply", () => {
    const messages = [user("q"), assistant([call("a")]), result("a", "y".repeat(10_000))];
    messages.push(assistant([text("1")]), assistant([text("2")]), assistant([text("3")]));
    const settings = { ...DEFAULT_CONTEXT_PRUNING_SETTINGS, mode: "cache-ttl" as const };
    expect(
      pruneContext(messages, { settings, contextWindowTokens: 5_000, now: NOW, lastCacheTouchAt: 0 }).changed,
    ).toBe(true);
  });
});
