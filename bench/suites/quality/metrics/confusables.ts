/**
 * M5, confusable-needle disambiguation (MRCR-style): near-identical needles ("the deploy key for
 * staging is X_i") were said in order; asked for the i-th one, the engine's recall must let the
 * reader put them in order. Recall is searched with the question; hits holding one of the set's
 * codes are ordered by timestamp; the i-th of them must be the i-th needle. The similarity score is
 * the `SequenceMatcher` ratio of that hit's text against the true carrier's text.
 */
import type { AgentMessage } from "@clew/core";
import type { RecallAdapter } from "../../../recall-adapter.js";
import { messageText } from "../harness/message-text.js";
import { mean, share } from "./figure.js";
import { sequenceRatio } from "./sequence-ratio.js";

export interface ConfusableProbe {
  question: string;
  /** In the order they were said, each with the message that carries it. */
  needles: { code: string; carrier: AgentMessage }[];
}

export interface ConfusableSetReport {
  size: number;
  /** Share of positions i whose i-th hit (by time) is the i-th needle. */
  ordered: number;
  /** Mean ratio of the i-th hit's text against the i-th carrier's text (0 when missing). */
  similarity: number;
}

/** The hits holding one of `codes`, in timestamp order (stable for equal times), with their code. */
export function orderedNeedleHits(
  hits: readonly AgentMessage[],
  codes: readonly string[],
): { code: string; message: AgentMessage }[] {
  const found: { code: string; message: AgentMessage; timestamp: number }[] = [];
  for (const message of hits) {
    const text = messageText(message);
    const code = codes.find((candidate) => text.includes(candidate));
    if (code === undefined || found.some((hit) => hit.code === code)) continue;
    found.push({ code, message, timestamp: timestampOf(message) });
  }
  return found.sort((left, right) => left.timestamp - right.timestamp);
}

export function scoreConfusables(hits: readonly AgentMessage[], probe: ConfusableProbe): ConfusableSetReport {
  const ordered = orderedNeedleHits(
    hits,
    probe.needles.map((needle) => needle.code),
  );
  const positions = probe.needles.map((needle, index) => {
    const hit = ordered[index];
    return {
      correct: hit?.code === needle.code,
      similarity:
        hit === undefined ? 0 : sequenceRatio(messageText(hit.message), messageText(needle.carrier)),
    };
  });
  return {
    size: probe.needles.length,
    ordered: share(positions.filter((position) => position.correct).length, positions.length),
    similarity: mean(positions.map((position) => position.similarity)),
  };
}

/** Searches with the question (k = four hits per needle) and scores the set. */
export async function probeConfusables(
  recall: RecallAdapter,
  probe: ConfusableProbe,
): Promise<ConfusableSetReport> {
  const hits: AgentMessage[] = [];
  for (const id of await recall.search(probe.question, probe.needles.length * 4)) {
    const message = await recall.read(id);
    if (message !== undefined) hits.push(message);
  }
  return scoreConfusables(hits, probe);
}

function timestampOf(message: AgentMessage): number {
  const value = (message as { timestamp?: unknown }).timestamp;
  return typeof value === "number" ? value : 0;
}
