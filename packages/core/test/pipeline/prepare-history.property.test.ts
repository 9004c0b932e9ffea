import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage } from "../../src/messages.js";
import { prepareHistory } from "../../src/pipeline/prepare-history.js";
import { isValidToolCallId } from "../../src/pipeline/tool-call-ids.js";
import { resolveTranscriptPolicy, type TranscriptPolicy } from "../../src/pipeline/transcript-policy.js";
import { assistant, call, deepFreeze, result, text, thinking, user } from "./builders.js";

// A small pool so duplicates, collisions after sanitizing, and missing results come up often.
const ID_POOL = [
  "a",
  "b",
  "c",
  "toolu_01",
  "abcDEF123",
  "call.1",
  "call:1",
  "x|y",
  "ü-id",
  `fc_${"z".repeat(90)}`,
];

const idArbitrary = fc.constantFrom(...ID_POOL);
const stopReasonArbitrary = fc.constantFrom(
  "stop",
  "toolUse",
  "toolUse",
  "length",
  "aborted",
  "error",
) as fc.Arbitrary<AssistantMessage["stopReason"]>;

const userArbitrary = fc.string({ maxLength: 6 }).map((value) => user(value));
const assistantArbitrary = fc
  .record({
    calls: fc.array(idArbitrary, { maxLength: 3 }),
    prose: fc.option(fc.string({ maxLength: 5 }), { nil: undefined }),
    thought: fc.boolean(),
    stopReason: stopReasonArbitrary,
  })
  .map(({ calls, prose, thought, stopReason }) => {
    const content: AssistantMessage["content"] = [];
    if (thought) content.push(thinking("hmm"));
    if (prose !== undefined) content.push(text(prose));
    for (const id of calls) content.push(call(id));
    return assistant(content, { stopReason });
  });
const resultArbitrary = fc
  .record({ id: idArbitrary, withDetails: fc.boolean() })
  .map(({ id, withDetails }) => (withDetails ? { ...result(id), details: { note: "ui only" } } : result(id)));
const customArbitrary = fc.constantFrom<unknown>(
  {
    role: "bashExecution",
    command: "ls",
    output: "a\nb",
    exitCode: 0,
    cancelled: false,
    truncated: false,
    timestamp: 5,
  },
  {
    role: "bashExecution",
    command: "make",
    output: "",
    exitCode: 2,
    cancelled: false,
    truncated: false,
    timestamp: 5,
  },
  { role: "compactionSummary", summary: "earlier work", tokensBefore: 10, timestamp: 5 },
  { role: "notification", text: "unknown role" },
  { role: "assistant", content: [{ type: "toolCall", name: "read", arguments: {} }], stopReason: "toolUse" },
);

const historyArbitrary = fc.array(
  fc.oneof(
    { weight: 3, arbitrary: userArbitrary as fc.Arbitrary<unknown> },
    { weight: 4, arbitrary: assistantArbitrary as fc.Arbitrary<unknown> },
    { weight: 5, arbitrary: resultArbitrary as fc.Arbitrary<unknown> },
    { weight: 1, arbitrary: customArbitrary },
  ),
  { maxLength: 25 },
);

const builtInPolicies = [
  "anthropic-messages",
  "google-generative-ai",
  "openai-completions",
  "openai-responses",
  "mistral-conversations",
  "unknown-api",
].map((api) => resolveTranscriptPolicy({ api, provider: api === "mistral-conversations" ? "mistral" : "x" }));

const policyArbitrary: fc.Arbitrary<TranscriptPolicy> = fc.oneof(
  fc.constantFrom(...builtInPolicies),
  fc.record({
    toolCallIdMode: fc.constantFrom("none", "strict", "strict9"),
    repairToolPairing: fc.constant(true),
    syntheticToolResults: fc.boolean(),
    mergeConsecutiveUser: fc.boolean(),
    mergeConsecutiveAssistant: fc.boolean(),
    assistantFirstFix: fc.boolean(),
    dropThinking: fc.boolean(),
  }),
);
const limitArbitrary = fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined });

function isUnfinished(message: AssistantMessage): boolean {
  return message.stopReason === "error" || message.stopReason === "aborted";
}

function callIdsOf(message: AssistantMessage): string[] {
  return message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
}

/** Every pairing rule the pipeline promises, as a list of violations (empty when all hold). */
function pairingViolations(messages: readonly AgentMessage[], policy: TranscriptPolicy): string[] {
  const violations: string[] = [];
  const seenResults = new Set<string>();
  const seenCalls = new Set<string>();
  let expected: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === "toolResult") {
      if (seenResults.has(message.toolCallId))
        violations.push(`duplicate result ${message.toolCallId} at ${index}`);
      seenResults.add(message.toolCallId);
      const position = expected.indexOf(message.toolCallId);
      if (position === -1) violations.push(`orphan or misplaced result ${message.toolCallId} at ${index}`);
      expected = expected.slice(position + 1);
      return;
    }
    if (policy.syntheticToolResults && expected.length > 0)
      violations.push(`calls ${expected} unanswered before ${index}`);
    expected = [];
    if (message.role !== "assistant" || isUnfinished(message)) return;
    expected = callIdsOf(message);
    for (const id of expected) {
      if (seenCalls.has(id)) violations.push(`call id ${id} reused at ${index}`);
      seenCalls.add(id);
    }
  });
  if (policy.syntheticToolResults && expected.length > 0)
    violations.push(`calls ${expected} unanswered at end`);
  return violations;
}

function allToolIds(messages: readonly AgentMessage[]): string[] {
  return messages.flatMap((message) => {
    if (message.role === "assistant") return callIdsOf(message);
    if (message.role === "toolResult") return [message.toolCallId];
    return [];
  });
}

const runs = { numRuns: 200 };

describe("prepareHistory properties", () => {
  it("leaves no orphan or duplicate results, and answers every finished call right after it", () => {
    fc.assert(
      fc.property(historyArbitrary, policyArbitrary, limitArbitrary, (history, policy, maxUserTurns) => {
        const prepared = prepareHistory(history, { policy, maxUserTurns });
        expect(pairingViolations(prepared, policy)).toEqual([]);
      }),
      runs,
    );
  });

  it("sends only model roles, and never tool-result details", () => {
    fc.assert(
      fc.property(historyArbitrary, policyArbitrary, (history, policy) => {
        for (const message of prepareHistory(history, { policy })) {
          expect(["user", "assistant", "toolResult"]).toContain(message.role);
          expect("details" in message).toBe(false);
        }
      }),
      runs,
    );
  });

  it("never mutates its input", () => {
    fc.assert(
      fc.property(historyArbitrary, policyArbitrary, limitArbitrary, (history, policy, maxUserTurns) => {
        const snapshot = structuredClone(history);
        prepareHistory(deepFreeze(history), { policy, maxUserTurns });
        expect(history).toEqual(snapshot);
      }),
      runs,
    );
  });

  it("is idempotent", () => {
    fc.assert(
      fc.property(historyArbitrary, policyArbitrary, limitArbitrary, (history, policy, maxUserTurns) => {
        const once = prepareHistory(history, { policy, maxUserTurns });
        expect(prepareHistory(once, { policy, maxUserTurns })).toEqual(once);
      }),
      runs,
    );
  });

  it("gives every call and result an id that follows the policy's rule", () => {
    fc.assert(
      fc.property(historyArbitrary, policyArbitrary, (history, policy) => {
        for (const id of allToolIds(prepareHistory(history, { policy }))) {
          expect(isValidToolCallId(id, policy.toolCallIdMode), id).toBe(true);
        }
      }),
      runs,
    );
  });

  it("applies the turn-shape fixes the policy asks for", () => {
    fc.assert(
      fc.property(historyArbitrary, policyArbitrary, limitArbitrary, (history, policy, maxUserTurns) => {
        const prepared = prepareHistory(history, { policy, maxUserTurns });
        if (policy.assistantFirstFix) expect(prepared[0]?.role).not.toBe("assistant");
        if (!policy.mergeConsecutiveUser) return;
        prepared.forEach((message, index) => {
          if (index > 0 && message.role === "user") expect(prepared[index - 1]?.role).not.toBe("user");
        });
      }),
      runs,
    );
  });

  it("keeps at most the requested number of user turns once the history has more", () => {
    fc.assert(
      fc.property(
        historyArbitrary,
        policyArbitrary,
        fc.integer({ min: 1, max: 3 }),
        (history, policy, maxUserTurns) => {
          const unlimited = prepareHistory(history, { policy });
          const limited = prepareHistory(history, { policy, maxUserTurns });
          const users = (messages: AgentMessage[]) =>
            messages.filter((message) => message.role === "user").length;
          expect(users(limited)).toBe(Math.min(users(unlimited), maxUserTurns));
        },
      ),
      runs,
    );
  });
});
