/**
 * The lossless engine (#8) in the bench: its SQLite store lives in the cell's temporary state
 * folder, and its recall tools (recall_search, recall_read) serve the suite's recall seam.
 */

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { AgentMessage, ContextEngineRegistry, TokenCounter } from "@clew/core";
import { charEstimateTokenCounter, createContextEngineRegistry, withTokenCache } from "@clew/core";
import { type LosslessEngine, openLosslessEngine } from "@clew/engine-lossless";
import type { RecallAdapter } from "./recall-adapter.js";

export const LOSSLESS_ENGINE_ID = "lossless";

export function losslessSetup(options: { counter?: TokenCounter; stateDir?: string }): {
  registry: ContextEngineRegistry;
  engine: () => LosslessEngine;
} {
  const stateDir = options.stateDir ?? join(process.cwd(), ".bench-lossless");
  mkdirSync(stateDir, { recursive: true });
  const engine = openLosslessEngine(join(stateDir, "lossless.db"), {
    tokenCounter: options.counter ?? withTokenCache(charEstimateTokenCounter),
  });
  const registry = createContextEngineRegistry();
  registry.registerContextEngine(LOSSLESS_ENGINE_ID, () => engine, { owner: "test:bench-lossless" });
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
  };
}
