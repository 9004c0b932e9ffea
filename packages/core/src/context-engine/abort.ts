/**
 * Telling a cancellation from a failure. Aborts are rethrown and never quarantine an engine, so the
 * test must not be fooled by an engine bug whose message happens to say "abort": an error counts as
 * an abort only when the caller's signal has actually fired and the error is its reason, wraps its
 * reason (through the `cause` chain), or is a DOMException-style `AbortError`.
 */
export function isAbortForSignal(error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal === undefined || !signal.aborted) return false;
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (current === signal.reason) return true;
    if (current instanceof Error && (current.name === "AbortError" || current.name === "TimeoutError")) {
      return true;
    }
    current = current instanceof Error ? current.cause : undefined;
  }
  return false;
}

/** The error to throw when work is refused because its signal already fired. */
export function abortReason(signal: AbortSignal): unknown {
  if (signal.reason !== undefined) return signal.reason;
  const error = new Error("The operation was aborted");
  error.name = "AbortError";
  return error;
}

/** One signal that fires when any input fires; undefined inputs are ignored. */
export function anySignal(signals: Array<AbortSignal | undefined>): AbortSignal | undefined {
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  if (present.length === 0) return undefined;
  if (present.length === 1) return present[0];
  return AbortSignal.any(present);
}
