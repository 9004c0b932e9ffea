import { readFile } from "node:fs/promises";
import { Ajv, type ErrorObject } from "ajv";
import JSON5 from "json5";
import { ConfigError } from "../errors.js";
import { configPath } from "../paths.js";
import { clewConfigSchema } from "./config-schema.js";
import type { ClewConfig } from "./types.js";

export interface LoadedConfig {
  config: ClewConfig;
  path: string;
  exists: boolean;
}

const validate = new Ajv({ allErrors: true, strict: false }).compile(clewConfigSchema);

/**
 * Reads `<home>/clew.json` (JSON5). A missing file is an empty config. A syntax error names the
 * file, line and column; schema problems name each field (with its line when it can be found).
 * Loading never writes the file.
 */
export async function loadConfig(home: string): Promise<LoadedConfig> {
  const path = configPath(home);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { config: {}, path, exists: false };
    throw new ConfigError(
      path,
      [{ path: "", message: `cannot read the file: ${(error as Error).message}` }],
      error,
    );
  }
  return { config: parseConfig(text, path), path, exists: true };
}

/** Parses and validates config text; `source` names it in errors. */
export function parseConfig(text: string, source: string): ClewConfig {
  let value: unknown;
  try {
    value = JSON5.parse(text);
  } catch (error) {
    const syntax = error as { lineNumber?: number; columnNumber?: number; message: string };
    const column = syntax.columnNumber === undefined ? "" : ` (column ${syntax.columnNumber})`;
    const problem: { path: string; message: string; line?: number } = {
      path: "",
      message: `${syntax.message.replace(/^JSON5: /, "")}${column}`,
    };
    if (syntax.lineNumber !== undefined) problem.line = syntax.lineNumber;
    throw new ConfigError(source, [problem], error);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ConfigError(source, [{ path: "", message: "the config must be an object" }]);
  }
  if (!validate(value)) {
    throw new ConfigError(
      source,
      (validate.errors ?? []).map((error) => describeSchemaError(error, text)),
    );
  }
  return value as ClewConfig;
}

function describeSchemaError(
  error: ErrorObject,
  text: string,
): { path: string; message: string; line?: number } {
  const segments = error.instancePath.split("/").slice(1).map(decodePointer);
  if (error.keyword === "additionalProperties") {
    segments.push(String((error.params as { additionalProperty: string }).additionalProperty));
  }
  const path = segments.join(".");
  const message = error.keyword === "additionalProperties" ? "unknown key" : (error.message ?? "is invalid");
  const expected =
    error.keyword === "enum"
      ? ` (${(error.params as { allowedValues: unknown[] }).allowedValues.join(", ")})`
      : "";
  const problem: { path: string; message: string; line?: number } = {
    path,
    message: `${message}${expected}`,
  };
  const line = lineOfKey(text, segments.at(-1));
  if (line !== undefined) problem.line = line;
  return problem;
}

function decodePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** Best effort: the first line where the key appears as a key (quoted or bare). */
function lineOfKey(text: string, key: string | undefined): number | undefined {
  if (key === undefined || /^\d+$/.test(key)) return undefined;
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`(^|[\\s{,])["']?${escaped}["']?\\s*:`);
  const lines = text.split("\n");
  const index = lines.findIndex((line) => pattern.test(line));
  return index >= 0 ? index + 1 : undefined;
}
