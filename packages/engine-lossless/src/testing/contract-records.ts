/**
 * Records the store contract cases build: messages named by a word, summaries over ranges of
 * seqs, the edits that put them in the view, and small readers of what a store answers.
 */
import { createHash } from "node:crypto";
import type { ContextEdit, LosslessStore, NewStoredMessage, NewSummary } from "../store/store.js";

export function identityOf(sessionId: string, key: string): string {
  return createHash("sha256").update(`${sessionId}\0${key}`).digest("hex");
}

export function message(sessionId: string, word: string): NewStoredMessage {
  const json = JSON.stringify({ content: word, role: "user", timestamp: 1_000 + word.charCodeAt(0) - 97 });
  return {
    identity: identityOf(sessionId, word),
    role: "user",
    createdAt: 1_000 + word.charCodeAt(0) - 97,
    tokens: word === "a" ? 1 : 2,
    json,
  };
}

export function textMessage(sessionId: string, text: string, index: number): NewStoredMessage {
  return {
    identity: identityOf(sessionId, text),
    role: "user",
    createdAt: index,
    tokens: 10,
    json: JSON.stringify({ content: [{ text, type: "text" }], role: "user", timestamp: index }),
  };
}

export function toolResultMessage(sessionId: string, text: string, index: number): NewStoredMessage {
  const json = JSON.stringify({
    content: [{ text, type: "text" }],
    isError: false,
    role: "toolResult",
    timestamp: index,
    toolCallId: "call_1",
    toolName: "bash",
  });
  return { identity: identityOf(sessionId, text), role: "toolResult", createdAt: index, tokens: 10, json };
}

export async function appendWords(store: LosslessStore, sessionId: string, words: string[]): Promise<void> {
  await store.appendMessages(
    sessionId,
    words.map((word) => message(sessionId, word)),
  );
}

export function leafSummary(summaryId: string, sourceRanges: Array<[number, number]>): NewSummary {
  return {
    summaryId,
    kind: "leaf",
    depth: 0,
    content: "summary",
    tokens: 7,
    sourceRanges,
    sourceCount: sourceRanges.reduce((total, [first, last]) => total + last - first + 1, 0),
    sourceTokens: 20,
    childIds: [],
    anchors: [{ value: "src/a.ts", messages: [sourceRanges[0]?.[0] ?? 1] }],
    earliestAt: 1_000,
    latestAt: 1_002,
    summarizer: "test",
    createdAt: 5_000,
  };
}

/** An edit replacing the raw messages `seqs`, which sit at positions `firstPosition`, ... */
export function edit(summaryId: string, seqs: number[], firstPosition = seqs[0] ?? 1): ContextEdit {
  return {
    replace: seqs.map((seq, index) => ({ position: firstPosition + index, ref: { kind: "message", seq } })),
    summaryId,
    tokens: 7,
    json: '{"role":"user","content":"summary"}',
  };
}

export function keys<Key>(hits: Array<{ key: Key }>): Key[] {
  return hits.map((hit) => hit.key);
}

export function pick(stored: NewStoredMessage) {
  return {
    identity: stored.identity,
    role: stored.role,
    createdAt: stored.createdAt,
    tokens: stored.tokens,
    json: stored.json,
  };
}
