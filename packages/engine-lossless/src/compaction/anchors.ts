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
  return linkedAnchors(messages, Number.POSITIVE_INFINITY);
}

/**
 * A leaf's anchors: exactly `mergeAnchors([anchorsOfMessages(messages)])`, made in one pass. The
 * links of a frequent identifier are not collected only to be cut to the first
 * `CONDENSED_LINKS_PER_ANCHOR`, and the anchors are not merged again.
 */
export function anchorsOfLeaf(
  messages: ReadonlyArray<{ seq: number; message: AgentMessage }>,
): SummaryAnchor[] {
  const anchors = linkedAnchors(messages, CONDENSED_LINKS_PER_ANCHOR);
  for (const anchor of anchors) {
    if (!isAscending(anchor.messages)) anchor.messages.sort((left, right) => left - right);
  }
  return anchors;
}

/**
 * Each identifier of `messages` linked to the first `linksPerAnchor` messages it is in. A seq is
 * compared with the last link only: every message of a view has its own seq, so a repeat can only
 * come from the same message.
 */
function linkedAnchors(
  messages: ReadonlyArray<{ seq: number; message: AgentMessage }>,
  linksPerAnchor: number,
): SummaryAnchor[] {
  const links = new Map<string, number[]>();
  for (const { seq, message } of messages) {
    for (const value of extractIdentifiersFromMessages([message])) {
      const seqs = links.get(value);
      if (seqs === undefined) links.set(value, [seq]);
      else if (seqs.length < linksPerAnchor && seqs.at(-1) !== seq) seqs.push(seq);
    }
  }
  const anchors: SummaryAnchor[] = [];
  for (const [value, seqs] of links) anchors.push({ value, messages: seqs });
  return anchors;
}

/** The union of anchor lists, oldest list first, with message links merged and capped. */
export function mergeAnchors(lists: ReadonlyArray<readonly SummaryAnchor[]>): SummaryAnchor[] {
  const links = new Map<string, MergedLinks>();
  for (const list of lists) {
    for (const anchor of list) {
      const merged = links.get(anchor.value);
      if (merged === undefined) links.set(anchor.value, firstLinks(anchor.messages));
      else addLinks(merged, anchor.messages);
    }
  }
  const anchors: SummaryAnchor[] = [];
  for (const [value, { seqs }] of links) {
    anchors.push({ value, messages: isAscending(seqs) ? seqs : seqs.sort((left, right) => left - right) });
  }
  return anchors;
}

/**
 * Links being merged. A list that is final already (ascending, distinct, within the cap: every
 * condensed node's, and most leaves') is shared until another list adds to it, since most
 * anchors occur in one child only; anchor lists are never changed once made.
 */
interface MergedLinks {
  seqs: number[];
  shared: boolean;
}

function firstLinks(messages: readonly number[]): MergedLinks {
  if (messages.length <= CONDENSED_LINKS_PER_ANCHOR && isStrictlyAscending(messages)) {
    return { seqs: messages as number[], shared: true };
  }
  const merged: MergedLinks = { seqs: [], shared: false };
  addLinks(merged, messages);
  return merged;
}

function addLinks(merged: MergedLinks, messages: readonly number[]): void {
  for (const seq of messages) {
    if (merged.seqs.length >= CONDENSED_LINKS_PER_ANCHOR) return;
    if (merged.seqs.includes(seq)) continue;
    if (merged.shared) {
      merged.seqs = [...merged.seqs];
      merged.shared = false;
    }
    merged.seqs.push(seq);
  }
}

function isAscending(values: readonly number[]): boolean {
  for (let index = 1; index < values.length; index++) {
    if ((values[index - 1] as number) > (values[index] as number)) return false;
  }
  return true;
}

function isStrictlyAscending(values: readonly number[]): boolean {
  for (let index = 1; index < values.length; index++) {
    if ((values[index - 1] as number) >= (values[index] as number)) return false;
  }
  return true;
}
