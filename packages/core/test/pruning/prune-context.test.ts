import { describe, expect, it } from "vitest";
import type { AgentMessage, ToolResultMessage } from "../../src/messages.js";
import { pruneContext } from "../../src/pruning/prune-context.js";
import {
  type ContextPruningSettings,
  DEFAULT_CONTEXT_PRUNING_SETTINGS,
  HARD_CLEAR_PLACEHOLDER,
} from "../../src/pruning/settings.js";
import { messageChars } from "../../src/tokens/estimate.js";
import { assistant, call, deepFreeze, image, result, text, user } from "../pipeline/builders.js";

const NOW = 1_000_000_000;
const FIVE_MINUTES = 5 * 60_000;
const cacheTtl: ContextPruningSettings = { ...DEFAULT_CONTEXT_PRUNING_SETTINGS, mode: "cache-ttl" };

/** A tool result whose text is `length` chars: a head marker, filler and a tail marker. */
function bulkyResult(id: string, length: number, toolName = "read"): ToolResultMessage {
  const body = `HEAD${"x".repeat(length - 8)}TAIL`;
  return result(id, body, { toolName });
}

/** first user → three old tool turns → three recent assistant turns (the protected tail). */
function history(resultLength: number): AgentMessage[] {
  return [
    user("start"),
    assistant([call("a")]),
    bulkyResult("a", resultLength),
    assistant([call("b")]),
    bulkyResult("b", resultLength),
    assistant([call("c")]),
    bulkyResult("c", resultLength),
    assistant([text("one")]),
    user("more"),
    assistant([text("two")]),
    assistant([call("d")]),
    bulkyResult("d", resultLength),
  ];
}

function due(settings: ContextPruningSettings = cacheTtl, contextWindowTokens = 10_000) {
  return { settings, contextWindowTokens, now: NOW, lastCacheTouchAt: NOW - FIVE_MINUTES };
}

function bodyOf(message: AgentMessage | undefined): string {
  return message?.role === "toolResult"
    ? message.content.map((block) => (block.type === "text" ? block.text : "")).join("")
    : "";
}

describe("pruneContext gate", () => {
  it("changes nothing with mode off, however large the context", () => {
    const messages = history(20_000);
    const pruned = pruneContext(messages, { ...due(), settings: DEFAULT_CONTEXT_PRUNING_SETTINGS });
    expect(pruned.changed).toBe(false);
    pruned.messages.forEach((message, index) => {
      expect(message).toBe(messages[index]);
    });
  });

  it("changes nothing while the last cache touch is unknown or younger than the ttl", () => {
    const messages = history(20_000);
    expect(pruneContext(messages, { ...due(), lastCacheTouchAt: undefined }).changed).toBe(false);
    expect(pruneContext(messages, { ...due(), lastCacheTouchAt: NOW - FIVE_MINUTES + 1 }).changed).toBe(
      false,
    );
    expect(pruneContext(messages, { ...due(), lastCacheTouchAt: NOW - FIVE_MINUTES }).changed).toBe(true);
  });

  it("changes nothing below the soft-trim ratio", () => {
    const messages = history(20_000);
    const charsWithin30Percent = Math.ceil(pruneContext(messages, due()).charsBefore / 0.3 / 4) + 1;
    expect(pruneContext(messages, due(cacheTtl, charsWithin30Percent)).changed).toBe(false);
  });

  it("changes nothing with fewer assistant messages than keepLastAssistants", () => {
    const messages = [user("q"), assistant([call("a")]), bulkyResult("a", 20_000), assistant([text("ok")])];
    expect(pruneContext(messages, due()).changed).toBe(false);
  });
});

describe("pruneContext soft trim", () => {
  it("keeps the first and last 1500 chars of an oversized old result and adds the note", () => {
    const pruned = pruneContext(history(20_000), due(cacheTtl, 50_000));
    const trimmed = bodyOf(pruned.messages[2]);
    const original = `HEAD${"x".repeat(19_992)}TAIL`;
    expect(trimmed).toBe(
      `${original.slice(0, 1_500)}\n...\n${original.slice(-1_500)}\n\n` +
        "[Tool result trimmed: kept first 1500 chars and last 1500 chars of 20000 chars.]",
    );
    expect(pruned.softTrimmed).toBe(3);
    expect(pruned.hardCleared).toBe(0);
  });

  it("never touches the tail from the third-last assistant message on", () => {
    const messages = history(20_000);
    const pruned = pruneContext(messages, due(cacheTtl, 50_000));
    expect(pruned.messages[11]).toBe(messages[11]);
    expect(bodyOf(pruned.messages[6])).toContain("[Tool result trimmed");
  });

  it("never touches results before the first user message", () => {
    const messages = [assistant([call("boot")]), bulkyResult("boot", 20_000), ...history(20_000)];
    const pruned = pruneContext(messages, due(cacheTtl, 50_000));
    expect(pruned.messages[1]).toBe(messages[1]);
    expect(bodyOf(pruned.messages[4])).toContain("[Tool result trimmed");
  });

  it("leaves results that contain images and denied tools alone", () => {
    const messages = history(20_000);
    messages[2] = result("a", [text("x".repeat(20_000)), image()]);
    messages[4] = bulkyResult("b", 20_000, "exec");
    const settings = { ...cacheTtl, tools: { allow: [], deny: ["ex*"] } };
    const pruned = pruneContext(messages, due(settings, 50_000));
    expect(pruned.messages[2]).toBe(messages[2]);
    expect(pruned.messages[4]).toBe(messages[4]);
    expect(pruned.softTrimmed).toBe(1);
  });

  it("counts CJK characters as four chars, in the limit and in the kept head and tail", () => {
    const messages = history(100);
    messages[2] = result("a", "漢".repeat(2_000));
    const pruned = pruneContext(messages, due(cacheTtl, 2_000));
    const [head, rest] = bodyOf(pruned.messages[2]).split("\n...\n");
    expect(rest).toMatch(/of 8000 chars\.\]$/);
    expect(head).toBe("漢".repeat(375));
    expect(rest?.startsWith(`${"漢".repeat(375)}\n\n[Tool result trimmed`)).toBe(true);
  });
});

describe("pruneContext soft trim of astral characters", () => {
  it("never splits a surrogate pair at the head or tail boundary", () => {
    const messages = history(100);
    messages[2] = result("a", `${"😀".repeat(5_000)}z`);
    const pruned = pruneContext(messages, due(cacheTtl, 2_000));
    const [head, rest] = bodyOf(pruned.messages[2]).split("\n...\n");
    expect(head).toBe("😀".repeat(1_500));
    expect(rest?.startsWith(`${"😀".repeat(1_499)}z\n\n[Tool result trimmed`)).toBe(true);
  });
});

describe("pruneContext hard clear", () => {
  function manySmallResults(count: number): AgentMessage[] {
    const messages: AgentMessage[] = [user("start")];
    for (let index = 0; index < count; index++) {
      messages.push(assistant([call(`t${index}`)]), bulkyResult(`t${index}`, 3_900));
    }
    messages.push(assistant([text("1")]), assistant([text("2")]), assistant([text("3")]));
    return messages;
  }

  it("clears old results oldest first until the ratio drops below hardClearRatio", () => {
    const messages = manySmallResults(20);
    const before = pruneContext(messages, due()).charsBefore;
    const contextWindowTokens = Math.ceil(before / 4 / 0.8);
    const pruned = pruneContext(messages, due(cacheTtl, contextWindowTokens));
    expect(pruned.softTrimmed).toBe(0);
    expect(pruned.hardCleared).toBeGreaterThan(0);
    const cleared = pruned.messages.map((message) => bodyOf(message) === HARD_CLEAR_PLACEHOLDER);
    const lastCleared = cleared.lastIndexOf(true);
    // Results sit at even indexes 2, 4, …; every one up to the last cleared must be cleared too.
    for (let index = 2; index <= lastCleared; index += 2)
      expect(cleared[index], `result at ${index}`).toBe(true);
    expect(pruned.charsAfter / (contextWindowTokens * 4)).toBeLessThan(0.5);
    const oneFewer =
      pruned.charsAfter + messageChars(messages[lastCleared] as AgentMessage) - HARD_CLEAR_PLACEHOLDER.length;
    expect(oneFewer / (contextWindowTokens * 4)).toBeGreaterThanOrEqual(0.5);
  });

  it("does not hard clear when prunable results hold less than minPrunableToolChars", () => {
    const messages = manySmallResults(12);
    const before = pruneContext(messages, due()).charsBefore;
    const pruned = pruneContext(messages, due(cacheTtl, Math.ceil(before / 4 / 0.8)));
    expect(pruned.changed).toBe(false);
  });

  it("does not hard clear when hard clear is disabled", () => {
    const messages = manySmallResults(20);
    const before = pruneContext(messages, due()).charsBefore;
    const settings = { ...cacheTtl, hardClear: { enabled: false, placeholder: HARD_CLEAR_PLACEHOLDER } };
    expect(pruneContext(messages, due(settings, Math.ceil(before / 4 / 0.8))).changed).toBe(false);
  });
});

describe("pruneContext result", () => {
  it("never mutates its input and reports chars before and after", () => {
    const messages = deepFreeze(history(20_000));
    const snapshot = structuredClone(messages);
    const pruned = pruneContext(messages, due(cacheTtl, 50_000));
    expect(messages).toEqual(snapshot);
    expect(pruned.messages).not.toBe(messages);
    expect(pruned.charsBefore).toBe(messages.reduce((sum, message) => sum + messageChars(message), 0));
    expect(pruned.charsAfter).toBe(pruned.messages.reduce((sum, message) => sum + messageChars(message), 0));
    expect(pruned.charsAfter).toBeLessThan(pruned.charsBefore);
  });
});
