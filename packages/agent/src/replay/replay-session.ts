import {
  type AgentMessage,
  agentDir,
  type ClewConfig,
  ContextEngineHost,
  type ContextEngineRegistry,
  type ContextEngineStatusSection,
  countMessagesTokens,
  createRuntimeCompaction,
  JsonlTranscriptStore,
  type Logger,
  type ModelStepFunction,
  type PreparedContext,
  type TokenCounter,
  TranscriptHostSession,
} from "@clew/core";
import { engineStatusOf } from "../service/engine-status-section.js";
import type { RecordedTurn } from "./recorded-turns.js";

export interface ReplayProgress {
  turn: number;
  totalTurns: number;
  /** Tokens of the last request of the turn (system prompt and messages). */
  contextTokens: number;
  window: number;
}

export interface ReplayCompaction {
  turn: number;
  trigger: string;
  tokensBefore?: number;
  tokensAfter?: number;
}

export interface ReplayResult {
  sessionKey: string;
  sessionId: string;
  turns: number;
  compactions: ReplayCompaction[];
  /** Context fill after each turn. */
  fill: ReplayProgress[];
  /** What the model was sent on the last call of the last turn. */
  lastContext: PreparedContext | undefined;
  /** The messages of that call, pending turn messages included. */
  lastRequestMessages: AgentMessage[];
  engineId: string;
  /**
   * The engine's own account of the session at the end (`describeStatus`), e.g. the compaction
   * passes of an engine that compacts in its background maintenance, which the host never sees.
   */
  engineStatus?: ContextEngineStatusSection;
}

export interface ReplayOptions {
  turns: readonly RecordedTurn[];
  /** A Clew home for the replayed session (a temporary folder: replays never touch real sessions). */
  home: string;
  registry: ContextEngineRegistry;
  config: ClewConfig;
  window: number;
  counter: TokenCounter;
  logger: Logger;
  systemPrompt: string;
  onTurn?: (progress: ReplayProgress, compactions: ReplayCompaction[]) => void;
  now?: () => number;
}

/**
 * Replays a recorded session through the selected engine: each recorded user message is a turn,
 * and the recorded assistant messages (with their tool results) stand in for the model, step by
 * step. Compaction, pruning and the engine's assembly run for real, so the result shows what the
 * engine would have sent and when it compacted.
 */
export async function replaySession(options: ReplayOptions): Promise<ReplayResult> {
  const store = new JsonlTranscriptStore({ home: options.home, fsync: "never" });
  const session = await TranscriptHostSession.openOrCreate(store, {
    agentId: "main",
    sessionId: "replay",
    sessionKey: "agent:main:replay",
  });
  const host = new ContextEngineHost({
    registry: options.registry,
    // Engines that keep their own store (lossless) put it in the replay's temporary agent folder.
    agentDir: agentDir(options.home, "main"),
    config: options.config,
    logger: options.logger,
    tokenCounter: options.counter,
    runtimeCompaction: createRuntimeCompaction({
      counter: options.counter,
      logger: options.logger,
      ...keepRecent(options),
    }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const result: ReplayResult = {
    sessionKey: session.sessionKey,
    sessionId: session.sessionId,
    turns: 0,
    compactions: [],
    fill: [],
    lastContext: undefined,
    lastRequestMessages: [],
    engineId: (await host.status()).effectiveId,
  };
  let current = session as TranscriptHostSession;
  try {
    for (const [index, turn] of options.turns.entries()) {
      let step = 0;
      let sent: AgentMessage[] = [];
      const callModel: ModelStepFunction = async (request) => {
        sent = request.messages;
        const messages = turn.steps[step] ?? [];
        step += 1;
        return { messages, done: step >= turn.steps.length };
      };
      const outcome = await host.runTurn({
        session: current,
        prompt: turn.prompt,
        systemPrompt: options.systemPrompt,
        model: { id: "replay", provider: "replay", contextWindow: options.window },
        callModel,
      });
      current = outcome.session as TranscriptHostSession;
      const compactions = outcome.compactions
        .filter((item) => item.result.compacted)
        .map((item) => ({
          turn: index + 1,
          trigger: item.trigger,
          ...(item.result.result?.tokensBefore === undefined
            ? {}
            : { tokensBefore: item.result.result.tokensBefore }),
          ...(item.result.result?.tokensAfter === undefined
            ? {}
            : { tokensAfter: item.result.result.tokensAfter }),
        }));
      result.compactions.push(...compactions);
      const progress: ReplayProgress = {
        turn: index + 1,
        totalTurns: options.turns.length,
        contextTokens:
          options.counter.countText(outcome.lastContext.systemPrompt) +
          countMessagesTokens(options.counter, sent),
        window: options.window,
      };
      result.fill.push(progress);
      result.turns = index + 1;
      result.lastContext = outcome.lastContext;
      result.lastRequestMessages = sent;
      result.engineId = outcome.engineId;
      options.onTurn?.(progress, compactions);
    }
    const status = await engineStatusOf(host, current.sessionId);
    if (status !== undefined) result.engineStatus = status;
  } finally {
    await current.close();
    await host.dispose();
  }
  return result;
}

function keepRecent(options: ReplayOptions): { keepRecentTokens?: number } {
  const configured = options.config.agents?.defaults?.compaction?.keepRecentTokens;
  // A quarter of the window keeps room for the summary and the next turns in small windows.
  return { keepRecentTokens: configured ?? Math.min(20_000, Math.floor(options.window / 4)) };
}
