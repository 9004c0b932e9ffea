/**
 * M2, recall-tool recall@k and MRR: the engine's recall search with the question as query, each hit
 * mapped to its source id by reading it back and hashing it (provenance), scored against the
 * question's evidence ids.
 */
import type { AgentMessage } from "@clew/core";
import type { RecallAdapter } from "../../../recall-adapter.js";
import { mean, share } from "./figure.js";

export interface RankingScore {
  /** k → share of the evidence ids among the first k hits. */
  recallAt: Record<string, number>;
  /** 1 / rank of the first evidence hit, 0 when none is found. */
  reciprocalRank: number;
}

export interface RecallRankingReport {
  questions: number;
  recallAt: Record<string, number>;
  mrr: number;
}

/** Scores one ranked list of source ids (`undefined` for hits with no known source). */
export function scoreRanking(
  ranked: readonly (string | undefined)[],
  evidence: readonly string[],
  ks: readonly number[],
): RankingScore {
  const recallAt: Record<string, number> = {};
  for (const k of ks) {
    const top = new Set(ranked.slice(0, k));
    recallAt[String(k)] = share(evidence.filter((id) => top.has(id)).length, evidence.length);
  }
  const first = ranked.findIndex((id) => id !== undefined && evidence.includes(id));
  return { recallAt, reciprocalRank: first < 0 ? 0 : 1 / (first + 1) };
}

/** Averages per-question scores. */
export function summarizeRanking(
  scores: readonly RankingScore[],
  ks: readonly number[],
): RecallRankingReport {
  const recallAt: Record<string, number> = {};
  for (const k of ks) recallAt[String(k)] = mean(scores.map((score) => score.recallAt[String(k)] ?? 0));
  return { questions: scores.length, recallAt, mrr: mean(scores.map((score) => score.reciprocalRank)) };
}

/** Runs `search(question, max k)` and maps every hit to its source id through `sourceIdOf`. */
export async function rankedSources(
  recall: RecallAdapter,
  query: string,
  k: number,
  sourceIdOf: (message: AgentMessage) => string | undefined,
): Promise<(string | undefined)[]> {
  const ids = await recall.search(query, k);
  const sources: (string | undefined)[] = [];
  for (const id of ids) {
    const message = await recall.read(id);
    sources.push(message === undefined ? undefined : sourceIdOf(message));
  }
  return sources;
}
