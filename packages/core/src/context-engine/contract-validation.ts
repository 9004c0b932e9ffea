import { ContextEngineContractError, describeError } from "../errors.js";
import type { ContextEngine } from "./types.js";

/**
 * The issues that make a factory result unusable, in the checklist's wording. Only the shape the
 * host relies on is checked: an object, `info` with non-empty `id` and `name`, and the three
 * required methods. `info.id` may differ from the registered id.
 */
export function listContextEngineContractIssues(value: unknown): string[] {
  if (typeof value !== "object" || value === null) return ["not an object"];
  const candidate = value as Record<string, unknown>;
  const issues: string[] = [];
  const info = candidate.info;
  if (typeof info !== "object" || info === null) {
    issues.push("missing info");
  } else {
    const record = info as Record<string, unknown>;
    if (!isNonEmptyString(record.id)) issues.push("missing info.id");
    if (!isNonEmptyString(record.name)) issues.push("missing info.name");
  }
  for (const method of ["ingest", "assemble", "compact"] as const) {
    if (typeof candidate[method] !== "function") issues.push(`missing ${method}()`);
  }
  return issues;
}

/**
 * Throws `ContextEngineContractError` unless `value` is a usable engine. A value that makes the
 * check itself throw (a hostile getter, a BigInt that cannot be printed) is reported the same way.
 */
export function assertContextEngineContract(registeredId: string, value: unknown): ContextEngine {
  let issues: string[];
  try {
    issues = listContextEngineContractIssues(value);
  } catch (error) {
    throw new ContextEngineContractError(
      `Context engine "${registeredId}" factory returned a value that could not be validated: ${describeError(error)}`,
      registeredId,
      [`validation threw: ${describeError(error)}`],
    );
  }
  if (issues.length === 0) return value as ContextEngine;
  if (issues[0] === "not an object") {
    throw new ContextEngineContractError(
      `Context engine "${registeredId}" factory returned ${printValue(value)} instead of a ContextEngine object.`,
      registeredId,
      issues,
    );
  }
  throw new ContextEngineContractError(
    `Context engine "${registeredId}" factory returned an invalid ContextEngine: ${issues.join(", ")}.`,
    registeredId,
    issues,
  );
}

function isNonEmptyString(value: unknown): boolean {
  return typeof value === "string" && value.trim().length > 0;
}

function printValue(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (value === undefined) return "undefined";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
