/**
 * The lossless engine (#8) in the bench: its SQLite store lives in the cell's temporary state
 * folder, it summarizes with the suite's summarizer, its recall tools (recall_search, recall_read)
 * serve the suite's recall seam, and its `inspect` report serves the stats seam.
 */

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage, ContextEngineRegistry, Summarizer, TokenCounter } from "@clew/core";
import { charEstimateTokenCounter, createContextEngineRegistry, withTokenCache } from "@clew/core";
import { type LosslessEngine, openLosslessEngine, type RecallPage } from "@clew/engine-lossless";
import { type BenchEngineStats, EngineStatsUnavailableError } from "./engine-stats.js";
import type { RecallAdapter } from "./recall-adapter.js";

export const LOSSLESS_ENGINE_ID = "lossless";

/** The largest page `recall_read` serves; a message larger than this comes back in slices. */
const READ_PAGE_TOKENS = 32_000;
/** The latest time JavaScript dates can hold: a range up to it holds every stored message. */
const LATEST_TIME = new Date(8.64e15).toISOString();

export function losslessSetup(options: {
  counter?: TokenCounter;
  stateDir?: string;
  summarizer?: Summarizer;
  /** The engine's `wordVectors` (default: the shipped table); `false` for words alone. */
  wordVectors?: string | false;
  /** The id the engine is registered under (`lossless`); a variant registers under its own. */
  engineId?: string;
}): {
  registry: ContextEngineRegistry;
  engine: () => LosslessEngine;
} {
  const stateDir = options.stateDir ?? join(process.cwd(), ".bench-lossless");
  mkdirSync(stateDir, { recursive: true });
  const engine = openLosslessEngine(join(stateDir, "lossless.db"), {
    tokenCounter: options.counter ?? withTokenCache(charEstimateTokenCounter),
    // The suite's summarizer labels its sources, so summaries earn "covered" credit (M1) as
    // legacy's do; without it the engine would write its own extractive summaries.
    ...(options.summarizer === undefined ? {} : { summarizer: options.summarizer }),
    ...(options.wordVectors === undefined ? {} : { wordVectors: options.wordVectors }),
  });
  const registry = createContextEngineRegistry();
  registry.registerContextEngine(options.engineId ?? LOSSLESS_ENGINE_ID, () => engine, {
    owner: "test:bench-lossless",
  });
  return { registry, engine: () => engine };
}

/** The suite's recall seam over the engine's own tools: message hits only, read back byte-exact. */
export function losslessRecall(engine: LosslessEngine, sessionId: string): RecallAdapter {
  const [search, read] = engine.tools({ sessionId });
  return {
    async search(query, k) {
      if (search === undefined) return [];
      const result = await search.execute("bench", { query, limit: Math.min(50, Math.max(1, k)) });
      const hits = (result.details as { hits: Array<{ kind: string; id: string }> }).hits;
      return hits
        .filter((hit) => hit.kind === "message")
        .map((hit) => hit.id)
        .slice(0, k);
    },
    async read(id) {
      if (read === undefined) return undefined;
      try {
        const result = await read.execute("bench", { messageIds: [id], maxTokens: 1_000_000 });
        const page = result.details as { messages: Array<{ id: string; message?: AgentMessage }> };
        return page.messages.find((message) => message.id === id)?.message;
      } catch {
        return undefined;
      }
    },
    // Every stored message lies in the time range up to the latest date; recall_read pages
    // through it in storage order. A message sliced over pages is listed once.
    async list() {
      if (read === undefined) return [];
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const result = await read.execute("bench", {
          to: LATEST_TIME,
          maxTokens: READ_PAGE_TOKENS,
          ...(cursor === undefined ? {} : { cursor }),
        });
        const page = result.details as RecallPage;
        for (const message of page.messages) if (ids.at(-1) !== message.id) ids.push(message.id);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return ids;
    },
  };
}

/**
 * The stats seam over `LosslessEngine.inspect`. Throws `EngineStatsUnavailableError` when the
 * engine reports its store unavailable.
 */
export async function losslessStats(engine: LosslessEngine, sessionId: string): Promise<BenchEngineStats> {
  const { store, session } = await engine.inspect(sessionId);
  if (!store.available)
    throw new EngineStatsUnavailableError(LOSSLESS_ENGINE_ID, store.failure ?? "store unavailable");
  return {
    storeBytes: store.bytesOnDisk,
    messagesStored: session.messageCount,
    compaction: { passes: session.compactionPasses, tokensRemovedTotal: session.tokensRemovedTotal },
    summaries: {
      count: session.summaryCount,
      summaryTokens: session.summaryTokens,
      sourceTokens: session.summarySourceTokens,
      deepestChain: session.deepestChain,
    },
  };
}
