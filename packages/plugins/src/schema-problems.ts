import type { ErrorObject } from "ajv";

export interface SchemaProblem {
  /** Dotted path of the offending value below the validated root; "" for the root itself. */
  path: string;
  message: string;
  /** The JSON Schema the value had to satisfy, printed compactly (only with `verbose` Ajv). */
  expected?: string;
}

const EXPECTED_MAX_CHARS = 200;

/**
 * Ajv errors as one problem per offending value. `required` and `additionalProperties` point at the
 * missing or extra key itself, so the path names the field the user has to add or remove.
 */
export function schemaProblems(errors: readonly ErrorObject[] | null | undefined): SchemaProblem[] {
  const problems: SchemaProblem[] = [];
  for (const error of errors ?? []) {
    const segments = error.instancePath.split("/").slice(1).map(decodePointer);
    let message = error.message ?? "is invalid";
    if (error.keyword === "required") {
      segments.push(String((error.params as { missingProperty: string }).missingProperty));
      message = "is required";
    } else if (error.keyword === "additionalProperties") {
      segments.push(String((error.params as { additionalProperty: string }).additionalProperty));
      message = "unknown key";
    } else if (error.keyword === "type") {
      const type = (error.params as { type: string | string[] }).type;
      message = `must be ${(Array.isArray(type) ? type : String(type).split(",")).join(" or ")}`;
    } else if (error.keyword === "enum") {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      message = `must be one of ${allowed.map((value) => JSON.stringify(value)).join(", ")}`;
    }
    const problem: SchemaProblem = { path: segments.join("."), message };
    const expected = printSchema(error.parentSchema);
    if (expected !== undefined) problem.expected = expected;
    if (!problems.some((known) => known.path === problem.path && known.message === problem.message)) {
      problems.push(problem);
    }
  }
  return problems;
}

/** `base.path`, or `base` for the root. */
export function joinPath(base: string, path: string): string {
  if (path.length === 0) return base;
  return base.length === 0 ? path : `${base}.${path}`;
}

function printSchema(schema: unknown): string | undefined {
  if (schema === undefined) return undefined;
  let text: string;
  try {
    text = JSON.stringify(schema) ?? String(schema);
  } catch {
    return undefined;
  }
  return text.length > EXPECTED_MAX_CHARS ? `${text.slice(0, EXPECTED_MAX_CHARS - 1)}…` : text;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}
