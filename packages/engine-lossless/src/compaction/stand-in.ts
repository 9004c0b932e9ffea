/**
 * How a summary written in a model's place is named: `<writer> in place of <model>`, the writer
 * being the extractive summarizer, its merge of the children or the digest, and the model the
 * configured summarizer that did not write it (the spend budget had no room, the call failed or
 * timed out). Only such summaries are written again by the model later (upgrades); a summary the
 * extractive summarizer wrote because it was the one configured keeps its plain id.
 */
import { EXTRACTIVE_SUMMARIZER_ID } from "@clew/core";

const IN_PLACE_OF = " in place of ";

/** The `summarizer` recorded for a summary `writer` wrote when `intended` was to write it. */
export function writerId(writer: string, intended: string): string {
  const standIn = intended !== EXTRACTIVE_SUMMARIZER_ID && writer !== intended;
  return standIn ? `${writer}${IN_PLACE_OF}${intended}` : writer;
}

/** Whether a summary's `summarizer` names a stand-in (see `writerId`). */
export function isStandIn(summarizer: string): boolean {
  return summarizer.includes(IN_PLACE_OF);
}
