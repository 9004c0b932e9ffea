import { describeError } from "../errors.js";
import type { Logger } from "../logger.js";
import { abortReason, isAbortForSignal } from "./abort.js";
import { findRejectedHostParams, projectHostParams } from "./host-params.js";
import { formatQuarantineLogLine, type QuarantineLedger, type QuarantineRecord } from "./quarantine.js";
import { ContextEngineRegistry, DEFAULT_CONTEXT_ENGINE_ID } from "./registry.js";
import type {
  AssembleParams,
  AssembleResult,
  CompactParams,
  CompactResult,
  ContextEngine,
  ContextEngineInfo,
  ContextEngineLifecycleMethod,
  ContextEngineStatusSection,
  IngestParams,
  IngestResult,
  SessionDeletedParams,
} from "./types.js";

type MethodOf<M extends ContextEngineLifecycleMethod> = NonNullable<ContextEngine[M]>;
type ParamsOf<M extends ContextEngineLifecycleMethod> = Parameters<MethodOf<M>>[0];
type ResultOf<M extends ContextEngineLifecycleMethod> = Awaited<ReturnType<MethodOf<M>>>;
type AnyMethod = (params: unknown) => Promise<unknown>;
type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

const DOWNGRADED = "context engine downgraded to legacy";

/** Answers for methods the fallback engine does not have; assemble and compact have none. */
const SYNTHETIC_RESULTS: Partial<Record<ContextEngineLifecycleMethod, () => unknown>> = {
  bootstrap: () => ({ bootstrapped: false, reason: DOWNGRADED }),
  maintain: () => ({ changed: false, bytesFreed: 0, rewrittenEntries: 0, reason: DOWNGRADED }),
  ingest: () => ({ ingested: false }),
  ingestBatch: () => ({ ingestedCount: 0 }),
  afterTurn: () => undefined,
  prepareSubagentSpawn: () => undefined,
  onSubagentEnded: () => undefined,
};

/** Methods whose failure the caller must see: a compaction or a spawn that did not happen. */
const RETHROWING_METHODS = new Set<ContextEngineLifecycleMethod>(["compact", "prepareSubagentSpawn"]);

export interface GuardedContextEngineOptions {
  registeredId: string;
  owner: string;
  target: ContextEngine;
  quarantine: QuarantineLedger;
  /** Builds the fallback (legacy) engine; called at most once per wrapper. */
  createFallback: () => Promise<ContextEngine>;
  logger: Logger;
  now: () => number;
}

/**
 * The one place the engine contract is enforced for a plugin engine. Each call:
 * 1. refuses work whose `abortSignal` already fired (rethrows its reason; nothing quarantined);
 * 2. goes to the fallback when the engine is quarantined;
 * 3. projects host parameters by `info.acceptedHostParams`;
 * 4. on a throw: rethrows aborts; retries once without host parameters a strict validator of an
 *    undeclared engine rejected; otherwise quarantines (first failure wins, one log line) and
 *    answers from the fallback, except `compact` and `prepareSubagentSpawn`, which rethrow.
 *
 * The target is never mutated and every call is bound to it, so frozen shared instances work.
 * Optional methods exist on the wrapper exactly when the target has them.
 */
export class GuardedContextEngine implements ContextEngine {
  readonly registeredId: string;
  readonly owner: string;
  bootstrap?: ContextEngine["bootstrap"];
  maintain?: ContextEngine["maintain"];
  ingestBatch?: ContextEngine["ingestBatch"];
  afterTurn?: ContextEngine["afterTurn"];
  prepareSubagentSpawn?: ContextEngine["prepareSubagentSpawn"];
  onSubagentEnded?: ContextEngine["onSubagentEnded"];
  describeStatus?: ContextEngine["describeStatus"];
  onSessionDeleted?: ContextEngine["onSessionDeleted"];

  private readonly options: GuardedContextEngineOptions;
  private readonly rejectedHostParams = new Set<string>();
  private fallback: Promise<ContextEngine> | undefined;
  private fallbackInstance: ContextEngine | undefined;
  private disposed: Promise<void> | undefined;
  private downgraded = false;
  private ownRecord: QuarantineRecord | undefined;

  constructor(options: GuardedContextEngineOptions) {
    this.options = options;
    this.registeredId = options.registeredId;
    this.owner = options.owner;
    const target = options.target;
    if (typeof target.bootstrap === "function") this.bootstrap = (params) => this.invoke("bootstrap", params);
    if (typeof target.maintain === "function") this.maintain = (params) => this.invoke("maintain", params);
    if (typeof target.ingestBatch === "function")
      this.ingestBatch = (params) => this.invoke("ingestBatch", params);
    if (typeof target.afterTurn === "function") this.afterTurn = (params) => this.invoke("afterTurn", params);
    if (typeof target.prepareSubagentSpawn === "function") {
      this.prepareSubagentSpawn = (params) => this.invoke("prepareSubagentSpawn", params);
    }
    if (typeof target.onSubagentEnded === "function") {
      this.onSubagentEnded = (params) => this.invoke("onSubagentEnded", params);
    }
    if (typeof target.describeStatus === "function") {
      this.describeStatus = (params) => this.describeTargetStatus(params);
    }
    if (typeof target.onSessionDeleted === "function") {
      this.onSessionDeleted = (params) => this.tellSessionDeleted(params);
    }
  }

  /**
   * Told even when quarantined (what the engine keeps must stop reaching other sessions); a failure
   * is logged, never quarantined: the deletion itself has happened.
   */
  private async tellSessionDeleted(params: SessionDeletedParams): Promise<void> {
    try {
      await this.options.target.onSessionDeleted?.(params);
    } catch (error) {
      this.options.logger.warn(`context engine ${this.registeredId}: onSessionDeleted failed`, {
        sessionId: params.sessionId,
        error: describeError(error),
      });
    }
  }

  /** Read-only: a failure leaves the status section out and quarantines nothing. */
  private async describeTargetStatus(
    params: Parameters<NonNullable<ContextEngine["describeStatus"]>>[0],
  ): Promise<ContextEngineStatusSection | undefined> {
    if (this.isQuarantined) return undefined;
    try {
      return await this.options.target.describeStatus?.(params);
    } catch (error) {
      this.options.logger.warn(`context engine ${this.registeredId}: describeStatus failed`, {
        error: describeError(error),
      });
      return undefined;
    }
  }

  /** The target's info, or the fallback's once quarantined: the host re-reads it at each decision. */
  get info(): ContextEngineInfo {
    if (!this.isQuarantined) return this.options.target.info;
    return this.fallbackInstance?.info ?? { id: DEFAULT_CONTEXT_ENGINE_ID, name: "Legacy Context Engine" };
  }

  /**
   * True once the engine failed in this process. A wrapper that saw its engine quarantined stays
   * on the fallback even if a later registration lifts the ledger entry: that registration is a
   * new factory, which only a new resolution (host reload) should use.
   */
  get isQuarantined(): boolean {
    if (!this.downgraded && this.options.quarantine.has(this.registeredId)) this.downgraded = true;
    return this.downgraded;
  }

  get quarantineRecord(): QuarantineRecord | undefined {
    return this.options.quarantine.get(this.registeredId) ?? this.ownRecord;
  }

  /** The plugin that owns the work, or undefined once downgraded work belongs to core. */
  get ownerPluginId(): string | undefined {
    return this.isQuarantined ? undefined : ContextEngineRegistry.ownerPluginId(this.owner);
  }

  ingest(params: IngestParams): Promise<IngestResult> {
    return this.invoke("ingest", params);
  }

  assemble(params: AssembleParams): Promise<AssembleResult> {
    return this.invoke("assemble", params);
  }

  compact(params: CompactParams): Promise<CompactResult> {
    return this.invoke("compact", params);
  }

  /** Disposes the engine and a built fallback once; later calls return the same promise. */
  dispose(): Promise<void> {
    this.disposed ??= (async () => {
      const engines = [this.options.target, this.fallbackInstance];
      const results = await Promise.allSettled(engines.map((engine) => engine?.dispose?.call(engine)));
      for (const result of results) {
        if (result.status === "rejected") {
          this.options.logger.warn(
            `[context-engine] dispose of "${this.registeredId}" failed: ${describeError(result.reason)}`,
          );
        }
      }
    })();
    return this.disposed;
  }

  private async invoke<M extends ContextEngineLifecycleMethod>(
    method: M,
    params: ParamsOf<M>,
  ): Promise<ResultOf<M>> {
    const signal = (params as { abortSignal?: AbortSignal }).abortSignal;
    if (signal?.aborted) throw abortReason(signal);
    if (this.isQuarantined) return this.callFallback(method, params);
    let outcome: Outcome<ResultOf<M>>;
    try {
      return await this.callTarget(method, params);
    } catch (error) {
      outcome = isAbortForSignal(error, signal)
        ? { ok: false, error }
        : await this.retryWithoutRejectedHostParams(method, params, error);
    }
    if (outcome.ok) return outcome.value;
    const failure = outcome.error;
    if (isAbortForSignal(failure, signal)) throw failure;
    this.recordQuarantine(method, failure);
    if (RETHROWING_METHODS.has(method)) throw failure;
    try {
      return await this.callFallback(method, params);
    } catch {
      throw failure;
    }
  }

  /**
   * Undeclared engines with a strict validator may reject keys the host added (runtimeSettings
   * first of all). Learn the keys from the error's structure and retry once without them; later
   * calls on this instance leave them out from the start.
   */
  private async retryWithoutRejectedHostParams<M extends ContextEngineLifecycleMethod>(
    method: M,
    params: ParamsOf<M>,
    error: unknown,
  ): Promise<Outcome<ResultOf<M>>> {
    if (Array.isArray(this.options.target.info?.acceptedHostParams)) return { ok: false, error };
    const learned = findRejectedHostParams(error).filter(
      (key) => !this.rejectedHostParams.has(key) && Object.hasOwn(params as object, key),
    );
    if (learned.length === 0) return { ok: false, error };
    for (const key of learned) this.rejectedHostParams.add(key);
    this.options.logger.warn(
      `[context-engine] Context engine "${this.registeredId}" rejected host parameters ${learned.join(", ")}; retrying ${method} without them.`,
    );
    try {
      return { ok: true, value: await this.callTarget(method, params) };
    } catch (retryError) {
      return { ok: false, error: retryError };
    }
  }

  private async callTarget<M extends ContextEngineLifecycleMethod>(
    method: M,
    params: ParamsOf<M>,
  ): Promise<ResultOf<M>> {
    const target = this.options.target;
    const projected = projectHostParams(method, params as object, target.info, this.rejectedHostParams);
    const fn = target[method] as unknown as AnyMethod;
    return (await fn.call(target, projected)) as ResultOf<M>;
  }

  private async callFallback<M extends ContextEngineLifecycleMethod>(
    method: M,
    params: ParamsOf<M>,
  ): Promise<ResultOf<M>> {
    const fallback = await this.loadFallback();
    const fn = fallback[method] as unknown as AnyMethod | undefined;
    if (typeof fn === "function") return (await fn.call(fallback, params)) as ResultOf<M>;
    const synthetic = SYNTHETIC_RESULTS[method];
    if (synthetic === undefined) throw new Error(`No legacy fallback result for ${method}`);
    return synthetic() as ResultOf<M>;
  }

  private loadFallback(): Promise<ContextEngine> {
    this.fallback ??= this.options.createFallback().then((engine) => {
      this.fallbackInstance = engine;
      return engine;
    });
    return this.fallback;
  }

  private recordQuarantine(method: ContextEngineLifecycleMethod, error: unknown): void {
    const record: QuarantineRecord = {
      engineId: this.registeredId,
      owner: this.owner,
      operation: method,
      reason: describeError(error),
      failedAt: this.options.now(),
    };
    this.downgraded = true;
    this.ownRecord ??= record;
    if (this.options.quarantine.record(record)) {
      this.options.logger.error(formatQuarantineLogLine(record, DEFAULT_CONTEXT_ENGINE_ID), {
        engineId: record.engineId,
        operation: method,
      });
    }
  }
}
