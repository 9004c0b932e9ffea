import {
  type ClewConfig,
  type ContextEngineInfo,
  type ContextEngineRegistry,
  describeError,
  MemoryLogger,
  type QuarantineOperation,
  resolveContextEngine,
} from "@clew/core";

export interface EngineProbe {
  engineId: string;
  ok: boolean;
  /** The engine's `info` when it resolved. */
  info?: ContextEngineInfo;
  /** What failed, in the words of the quarantine record the host would have written. */
  failure?: { operation: QuarantineOperation | "timeout" | "discovery-only"; reason: string };
}

export interface ProbeEngineOptions {
  config: ClewConfig;
  agentDir?: string;
  workspaceDir?: string;
  /** A factory still pending after this long fails the probe. Default 10 s. */
  timeoutMs?: number;
}

const DEFAULT_PROBE_TIMEOUT_MS = 10_000;

/**
 * Resolves `engineId` the way the agent would if the slot named it (core's
 * `resolveContextEngine`: registration, factory, contract validation), records whether it fell
 * back and why, and disposes the engine again. The registry's quarantine ledger keeps the failure,
 * as it would in a running agent. Never throws; a factory that never settles is a failure after
 * `timeoutMs`.
 */
export async function probeContextEngine(
  registry: ContextEngineRegistry,
  engineId: string,
  options: ProbeEngineOptions,
): Promise<EngineProbe> {
  const plugins = options.config.plugins ?? {};
  const config: ClewConfig = {
    ...options.config,
    plugins: { ...plugins, slots: { ...plugins.slots, contextEngine: engineId } },
  };
  const logger = new MemoryLogger();
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  timer.unref();
  const timedOut = new Promise<undefined>((resolve) =>
    controller.signal.addEventListener("abort", () => resolve(undefined), { once: true }),
  );
  try {
    const resolving = resolveContextEngine(registry, {
      config,
      logger,
      ...(options.agentDir === undefined ? {} : { agentDir: options.agentDir }),
      ...(options.workspaceDir === undefined ? {} : { workspaceDir: options.workspaceDir }),
    });
    const resolved = await Promise.race([resolving, timedOut]);
    if (resolved === undefined) {
      // The factory may still finish later; dispose what it makes so nothing is left running.
      void resolving.then((late) => late.engine.dispose?.()).catch(() => {});
      return {
        engineId,
        ok: false,
        failure: { operation: "timeout", reason: `the factory did not finish within ${timeoutMs} ms` },
      };
    }
    await disposeQuietly(resolved.engine);
    if (resolved.effectiveId === engineId) return { engineId, ok: true, info: resolved.engine.info };
    const record = registry.quarantine.get(engineId);
    if (record !== undefined) {
      return { engineId, ok: false, failure: { operation: record.operation, reason: record.reason } };
    }
    return {
      engineId,
      ok: false,
      failure: {
        operation: "discovery-only",
        reason: resolved.fallbackReason ?? "the engine did not resolve",
      },
    };
  } catch (error) {
    return { engineId, ok: false, failure: { operation: "factory", reason: describeError(error) } };
  } finally {
    clearTimeout(timer);
  }
}

async function disposeQuietly(engine: { dispose?: () => Promise<void> | void }): Promise<void> {
  try {
    await engine.dispose?.();
  } catch {
    // A doctor probe must not fail because an engine cannot clean up after itself.
  }
}
