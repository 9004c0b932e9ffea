import { isToolResultMessage } from "@clew/core";
import { orphanToolResults } from "@clew/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { messageText } from "../../suites/quality/harness/message-text.js";
import { qualityPreset } from "../../suites/quality/presets.js";
import { generateAgentSession } from "../../workloads/agent/generate-agent-session.js";
import {
  conversationReplayTurns,
  generateConversation,
} from "../../workloads/locomo/generate-conversation.js";
import { QUESTION_CATEGORIES } from "../../workloads/locomo/questions.js";
import { SeededRandom } from "../../workloads/random.js";
import { messagesOfTurns } from "../../workloads/replay-turn.js";

const conversationOptions = qualityPreset("gate").conversation;
const agentOptions = qualityPreset("gate").agent;

describe("the seeded random source", () => {
  it("repeats its sequence for a seed and differs for another seed", () => {
    const draw = (seed: number) => {
      const random = new SeededRandom(seed);
      return [random.next(), random.integer(1, 6), random.base32(8)];
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    expect(draw(42)[2]).toMatch(/^[A-Z2-7]{8}$/);
  });
});

describe("the LoCoMo-style conversation generator", () => {
  const conversation = generateConversation(conversationOptions);

  it("is deterministic for a seed", () => {
    expect(JSON.stringify(generateConversation(conversationOptions))).toBe(JSON.stringify(conversation));
    const other = generateConversation({ ...conversationOptions, seed: conversationOptions.seed + 1 });
    expect(other.turns.map((turn) => turn.text)).not.toEqual(conversation.turns.map((turn) => turn.text));
  });

  it("has the asked number of turns and sessions, dated in order, speakers alternating", () => {
    expect(conversation.turns).toHaveLength(conversationOptions.turns);
    expect(new Set(conversation.turns.map((turn) => turn.session)).size).toBe(conversationOptions.sessions);
    expect([...conversation.sessionDates].sort()).toEqual(conversation.sessionDates);
    conversation.turns.forEach((turn, index) => {
      expect(turn.speaker).toBe(index % 2);
      expect(turn.message.role).toBe(index % 2 === 0 ? "user" : "assistant");
    });
    expect(conversationReplayTurns(conversation)).toHaveLength(conversationOptions.turns / 2);
  });

  it("gives every turn a unique id and a unique text", () => {
    expect(new Set(conversation.turns.map((turn) => turn.id)).size).toBe(conversation.turns.length);
    expect(new Set(conversation.turns.map((turn) => turn.text)).size).toBe(conversation.turns.length);
    expect(conversation.turns[0]?.id).toBe("D1:1");
  });

  it("asks questions of all four kinds whose evidence ids exist and hold the answer", () => {
    const byId = new Map(conversation.turns.map((turn) => [turn.id, turn]));
    expect(new Set(conversation.questions.map((question) => question.category))).toEqual(
      new Set(QUESTION_CATEGORIES),
    );
    for (const question of conversation.questions) {
      expect(question.evidence.length).toBeGreaterThan(0);
      for (const id of question.evidence) expect(byId.has(id), `${question.id} → ${id}`).toBe(true);
      if (question.category === "single-hop") {
        expect(byId.get(question.evidence[0] as string)?.text).toContain(question.answer);
      }
    }
  });

  it("plants facts that are later changed, with the change after the statement", () => {
    const updated = conversation.facts.filter((fact) => fact.update !== undefined);
    expect(updated.length).toBeGreaterThan(0);
    const order = new Map(conversation.turns.map((turn, index) => [turn.id, index]));
    for (const fact of updated) {
      expect(order.get(fact.update?.turnId ?? "") ?? -1).toBeGreaterThan(order.get(fact.statedIn) ?? -1);
    }
  });

  it("rejects sessions too short to hold the turns, naming the option", () => {
    expect(() => generateConversation({ ...conversationOptions, turns: 20 })).toThrow(/turns/);
    expect(() => generateConversation({ ...conversationOptions, sessions: 1 })).toThrow(/sessions/);
  });
});

describe("the needle planter", () => {
  const session = generateAgentSession(agentOptions);
  const sources = new Map(session.sources.map((source) => [source.id, source.message]));

  it("is deterministic for a seed", () => {
    expect(JSON.stringify(generateAgentSession(agentOptions))).toBe(JSON.stringify(session));
  });

  it("plants unique NDL codes, each in its carrier, across all four carriers", () => {
    const codes = session.needles.map((needle) => needle.code);
    expect(new Set(codes).size).toBe(agentOptions.needles);
    for (const needle of session.needles) {
      expect(needle.code).toMatch(/^NDL-[A-Z2-7]{8}$/);
      const carrier = sources.get(needle.sourceId);
      if (carrier === undefined) throw new Error(`${needle.code} has no carrier`);
      expect(messageText(carrier)).toContain(needle.sentence);
    }
    expect(new Set(session.needles.map((needle) => needle.carrier))).toEqual(
      new Set(["user-text", "assistant-text", "tool-result-middle", "bash-output"]),
    );
  });

  it("puts tool-result needles in the middle of a 20 KB result", () => {
    for (const needle of session.needles.filter((item) => item.carrier === "tool-result-middle")) {
      const carrier = sources.get(needle.sourceId);
      if (carrier === undefined || !isToolResultMessage(carrier)) throw new Error("not a tool result");
      const text = carrier.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      expect(text.length).toBeGreaterThan(agentOptions.bigToolResultBytes);
      const position = text.indexOf(needle.code) / text.length;
      expect(position).toBeGreaterThan(0.4);
      expect(position).toBeLessThan(0.6);
    }
  });

  it("orders confusable needles in time and keeps every tool call answered", () => {
    for (const set of session.confusables) {
      const times = set.needles.map(
        (needle) => (sources.get(needle.sourceId) as { timestamp: number }).timestamp,
      );
      expect([...times].sort((a, b) => a - b)).toEqual(times);
      expect(new Set(times).size).toBe(times.length);
    }
    expect(session.confusables.map((set) => set.needles.length)).toEqual([...agentOptions.confusableSets]);
    expect(orphanToolResults(messagesOfTurns(session.turns))).toEqual([]);
  });

  it("carries the round-trip edge cases: unicode, a 100 KB+ result, a signed thinking block, an image, empty content", () => {
    const json = (id: string | undefined) => JSON.stringify(sources.get(id ?? ""));
    expect(json(session.edgeCases.unicode)).toContain("🧵");
    expect(JSON.stringify(sources.get(session.edgeCases.huge ?? "")).length).toBeGreaterThan(100_000);
    expect(
      session.sources.some((source) => JSON.stringify(source.message).includes("thinkingSignature")),
    ).toBe(true);
    expect(json(session.edgeCases.image)).toContain('"type":"image"');
    expect(json(session.edgeCases.empty)).toContain('"content":[]');
  });
});
