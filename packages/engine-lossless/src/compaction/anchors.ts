/**
 * Anchors: the identifiers of a summary's sources (paths, URLs, hashes, ids, commands, error
 * strings, numbers with units), found by code (`extractIdentifiers` from core, never a model),
 * each linked to the messages it occurs in. A condensed node carries every anchor of its children
 * verbatim, so an identifier stays findable however deep the summary of its message is.
 */
import { type AgentMessage, extractIdentifiersFromMessages } from "@clew/core";
import type { SummaryAnchor } from "../store/store.js";

/**
 * Condensed nodes keep at most this many message links per anchor (the leaves keep them all): the
 * root of a long session would otherwise repeat every link of the whole history.
 */
const CONDENSED_LINKS_PER_ANCHOR = 8;

/** Anchors of raw messages, in order of first appearance, each with every message it is in. */
export function anchorsOfMessages(
  messages: ReadonlyArray<{ seq: number; message: AgentMessage }>,
): SummaryAnchor[] {
  const links = new Map<string, number[]>();
  for (const { seq, message } of messages) {
    for (const value of extractIdentifiersFromMessages([message])) {
      const seqs = links.get(value);
      if (seqs === undefined) links.set(value, [seq]);
      else if (seqs.at(-1) !== seq) seqs.push(seq);
    }
  }
  return [...links].map(([value, seqs]) => ({ value, messages: seqs }));
}

/** The union of anchor lists, oldest list first, with message links merged and capped. */
export function mergeAnchors(lists: ReadonlyArray<readonly SummaryAnchor[]>): SummaryAnchor[] {
  const links = new Map<string, Set<number>>();
  for (const list of lists) {
    for (const anchor of list) {
      let seqs = links.get(anchor.value);
      if (seqs === undefined) {
        seqs = new Set();
        links.set(anchor.value, seqs);
      }
      for (const seq of anchor.messages) {
        if (seqs.size >= CONDENSED_LINKS_PER_ANCHOR) break;
        seqs.add(seq);
      }
    }
  }
  return [...links].map(([value, seqs]) => ({
    value,
    messages: [...seqs].sort((left, right) => left - right),
  }));
}
