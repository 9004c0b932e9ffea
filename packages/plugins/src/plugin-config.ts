import { configPath } from "@clew/core";
import { Ajv, type Options, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { PluginManifest } from "./manifest.js";
import { joinPath, type SchemaProblem, schemaProblems } from "./schema-problems.js";

const AJV_OPTIONS: Options = { allErrors: true, strict: false, verbose: true, useDefaults: true };

/**
 * Compiles a plugin's `configSchema` (draft-07 unless its `$schema` names 2020-12). Throws the
 * compiler's error for a schema that is not valid JSON Schema; callers report it as a manifest
 * problem of the field `configSchema`.
 */
export function compilePluginConfigSchema(schema: Record<string, unknown> | boolean): ValidateFunction {
  const draft2020 = typeof schema === "object" && String(schema.$schema ?? "").includes("2020-12");
  const ajv = draft2020 ? new Ajv2020(AJV_OPTIONS) : new Ajv(AJV_OPTIONS);
  return ajv.compile(schema);
}

export type PluginConfigValidation =
  | { ok: true; config: unknown }
  | { ok: false; problems: SchemaProblem[]; message: string };

/**
 * Validates `plugins.entries.<id>.config` (an absent config is validated as `{}`) against the
 * manifest's schema, on a copy with the schema's defaults filled in. The failure message names the
 * plugin, the config file, each config path and the expected shape. Never throws: a schema that
 * does not compile is a failure too.
 */
export function validatePluginConfig(
  manifest: PluginManifest,
  value: unknown,
  options: { home: string },
): PluginConfigValidation {
  const basePath = `plugins.entries.${manifest.id}.config`;
  const file = configPath(options.home);
  let validate: ValidateFunction;
  try {
    validate = compilePluginConfigSchema(manifest.configSchema);
  } catch (error) {
    const problem = { path: "", message: `configSchema does not compile: ${(error as Error).message}` };
    return { ok: false, problems: [problem], message: `${manifest.manifestFile}: ${problem.message}` };
  }
  const config = value === undefined ? {} : structuredClone(value);
  if (validate(config)) return { ok: true, config };
  const problems = schemaProblems(validate.errors).map((problem) => ({
    ...problem,
    path: joinPath(basePath, problem.path),
  }));
  const lines = problems.map(
    (problem) =>
      `${problem.path}: ${problem.message}${problem.expected === undefined ? "" : ` (expected ${problem.expected})`}`,
  );
  return {
    ok: false,
    problems,
    message: `plugin "${manifest.id}" has an invalid config in ${file}:\n  ${lines.join("\n  ")}`,
  };
}
