import type { ContextEngineHostParam, ContextEngineInfo, ContextEngineLifecycleMethod } from "./types.js";

/** Parameters the host adds on top of what an engine's contract strictly needs. */
export const HOST_PARAMS: readonly ContextEngineHostParam[] = [
  "sessionKey",
  "prompt",
  "runtimeSettings",
  "sessionTarget",
  "runtimeContext",
  "abortSignal",
];

/**
 * Removes the host-added parameters an engine did not accept. With `acceptedHostParams` declared,
 * only listed ones pass (`compact` always keeps `abortSignal`: its watchdog must reach the engine).
 * Without a declaration, everything passes except keys this engine instance already rejected.
 * Returns the same object when nothing is removed.
 */
export function projectHostParams<T extends object>(
  method: ContextEngineLifecycleMethod,
  params: T,
  info: ContextEngineInfo,
  rejected: ReadonlySet<string>,
): T {
  const accepted = Array.isArray(info.acceptedHostParams)
    ? new Set<string>(info.acceptedHostParams)
    : undefined;
  const drop = HOST_PARAMS.filter((key) => {
    if (!Object.hasOwn(params, key)) return false;
    if (method === "compact" && key === "abortSignal") return false;
    return accepted === undefined ? rejected.has(key) : !accepted.has(key);
  });
  if (drop.length === 0) return params;
  const projected = { ...params } as Record<string, unknown>;
  for (const key of drop) delete projected[key];
  return projected as T;
}

/**
 * Host parameters a strict validator refused, read from the error's structure, never its text:
 * a zod issue `{ code: "unrecognized_keys", keys }`, an Ajv error
 * `{ keyword: "additionalProperties", params: { additionalProperty } }`, or Clew's own marker
 * `rejectedHostParams: string[]`. The error, its `cause` chain and `issues`/`errors` are walked.
 */
export function findRejectedHostParams(error: unknown): string[] {
  const found = new Set<string>();
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 6 || typeof value !== "object" || value === null || seen.has(value)) return;
    seen.add(value);
    const record = value as Record<string, unknown>;
    if (record.code === "unrecognized_keys" && Array.isArray(record.keys)) addHostKeys(record.keys, found);
    if (
      record.keyword === "additionalProperties" &&
      typeof record.params === "object" &&
      record.params !== null
    ) {
      addHostKeys([(record.params as Record<string, unknown>).additionalProperty], found);
    }
    if (Array.isArray(record.rejectedHostParams)) addHostKeys(record.rejectedHostParams, found);
    for (const nested of [record.issues, record.errors]) {
      if (Array.isArray(nested)) for (const item of nested) visit(item, depth + 1);
    }
    visit(record.cause, depth + 1);
  };
  visit(error, 0);
  return [...found];
}

function addHostKeys(keys: unknown[], into: Set<string>): void {
  for (const key of keys) {
    if (typeof key === "string" && (HOST_PARAMS as readonly string[]).includes(key)) into.add(key);
  }
}
