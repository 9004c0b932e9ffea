/**
 * The recall seam of the quality suite: how the harness reaches an engine's recall tools (search
 * over everything the engine stored, and reading an original message back). An engine that has
 * such tools exposes them through `BenchEngine.setup()` as `tools.recall`; the lossless engine
 * (issue #8) plugs its grep/expand tools in here. Engines without it get "n/a" for the recall
 * metrics (M2, M4 c–e, M5), never a made-up number.
 *
 * Contract:
 * - Ids are the engine's own; the harness never parses them. It maps a hit to its source by
 *   reading it back and hashing the message (canonical JSON), so an engine that rewrites a message
 *   loses the hit rather than being credited for it.
 * - `search` returns at most `k` ids, best first, `[]` when nothing matches; it throws only when
 *   the engine is broken (the harness records the error).
 * - `read` returns the original message byte for byte (same canonical JSON as ingested), or
 *   undefined for an unknown id.
 * - `list`, when present, returns every stored id in the order messages were stored.
 */
import type { AgentMessage } from "@clew/core";

export interface RecallAdapter {
  search(query: string, k: number): Promise<string[]>;
  read(id: string): Promise<AgentMessage | undefined>;
  list?(): Promise<string[]>;
}

/** Tools an engine registers for the suite, bound per session. */
export interface BenchEngineTools {
  recall?(session: { sessionId: string }): RecallAdapter;
}
