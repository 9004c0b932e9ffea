import { describeError, type HostModel, type ModelStepFunction, type PreparedSystemPrompt } from "@clew/core";
import { memoryFlushPrompt, shouldRunMemoryFlush } from "@clew/memory-core";
import { memoryCoreActive } from "./agent-runtime.js";
import type { LocalAgentService, OpenSession } from "./local-agent-service.js";

/**
 * The pre-compaction memory flush: shortly before the context would be compacted, a silent turn
 * lets the agent write durable notes (memory/YYYY-MM-DD.md) so nothing it needs later lives only
 * in messages a summary may shorten. Once per compaction cycle; its reply is never shown. A failed
 * flush is logged and the user's turn runs anyway.
 */
export async function maybeFlushMemory(
  service: LocalAgentService,
  open: OpenSession,
  run: {
    model: HostModel;
    window: number;
    prepared: PreparedSystemPrompt;
    step: ModelStepFunction;
    signal?: AbortSignal;
  },
): Promise<boolean> {
  const config = service.options.config;
  if (!memoryCoreActive(config)) return false;
  const entry = await open.runtime.index.get(open.key);
  const contextTokens = entry?.tokens?.context;
  if (entry === undefined || contextTokens === undefined) return false;
  const lastFlush =
    typeof entry.memoryFlushCompactionCount === "number" ? entry.memoryFlushCompactionCount : undefined;
  const due = shouldRunMemoryFlush({
    contextTokens,
    window: run.window,
    // The reserve the host's own budgets keep (a 16k window affords 8,000, not 20,000), so the
    // flush comes just before the compaction it precedes, on small windows too.
    reserveFloor: open.runtime.host.effectiveReserveTokens(run.window),
    compactionCount: entry.compactionCount,
    ...(lastFlush === undefined ? {} : { lastFlushCompactionCount: lastFlush }),
  });
  if (!due) return false;
  const timeZone = config.agents?.defaults?.userTimezone;
  const flush = memoryFlushPrompt({
    now: service.now(),
    ...(typeof timeZone === "string" ? { timeZone } : {}),
  });
  try {
    await open.runtime.host.runTurn({
      session: open.session,
      prompt: flush.prompt,
      // The run's own system prompt, so the flush call reads the prefix the turn before it cached.
      systemPrompt: run.prepared.prompt.text,
      model: run.model,
      callModel: run.step,
      ...(config.agents?.defaults?.maxStepsPerTurn === undefined
        ? {}
        : { maxSteps: config.agents.defaults.maxStepsPerTurn }),
      ...(run.signal === undefined ? {} : { signal: run.signal }),
    });
  } catch (error) {
    service.options.logger.warn(`memory flush failed; continuing with the turn: ${describeError(error)}`);
  }
  await open.runtime.index.upsert(open.key, {
    memoryFlushAt: service.now(),
    memoryFlushCompactionCount: entry.compactionCount,
  });
  return true;
}
