/**
 * The host a pipeline cell runs: the engine under test, the cell's token counter, the runtime's
 * summary compaction with the stub summarizer, and a model so large no turn compacts.
 */
import {
  type AssistantMessage,
  ContextEngineHost,
  createRuntimeCompaction,
  type HostModel,
  type ModelStepFunction,
  type Summarizer,
  silentLogger,
  type TokenCounter,
} from "@clew/core";
import { benchEngine } from "../../engines.js";

/**
 * Anthropic Messages, as the recorded sessions were: its transcript policy (strict tool-call ids,
 * synthetic results, user merges) is the most work the history pipeline does. The window is far
 * beyond any workload, so turn figures never include a compaction.
 */
export const BENCH_MODEL: HostModel = {
  id: "bench-model",
  provider: "anthropic",
  api: "anthropic-messages",
  contextWindow: 1_000_000_000,
};

export const BENCH_SYSTEM_PROMPT = "You are a coding agent working in a large repository.";

export interface BenchHostOptions {
  engine: string;
  counter: TokenCounter;
  summarizer: Summarizer;
  keepRecentTokens: number;
}

/** Throws `InvalidOptionError` for an unknown engine id. */
export function createBenchHost(options: BenchHostOptions): ContextEngineHost {
  const { registry, config } = benchEngine(options.engine).setup();
  return new ContextEngineHost({
    registry,
    config,
    logger: silentLogger,
    tokenCounter: options.counter,
    runtimeCompaction: createRuntimeCompaction({
      counter: options.counter,
      modelSummarizer: options.summarizer,
      keepRecentTokens: options.keepRecentTokens,
    }),
  });
}

/**
 * A model that answers every call at once with the same short reply, reporting provider usage as
 * a real one does (so the host never has to estimate the context after the turn). `elapsedMs`
 * sums the time spent inside it, to be taken out of turn figures.
 */
export class InstantModel {
  elapsedMs = 0;
  readonly callModel: ModelStepFunction = async () => {
    const started = performance.now();
    const reply = instantReply(Date.now());
    this.elapsedMs += performance.now() - started;
    return { messages: [reply], done: true };
  };
}

function instantReply(timestamp: number): AssistantMessage {
  return {
    role: "assistant",
    content: [
      { type: "text", text: "Done. The change is in place and the tests pass; next I will tidy the docs." },
    ],
    api: "anthropic-messages",
    provider: "anthropic",
    model: BENCH_MODEL.id,
    usage: {
      input: 1_000,
      output: 24,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 1_024,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp,
  };
}
