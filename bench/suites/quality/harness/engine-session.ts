/**
 * One engine under test, driven only the way Clew drives engines: a real `ContextEngineHost` over
 * a `TranscriptHostSession` in a temporary home, with the runtime's summary compaction (the
 * provenance stub as its summarizer) behind `delegateCompactionToRuntime`. The host calls the
 * contract (bootstrap, assemble with the pending user turn last, afterTurn/ingestBatch/ingest,
 * compact); the model step is a recorder that answers with the workload's own messages.
 *
 * Budgets: the reserve is 0 and the window is the budget plus the system prompt, so the budget the
 * host gives `assemble` is `budget − tokens(pending turn)` and "what the model was sent" is
 * measured against `budget`. Questions are asked in a turn that is aborted after the model step
 * recorded its request, and the transcript is restored afterwards, so asking never changes the
 * session or the engine's state.
 */
import { copyFile, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  type AgentMessage,
  bootstrapSession,
  type CompactResult,
  ContextEngineHost,
  createRuntimeCompaction,
  describeError,
  type FsyncPolicy,
  type HostModel,
  isMessageEntry,
  JsonlTranscriptStore,
  type ModelStepFunction,
  type Summarizer,
  silentLogger,
  type TokenCounter,
  TranscriptHostSession,
  type UserMessage,
} from "@clew/core";
import {
  type BenchEngineStats,
  type BenchEngineStatsHook,
  EngineStatsUnavailableError,
} from "../../../engine-stats.js";
import { benchEngine } from "../../../engines.js";
import type { RecallAdapter } from "../../../recall-adapter.js";
import type { ReplayTurn } from "../../../workloads/replay-turn.js";
import { type NotApplicable, notApplicable } from "../metrics/figure.js";
import type { FreshTail } from "../metrics/structural-validity.js";

/** The n/a reason of store figures for engines without the stats hook. */
export const NO_ENGINE_STORE = "no engine store";

export const QUALITY_SYSTEM_PROMPT = "You are a helpful assistant. Answer from the conversation so far.";

/** One model request: exactly what the model was sent. */
export interface RequestRecord {
  budget: number;
  step: number;
  /** The system prompt of the call (the engine's `systemPromptAddition` in front). */
  systemPrompt: string;
  /** The messages of the call, the pending user turn last. */
  messages: AgentMessage[];
  /** The turn in progress: its prompt and its last step so far, which must reach the model raw. */
  tail: FreshTail;
}

export interface CompactionRecord {
  trigger: string;
  /** `ask` compactions were undone with the rest of the question turn. */
  phase: SessionPhase;
  /** Index of the last replayed turn when it ran (-1 before any). */
  turn: number;
  tokensBefore?: number;
  tokensAfter?: number;
}

export interface ReplayOutcome {
  /** Wall time of each turn through the host, in ms. */
  turnMs: number[];
  /** Turns that failed (a context overflow the host could not resolve), with the reason. */
  failures: string[];
}

export interface ReplayHooks {
  /** Runs before each turn, outside its timing (for figures read between turns). */
  beforeTurn?(turn: number): Promise<void>;
}

export interface EngineSessionOptions {
  engine: string;
  /** A folder of its own (temporary); the transcript and engine state live under it. */
  root: string;
  sessionId: string;
  counter: TokenCounter;
  summarizer: Summarizer;
  budget: number;
  fsync?: FsyncPolicy;
}

export type SessionPhase = "replay" | "ask" | "manual";

/** Shared with the host's compaction hook, which runs before the session object exists. */
interface SessionProgress {
  phase: SessionPhase;
  turn: number;
  compactions: CompactionRecord[];
}

export class EngineSession {
  readonly recall: RecallAdapter | undefined;
  budget: number;
  private snapshotLeaf: string | null | undefined;

  private constructor(
    private readonly options: EngineSessionOptions,
    private readonly host: ContextEngineHost,
    private readonly store: JsonlTranscriptStore,
    private session: TranscriptHostSession,
    private readonly progress: SessionProgress,
    recall: RecallAdapter | undefined,
    private readonly statsHook: BenchEngineStatsHook | undefined,
    /** See `BenchEngineSetup.requestOnly`. */
    readonly requestOnly: ((message: AgentMessage) => boolean) | undefined,
  ) {
    this.budget = options.budget;
    this.recall = recall;
  }

  /** The host's transcript home of this session. */
  get transcriptDir(): string {
    return join(this.options.root, "home");
  }

  /** The folder of the engine's own state (what `stateDir` gave its setup). */
  get stateDir(): string {
    return join(this.options.root, "engine-state");
  }

  /** Whether the engine reports a store through the stats seam (M11, M12 read it). */
  get reportsStore(): boolean {
    return this.statsHook !== undefined;
  }

  /**
   * Whether the engine keeps messages of its own, apart from the transcript: it reports a store, or
   * its recall tools list what they hold. Only such an engine has something to bootstrap (M10).
   */
  get keepsStore(): boolean {
    return this.statsHook !== undefined || this.recall?.list !== undefined;
  }

  /**
   * The engine's stats once background maintenance is idle, `n/a (no engine store)` for an
   * engine without the hook, or `n/a (reason)` when the engine could not report. Other errors
   * of the hook propagate.
   */
  async engineStats(): Promise<BenchEngineStats | NotApplicable> {
    if (this.statsHook === undefined) return notApplicable(NO_ENGINE_STORE);
    await this.settle();
    try {
      return await this.statsHook(this.options.sessionId);
    } catch (error) {
      if (error instanceof EngineStatsUnavailableError) return notApplicable(error.reason);
      throw error;
    }
  }

  /** Compactions that reduced context, in order. */
  get compactions(): readonly CompactionRecord[] {
    return this.progress.compactions;
  }

  /** Opens (or creates) the session under `options.root`. Throws for an unknown engine. */
  static async open(options: EngineSessionOptions): Promise<EngineSession> {
    const stateDir = join(options.root, "engine-state");
    await mkdir(stateDir, { recursive: true });
    const setup = benchEngine(options.engine).setup({
      counter: options.counter,
      summarizer: options.summarizer,
      stateDir,
    });
    const progress: SessionProgress = { phase: "manual", turn: -1, compactions: [] };
    const host = new ContextEngineHost({
      registry: setup.registry,
      config: { ...setup.config, agents: { defaults: { compaction: { reserveTokens: 0 } } } },
      logger: silentLogger,
      tokenCounter: options.counter,
      runtimeCompaction: createRuntimeCompaction({
        counter: options.counter,
        modelSummarizer: options.summarizer,
        // The budget decides what stays raw (half of it), as in a small window.
        keepRecentTokens: Number.MAX_SAFE_INTEGER,
      }),
      hooks: {
        afterCompaction: (event) =>
          progress.compactions.push({
            trigger: event.trigger,
            phase: progress.phase,
            turn: progress.turn,
            ...tokensOf(event.result),
          }),
      },
    });
    let idCounter = 0;
    const store = new JsonlTranscriptStore({
      home: join(options.root, "home"),
      fsync: options.fsync ?? "never",
      randomId: () => `e${(++idCounter).toString(16).padStart(7, "0")}`,
    });
    const session = await TranscriptHostSession.openOrCreate(store, {
      agentId: "main",
      sessionId: options.sessionId,
    });
    const recall = setup.tools?.recall?.({ sessionId: options.sessionId });
    return new EngineSession(options, host, store, session, progress, recall, setup.stats, setup.requestOnly);
  }

  get sessionFile(): string {
    return this.session.sessionFile;
  }

  /** The engine the host resolved (guarded); its id tells whether it fell back to legacy. */
  async engineId(): Promise<string> {
    return (await this.host.engine()).engine.info.id;
  }

  /**
   * Replays `turns` through the host, the recorded steps standing in for the model. Every model
   * request goes to `onRequest`. A turn that fails is recorded and the replay goes on. Each turn
   * starts once the previous one's background maintenance has finished (`settle`).
   */
  async replay(
    turns: readonly ReplayTurn[],
    onRequest: (record: RequestRecord, turn: number) => void,
    hooks: ReplayHooks = {},
  ): Promise<ReplayOutcome> {
    const outcome: ReplayOutcome = { turnMs: [], failures: [] };
    this.progress.phase = "replay";
    for (const turn of turns) {
      this.progress.turn += 1;
      const turnNumber = this.progress.turn;
      await this.settle();
      await hooks.beforeTurn?.(turnNumber);
      let step = 0;
      const callModel: ModelStepFunction = async (request) => {
        const tail = { prompt: turn.prompt, unfinished: turn.steps[step - 1] ?? [] };
        onRequest(
          { budget: this.budget, step, systemPrompt: request.systemPrompt, messages: request.messages, tail },
          turnNumber,
        );
        const messages = turn.steps[step] ?? [];
        step += 1;
        return { messages, done: step >= turn.steps.length };
      };
      const started = performance.now();
      try {
        const result = await this.host.runTurn({
          session: this.session,
          prompt: turn.prompt,
          systemPrompt: QUALITY_SYSTEM_PROMPT,
          model: this.model(),
          callModel,
        });
        this.session = result.session as TranscriptHostSession;
      } catch (error) {
        outcome.failures.push(`turn ${turnNumber}: ${describeError(error)}`);
      }
      outcome.turnMs.push(performance.now() - started);
    }
    this.progress.phase = "manual";
    return outcome;
  }

  /**
   * What the model would be sent for `question` at the current budget (compacting first when the
   * engine or host would), or the reason no request was made. The session is left as it was.
   */
  async ask(question: UserMessage): Promise<RequestRecord | { failed: string }> {
    await this.settle();
    await this.checkpoint();
    const controller = new AbortController();
    const asked = Object.assign(new Error("question recorded"), { name: "AbortError" });
    let record: RequestRecord | undefined;
    const callModel: ModelStepFunction = async (request) => {
      record = {
        budget: this.budget,
        step: 0,
        systemPrompt: request.systemPrompt,
        messages: request.messages,
        tail: { prompt: question, unfinished: [] },
      };
      controller.abort(asked);
      throw asked;
    };
    let failure = "the turn ended without a model request";
    this.progress.phase = "ask";
    try {
      await this.host.runTurn({
        session: this.session,
        prompt: question,
        systemPrompt: QUALITY_SYSTEM_PROMPT,
        model: this.model(),
        callModel,
        signal: controller.signal,
      });
    } catch (error) {
      if (record === undefined) failure = describeError(error);
    }
    this.progress.phase = "manual";
    await this.restore();
    return record ?? { failed: failure };
  }

  /** A compaction through the engine toward `tokenBudget` (`/compact` with a budget). */
  async compact(tokenBudget: number): Promise<CompactResult> {
    await this.settle();
    const outcome = await this.host.compactSession(this.session, {
      trigger: "manual",
      compactionTarget: "budget",
      forceReason: "manual",
      tokenBudget,
      model: this.model(),
    });
    this.session = outcome.session as TranscriptHostSession;
    return outcome.result;
  }

  /** Runs the engine's bootstrap as the host does on first sight of an existing session. */
  async bootstrap(): Promise<void> {
    const { engine } = await this.host.engine();
    await bootstrapSession(this.host, engine, this.session, this.model());
  }

  /** Every message entry of the stored transcript's active branch, read back from disk. */
  async storedMessages(): Promise<{ messages: AgentMessage[]; summaryBytes: number }> {
    await this.session.flush();
    const transcript = await this.store.openReadOnly("main", this.options.sessionId);
    const branch = transcript.branch();
    await transcript.close();
    let summaryBytes = 0;
    for (const entry of branch) {
      if (entry.type === "compaction" && typeof entry.summary === "string")
        summaryBytes += Buffer.byteLength(entry.summary, "utf8");
    }
    return { messages: branch.filter(isMessageEntry).map((entry) => entry.message), summaryBytes };
  }

  async close(): Promise<void> {
    try {
      await this.session.close();
    } finally {
      await this.host.dispose();
      await rm(this.snapshotPath(), { force: true });
    }
  }

  /**
   * Waits for the host's background maintenance (engines with `turnMaintenanceMode: "background"`
   * compact there). Turns are paced as a person paces them: the previous turn's maintenance has
   * finished before the next turn, a question or a compaction starts. Without this wait the
   * figures would depend on how a pass interleaves with the next turn's file I/O.
   */
  private async settle(): Promise<void> {
    await this.host.maintenance.whenIdle();
  }

  private model(): HostModel {
    return {
      id: "quality-model",
      provider: "anthropic",
      api: "anthropic-messages",
      contextWindow: this.budget + this.options.counter.countText(QUALITY_SYSTEM_PROMPT),
    };
  }

  private snapshotPath(): string {
    return join(this.options.root, "transcript.snapshot");
  }

  private async checkpoint(): Promise<void> {
    if (this.snapshotLeaf === this.session.transcript.leafId) return;
    await this.session.flush();
    await copyFile(this.session.sessionFile, this.snapshotPath());
    this.snapshotLeaf = this.session.transcript.leafId;
  }

  /** Puts the transcript back as it was at the checkpoint and reopens it. */
  private async restore(): Promise<void> {
    if (this.session.transcript.leafId === this.snapshotLeaf) return;
    await this.session.close();
    await copyFile(this.snapshotPath(), this.session.sessionFile);
    this.session = await TranscriptHostSession.openOrCreate(this.store, {
      agentId: "main",
      sessionId: this.options.sessionId,
    });
  }
}

function tokensOf(result: CompactResult): Pick<CompactionRecord, "tokensBefore" | "tokensAfter"> {
  const detail = result.result;
  return {
    ...(detail?.tokensBefore === undefined ? {} : { tokensBefore: detail.tokensBefore }),
    ...(detail?.tokensAfter === undefined ? {} : { tokensAfter: detail.tokensAfter }),
  };
}
