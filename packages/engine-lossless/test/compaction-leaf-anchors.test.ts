/**
 * A leaf's anchors are made in one pass (`anchorsOfLeaf`); they must be exactly what merging the
 * message anchors made before (`mergeAnchors([anchorsOfMessages(…)])`): same identifiers in the
 * same order, each with the same capped, ascending links.
 */
import type { AgentMessage } from "@clew/core";
import { describe, expect, it } from "vitest";
import { anchorsOfLeaf, anchorsOfMessages, mergeAnchors } from "../src/compaction/anchors.js";
import { codingConversation } from "./support/conversations.js";

function withSeqs(messages: readonly AgentMessage[], seqOf: (index: number) => number) {
  return messages.map((message, index) => ({ seq: seqOf(index), message }));
}

/** Messages that repeat a few identifiers many times, so links are capped. */
function repetitive(count: number): AgentMessage[] {
  return Array.from({ length: count }, (_, index) => ({
    role: "user" as const,
    content: `see src/module-${index % 3}.ts and ERR_CODE_${index % 2} at v1.${index}.0`,
    timestamp: index,
  }));
}

describe("anchorsOfLeaf", () => {
  it("equals the merged anchors of the messages, seqs ascending", () => {
    const messages = [...codingConversation(10), ...repetitive(30)];
    const sources = withSeqs(messages, (index) => index + 1);
    const leaf = anchorsOfLeaf(sources);
    expect(leaf).toEqual(mergeAnchors([anchorsOfMessages(sources)]));
    expect(leaf.some((anchor) => anchor.messages.length === 8)).toBe(true);
  });

  it("equals the merged anchors when seqs are out of order", () => {
    const messages = repetitive(40);
    const sources = withSeqs(messages, (index) => 1000 - index * 7);
    expect(anchorsOfLeaf(sources)).toEqual(mergeAnchors([anchorsOfMessages(sources)]));
  });
});
