import { abortReason, anySignal } from "./abort.js";
import type { CompactParams, CompactResult, ContextEngine } from "./types.js";

export const DEFAULT_COMPACTION_TIMEOUT_MS = 180_000;

/**
 * Calls `engine.compact` under a watchdog. The engine receives an `abortSignal` that fires when the
 * watchdog does or when the caller's `signal` does. A timeout is an answer, not an exception:
 * `{ ok: false, compacted: false, reason: "Compaction timed out after ..." }`, and the engine's
 * late result or error is ignored. A caller cancellation rejects with the caller's reason. An
 * engine error propagates unchanged.
 */
export function compactWithSafetyTimeout(
  engine: ContextEngine,
  params: CompactParams,
  options: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<CompactResult> {
  return runWithCompactionWatchdog((abortSignal) => engine.compact({ ...params, abortSignal }), {
    ...options,
    signal: options.signal ?? params.abortSignal,
  });
}

/**
 * The watchdog itself, for any compaction work: `work` gets a signal that fires on timeout or on
 * the caller's cancellation. Same answers as `compactWithSafetyTimeout`.
 */
export async function runWithCompactionWatchdog(
  work: (abortSignal: AbortSignal) => Promise<CompactResult>,
  options: { timeoutMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<CompactResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_COMPACTION_TIMEOUT_MS;
  const callerSignal = options.signal;
  if (callerSignal?.aborted) throw abortReason(callerSignal);
  const watchdog = new AbortController();
  const abortSignal = anySignal([watchdog.signal, callerSignal]) ?? watchdog.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let removeCallerListener = () => {};
  const timedOut = new Promise<CompactResult>((resolve, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`Compaction timed out after ${formatSeconds(timeoutMs)}`);
      error.name = "TimeoutError";
      watchdog.abort(error);
      resolve({ ok: false, compacted: false, reason: error.message });
    }, timeoutMs);
    if (callerSignal !== undefined) {
      const onAbort = () => reject(abortReason(callerSignal));
      callerSignal.addEventListener("abort", onAbort, { once: true });
      removeCallerListener = () => callerSignal.removeEventListener("abort", onAbort);
    }
  });
  const running = work(abortSignal);
  // The losing side of the race must not surface as an unhandled rejection.
  running.catch(() => {});
  try {
    return await Promise.race([running, timedOut]);
  } finally {
    clearTimeout(timer);
    removeCallerListener();
  }
}

function formatSeconds(milliseconds: number): string {
  const seconds = milliseconds / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(2)}s`;
}
