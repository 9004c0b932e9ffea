/**
 * Long work in the engine (a bulk import, a word index catching up) runs in steps and lets the
 * event loop run between them: better-sqlite3 is synchronous, and steps chained by promises alone
 * run back to back, holding a gateway's other sessions for seconds.
 */

/** Resolves after the event loop's pending I/O and timers had their turn. */
export function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
