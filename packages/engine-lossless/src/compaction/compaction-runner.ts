/**
 * Runs a session's compactions end to end: one at a time per session (ingestion never waits for
 * one), each worked out in memory by `compactView`, written in one store transaction, installed in
 * the view cache, and recorded as one pass whatever its end (the record is written before the
 * outcome or error reaches the caller).
 *
 * Throws what the store or the summarizer threw, and the caller's abort reason when its signal
 * fired (after the nodes finished before it were written). Never leaves a view in the cache that
 * differs from the store's.
 */
import type { CompactionTrigger, LosslessStore } from "../store/store.js";
import { SessionView } from "../view/session-view.js";
import type { ViewCache } from "../view/view-cache.js";
import { type CompactionSettings, type CompactViewOutcome, compactView } from "./compact-view.js";
import type { CompactionTarget } from "./compaction-target.js";
import type { LeafSupply } from "./leaf-supply.js";

/** One pass being recorded (the flight recorder's `PassRecording`). */
export interface PassRecord {
  finish(outcome: CompactViewOutcome, viewVersionAfter: number): Promise<void>;
  fail(error: unknown): Promise<void>;
}

export interface CompactionRunnerOptions {
  store: LosslessStore;
  views: ViewCache;
  settings: CompactionSettings;
  /** Share of the target above which the threshold compaction runs (`compactionThreshold`). */
  compactionThreshold: number;
  /** Starts the record of one pass (the flight recorder's `beginPass`). */
  beginPass(
    sessionId: string,
    trigger: CompactionTrigger,
    view: SessionView,
    target: CompactionTarget,
  ): PassRecord;
  /** The session's prepared summaries and running leases (summary preparation's `leafSupply`). */
  leafSupply(sessionId: string): Promise<LeafSupply>;
}

export interface CompactionRun {
  sessionId: string;
  target: CompactionTarget;
  force: boolean;
  signal: AbortSignal | undefined;
  /** The `/compact` instructions; prepared summaries are not used with them. */
  customInstructions?: string;
  trigger: CompactionTrigger;
}

interface Written {
  outcome: CompactViewOutcome;
  /** The view version after the write (the one before when nothing was written). */
  viewVersion: number;
}

export class CompactionRunner {
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(private readonly options: CompactionRunnerOptions) {}

  /** Runs `run` after the session's earlier compactions settle; see the module comment. */
  run(run: CompactionRun): Promise<CompactViewOutcome> {
    return this.serialized(run.sessionId, () => this.recorded(run));
  }

  /** Resolves once every compaction started so far has settled (never rejects). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }

  private async recorded(run: CompactionRun): Promise<CompactViewOutcome> {
    const view = await this.options.views.get(run.sessionId);
    const recording = this.options.beginPass(run.sessionId, run.trigger, view, run.target);
    try {
      const written = await this.compactAndPublish(view, run);
      await recording.finish(written.outcome, written.viewVersion);
      if (written.outcome.aborted !== undefined) throw written.outcome.aborted;
      return written.outcome;
    } catch (error) {
      await recording.fail(error);
      throw error;
    }
  }

  /** One compaction worked out and written. */
  private async compactAndPublish(view: SessionView, run: CompactionRun): Promise<Written> {
    const { sessionId, target, force, signal, customInstructions } = run;
    const startVersion = view.version;
    // The threshold compaction publishes what was prepared; it summarizes live only when that
    // leaves the view above the threshold.
    const liveLeavesAbove =
      run.trigger === "maintain"
        ? Math.floor(target.targetTokens * this.options.compactionThreshold)
        : undefined;
    const outcome = await compactView(this.options.settings, {
      sessionId,
      items: view.items,
      targetTokens: target.targetTokens,
      budgetTokens: target.budgetTokens,
      force,
      // Prepared summaries were written without the `/compact` instructions: not used with them.
      ...(customInstructions === undefined
        ? { supply: await this.options.leafSupply(sessionId) }
        : { customInstructions }),
      ...(signal === undefined ? {} : { signal }),
      ...(liveLeavesAbove === undefined ? {} : { liveLeavesAbove }),
    });
    if (outcome.write.edits.length === 0) return { outcome, viewVersion: startVersion };
    const { viewVersion } = await this.options.store.applyCompaction(sessionId, outcome.write);
    // An append that landed while summaries were written is missing from `outcome.items`.
    if (viewVersion === startVersion + 1)
      this.options.views.replace(sessionId, SessionView.fromItems(viewVersion, outcome.items));
    else this.options.views.forget(sessionId);
    return { outcome, viewVersion };
  }

  private serialized<T>(sessionId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.running.get(sessionId) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    this.running.set(sessionId, settled);
    void settled.then(() => {
      if (this.running.get(sessionId) === settled) this.running.delete(sessionId);
    });
    return next;
  }
}
