import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage, AssembleResult, SummarizeInput, Summarizer } from "@clew/core";
import { LosslessEngine } from "../../src/lossless-engine.js";
import type { LosslessEngineOptions } from "../../src/options.js";
import { openSqliteStore, type SqliteLosslessStore } from "../../src/store/sqlite/sqlite-store.js";
import { codingConversation } from "./conversations.js";

/** A summarizer standing in for a model: counts calls, tracks how many run at once, can be held. */
export class StubSummarizer implements Summarizer {
  readonly id: string;
  /** Timestamp of the first message of each call, in call order. */
  readonly calls: number[] = [];
  inFlight = 0;
  maxInFlight = 0;
  private held: Array<() => void> | undefined;

  constructor(private readonly label: string) {
    this.id = `model:test/${label}`;
  }

  /** Calls wait from now until `release`. */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const waiting = this.held ?? [];
    this.held = undefined;
    for (const resume of waiting) resume();
  }

  async summarize(input: SummarizeInput): Promise<string> {
    const call = this.calls.length;
    this.calls.push(timestampOf(input.messages[0]));
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      // One turn of the event loop, so that calls started together overlap.
      await new Promise((resolve) => setImmediate(resolve));
      const held = this.held;
      if (held !== undefined) await new Promise<void>((resume) => held.push(resume));
      return `## Goal\n- ${this.label} call #${call}`;
    } finally {
      this.inFlight -= 1;
    }
  }
}

export function timestampOf(message: AgentMessage | undefined): number {
  return (message as { timestamp?: number } | undefined)?.timestamp ?? 0;
}

/** A clock tests move by hand. */
export class TestClock {
  constructor(public value = 1_800_000_000_000) {}
  readonly now = () => this.value;
}

/** Settings that make small conversations close several chunks before the threshold. */
export const SMALL_CHUNKS: LosslessEngineOptions = {
  leafChunkTokens: 500,
  defaultTokenBudget: 8_000,
};

/** Coding turns of about 100 tokens each (a tool call every third turn). */
export function turns(count: number): AgentMessage[] {
  return codingConversation(count, { toolOutputChars: 600 });
}

/** Temp databases shared by engines, removed by `cleanup`. */
export class TempDatabases {
  private readonly directories: string[] = [];
  private readonly engines: LosslessEngine[] = [];

  async path(): Promise<string> {
    const directory = await mkdtemp(join(tmpdir(), "clew-lossless-prepare-"));
    this.directories.push(directory);
    return join(directory, "lossless.db");
  }

  /** An engine over its own connection to `path`, with the store in reach. */
  open(path: string, options: LosslessEngineOptions): { engine: LosslessEngine; store: SqliteLosslessStore } {
    const store = openSqliteStore(path, options.now === undefined ? {} : { now: options.now });
    const engine = new LosslessEngine(store, options);
    this.engines.push(engine);
    return { engine, store };
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.engines.splice(0).map((engine) => engine.dispose()));
    await Promise.all(
      this.directories.splice(0).map((directory) => rm(directory, { recursive: true, force: true })),
    );
  }
}

/** Stores messages the way a host's afterTurn does. */
export async function store(
  engine: LosslessEngine,
  sessionId: string,
  messages: AgentMessage[],
): Promise<void> {
  await engine.afterTurn({
    sessionId,
    sessionFile: `memory:${sessionId}`,
    messages,
    prePromptMessageCount: 0,
  });
}

/** Background maintenance as a host runs it after a turn, then waits for the preparation it started. */
export async function maintainAndSettle(engine: LosslessEngine, sessionId: string): Promise<void> {
  await engine.maintain({ sessionId, sessionFile: `memory:${sessionId}` });
  await engine.preparationIdle();
}

/**
 * Stores `messages`, compacts them to `tokenBudget` and assembles with `prompt`: the evidence
 * block, when there is one, answers what the compacted history no longer holds raw.
 */
export async function assembleAfterCompaction(
  engine: LosslessEngine,
  messages: AgentMessage[],
  tokenBudget: number,
  prompt: string,
): Promise<AssembleResult> {
  await store(engine, "s", messages);
  await engine.compact({ sessionId: "s", tokenBudget, force: true });
  return engine.assemble({ sessionId: "s", messages, tokenBudget, prompt });
}
