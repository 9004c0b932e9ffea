/**
 * `bench/gate-thresholds.json`: per engine, per quality row key, a `min` and/or `max` the gate
 * holds the engine to. Raising a threshold is a normal commit; lowering one needs a reason in the
 * commit message (bench/README.md).
 */
import { readFile } from "node:fs/promises";
import { ConfigError } from "@clew/core";

export interface Threshold {
  min?: number;
  max?: number;
}

export interface GateThresholds {
  /** The quality preset the thresholds were set on. */
  preset: string;
  /** engine id → row key → threshold. */
  engines: Record<string, Record<string, Threshold>>;
}

type Problem = { path: string; message: string };

/**
 * Parses and validates thresholds. Throws `ConfigError` naming `source` and every bad field: not
 * JSON, no `preset` string, an engine or key that is not an object, a bound that is not a finite
 * number, a threshold with neither bound or with `min` above `max`, a key not in `knownKeys`, or
 * a key in `ungatedKeys` (timings and model-judged rows are never gated).
 */
export function parseGateThresholds(
  text: string,
  source: string,
  keys: { knownKeys: ReadonlySet<string>; ungatedKeys: ReadonlySet<string> },
): GateThresholds {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(source, [{ path: "", message: `not JSON: ${(error as Error).message}` }], error);
  }
  const problems: Problem[] = [];
  const root = isRecord(parsed) ? parsed : {};
  if (!isRecord(parsed)) problems.push({ path: "", message: "expected an object" });
  if (typeof root.preset !== "string") problems.push({ path: "preset", message: "expected a preset name" });
  if (!isRecord(root.engines)) problems.push({ path: "engines", message: "expected an object of engines" });
  const engines: GateThresholds["engines"] = {};
  for (const [engine, rows] of Object.entries(isRecord(root.engines) ? root.engines : {})) {
    if (!isRecord(rows)) {
      problems.push({ path: `engines.${engine}`, message: "expected an object of row keys" });
      continue;
    }
    engines[engine] = {};
    for (const [key, value] of Object.entries(rows)) {
      const threshold = readThreshold(`engines.${engine}.${key}`, key, value, keys, problems);
      if (threshold !== undefined) (engines[engine] as Record<string, Threshold>)[key] = threshold;
    }
  }
  if (problems.length > 0) throw new ConfigError(source, problems);
  return { preset: root.preset as string, engines };
}

/** Reads and parses the thresholds file; a missing file is a `ConfigError` too. */
export async function loadGateThresholds(
  path: string,
  keys: { knownKeys: ReadonlySet<string>; ungatedKeys: ReadonlySet<string> },
): Promise<GateThresholds> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(path, [{ path: "", message: "cannot read the thresholds file" }], error);
  }
  return parseGateThresholds(text, path, keys);
}

function readThreshold(
  path: string,
  key: string,
  value: unknown,
  keys: { knownKeys: ReadonlySet<string>; ungatedKeys: ReadonlySet<string> },
  problems: Problem[],
): Threshold | undefined {
  if (!keys.knownKeys.has(key)) {
    problems.push({ path, message: "not a quality row key (see the keys in bench/results/latest.json)" });
    return undefined;
  }
  if (keys.ungatedKeys.has(key)) {
    problems.push({ path, message: "never gated (a timing or a model-judged row)" });
    return undefined;
  }
  if (!isRecord(value)) {
    problems.push({ path, message: 'expected { "min": number } and/or { "max": number }' });
    return undefined;
  }
  const threshold: Threshold = {};
  for (const bound of ["min", "max"] as const) {
    const number = value[bound];
    if (number === undefined) continue;
    if (typeof number !== "number" || !Number.isFinite(number))
      problems.push({ path: `${path}.${bound}`, message: "expected a finite number" });
    else threshold[bound] = number;
  }
  if (threshold.min === undefined && threshold.max === undefined)
    problems.push({ path, message: "needs a min or a max" });
  if (threshold.min !== undefined && threshold.max !== undefined && threshold.min > threshold.max)
    problems.push({ path, message: `min ${threshold.min} is above max ${threshold.max}` });
  return threshold;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
