import type { AgentMessage } from "@clew/core";
import { expect } from "vitest";
import type { LosslessEngine } from "../../src/lossless-engine.js";
import { store } from "./preparation.js";
import { recallToolsOf } from "./recall.js";

/** Budgets that force five real compactions on the long conversations of these tests. */
export const SHRINKING_BUDGETS = [16_000, 8_000, 4_000, 2_000, 1_000] as const;

/** Stores `messages` as one session and compacts it once per budget, each time for real. */
export async function storeAndCompactFiveTimes(
  engine: LosslessEngine,
  sessionId: string,
  messages: AgentMessage[],
): Promise<void> {
  await store(engine, sessionId, messages);
  for (const tokenBudget of SHRINKING_BUDGETS) {
    const result = await engine.compact({ sessionId, tokenBudget, force: true });
    expect(result, `compaction at ${tokenBudget}`).toMatchObject({ ok: true, compacted: true });
  }
}

/** The stored message `id` read back through recall_read, parsed from its stored JSON. */
export async function readBack(engine: LosslessEngine, sessionId: string, id: string): Promise<unknown> {
  const { read } = recallToolsOf(engine, sessionId);
  const page = await read.execute("read", { messageIds: [id], maxTokens: 32_000 });
  const [entry] = page.details.messages as Array<{ id: string; message?: unknown }>;
  expect(entry?.id).toBe(id);
  return entry?.message;
}
