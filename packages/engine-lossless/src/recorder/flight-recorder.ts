/**
 * The flight recorder the engine holds: one record per compaction pass (written when the pass
 * ends, whatever its end) and one per assembly (queued in memory, written in batches). Recording
 * never fails a call and never delays `assemble`: failures are logged and the record dropped.
 */
import { randomBytes } from "node:crypto";
import { describeError, type Logger } from "@clew/core";
import type { CompactViewOutcome } from "../compaction/compact-view.js";
import type { CompactionTrigger, LosslessStore } from "../store/store.js";
import type { SessionView } from "../view/session-view.js";
import { type AssemblyObservation, AssemblyRecorder } from "./assembly-recorder.js";
import { compactionPassRecord, type PassEnd, type PassStart } from "./compaction-pass.js";

export interface FlightRecorderOptions {
  logger: Logger;
  now: () => number;
  elapsed: () => number;
  /** The configured summarizer's id, read at each pass (a host's model may be bound later). */
  summarizer: () => string;
  assemblyRecordsKept: number;
  /** New pass ids (`pass_` and 16 hex characters by default). */
  newPassId?: () => string;
  /** Runs a write after the current call has returned. Default `setImmediate`. */
  defer?: (work: () => void) => void;
}

/** A pass being recorded: the first of `finish` or `fail` writes the record; later calls do nothing. */
export interface PassRecording {
  finish(outcome: CompactViewOutcome, viewVersionAfter: number): Promise<void>;
  fail(error: unknown): Promise<void>;
}

export class FlightRecorder {
  private readonly assemblies: AssemblyRecorder;

  constructor(
    private readonly store: LosslessStore,
    private readonly options: FlightRecorderOptions,
  ) {
    this.assemblies = new AssemblyRecorder({
      store,
      keepPerSession: () => options.assemblyRecordsKept,
      logger: options.logger,
      ...(options.defer === undefined ? {} : { defer: options.defer }),
    });
  }

  /** Queues the record of one assembly. O(change), no I/O, never throws. */
  noteAssembly(observation: AssemblyObservation): void {
    this.assemblies.note(observation);
  }

  beginPass(
    sessionId: string,
    trigger: CompactionTrigger,
    view: SessionView,
    target: { targetTokens: number; budgetTokens: number },
  ): PassRecording {
    const started = this.options.elapsed();
    const start: PassStart = {
      passId: this.options.newPassId?.() ?? `pass_${randomBytes(8).toString("hex")}`,
      trigger,
      startedAt: this.options.now(),
      items: view.items,
      viewVersion: view.version,
      targetTokens: target.targetTokens,
      budgetTokens: target.budgetTokens,
      summarizer: this.options.summarizer(),
    };
    let done = false;
    const write = async (end: PassEnd) => {
      if (done) return;
      done = true;
      try {
        await this.store.recordCompactionPass(sessionId, compactionPassRecord(start, end));
      } catch (error) {
        this.options.logger.warn("lossless: recording a compaction pass failed", {
          sessionId,
          error: describeError(error),
        });
      }
    };
    const durationMs = () => this.options.elapsed() - started;
    return {
      finish: (outcome, viewVersionAfter) => write({ outcome, viewVersionAfter, durationMs: durationMs() }),
      fail: (error) => write({ error, durationMs: durationMs() }),
    };
  }

  /** Writes the queued assembly records. Never rejects. */
  flush(): Promise<void> {
    return this.assemblies.flush();
  }

  /** Writes what is queued and records nothing more. */
  close(): Promise<void> {
    return this.assemblies.close();
  }
}
