/**
 * M4, needle survival after N compactions. Per needle: (a) its fact sentence verbatim in what the
 * model was sent; (b) only its code there (it survived inside a summary); (c) `recall(code)` finds
 * a message holding the code in the top 5; (d) `recall(fact words without the code)` does in the
 * top 10; (e) reading that hit back gives the carrier message byte for byte.
 */
import type { AgentMessage } from "@clew/core";
import { messageHash } from "../../../metrics/message-hash.js";
import type { RecallAdapter } from "../../../recall-adapter.js";
import { contextText, messageText, normalizeWhitespace } from "../harness/message-text.js";
import { type Figure, notApplicable, share } from "./figure.js";

export interface NeedleProbe {
  code: string;
  sentence: string;
  factQuery: string;
  /** The message the needle was written into, as the workload made it. */
  carrier: AgentMessage;
}

export interface NeedleContextResult {
  verbatim: boolean;
  /** The code is there but not the whole sentence. */
  codeOnly: boolean;
}

export interface NeedleRecallResult {
  byCode: boolean;
  byFact: boolean;
  expandExact: boolean;
}

export interface NeedleLevelReport {
  /** Forced compactions asked for so far (N). */
  level: number;
  budget: number;
  /** Compactions that actually reduced context so far. */
  compactions: number;
  needles: number;
  verbatim: number;
  codeOnly: number;
  /** Verbatim or code only. */
  codeInContext: number;
  recallByCode: Figure;
  recallByFact: Figure;
  expandExact: Figure;
  /** Asks that produced no request (the turn failed). */
  failedAsks: number;
}

/** Where the needle is in the request's messages (the pending question excluded). */
export function needleInContext(messages: readonly AgentMessage[], probe: NeedleProbe): NeedleContextResult {
  const text = contextText(messages);
  const verbatim = text.includes(normalizeWhitespace(probe.sentence));
  return { verbatim, codeOnly: !verbatim && text.includes(probe.code) };
}

/** Recall checks (c), (d), (e) for one needle. */
export async function needleRecall(recall: RecallAdapter, probe: NeedleProbe): Promise<NeedleRecallResult> {
  const firstHolding = async (query: string, k: number): Promise<AgentMessage | undefined> => {
    for (const id of await recall.search(query, k)) {
      const message = await recall.read(id);
      if (message !== undefined && messageText(message).includes(probe.code)) return message;
    }
    return undefined;
  };
  const byCode = await firstHolding(probe.code, 5);
  const byFact = await firstHolding(probe.factQuery.replace(/\?$/, ""), 10);
  return {
    byCode: byCode !== undefined,
    byFact: byFact !== undefined,
    expandExact: byCode !== undefined && messageHash(byCode) === messageHash(probe.carrier),
  };
}

export function summarizeNeedleLevel(input: {
  level: number;
  budget: number;
  compactions: number;
  context: readonly (NeedleContextResult | undefined)[];
  recall: readonly NeedleRecallResult[] | undefined;
}): NeedleLevelReport {
  const needles = input.context.length;
  const present = input.context.filter((result): result is NeedleContextResult => result !== undefined);
  const verbatim = present.filter((result) => result.verbatim).length;
  const codeOnly = present.filter((result) => result.codeOnly).length;
  const recallShare = (pick: (result: NeedleRecallResult) => boolean): Figure =>
    input.recall === undefined
      ? notApplicable("no recall tool")
      : share(input.recall.filter(pick).length, input.recall.length);
  return {
    level: input.level,
    budget: input.budget,
    compactions: input.compactions,
    needles,
    verbatim: share(verbatim, needles),
    codeOnly: share(codeOnly, needles),
    codeInContext: share(verbatim + codeOnly, needles),
    recallByCode: recallShare((result) => result.byCode),
    recallByFact: recallShare((result) => result.byFact),
    expandExact: recallShare((result) => result.expandExact),
    failedAsks: needles - present.length,
  };
}
