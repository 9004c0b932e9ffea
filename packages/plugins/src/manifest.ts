/**
 * Plugin manifests: `clew.plugin.json`, or OpenClaw's `openclaw.plugin.json` so OpenClaw plugins
 * install unchanged. Reading a manifest never runs plugin code.
 */
import { access, readFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { Ajv, type ValidateFunction } from "ajv";
import JSON5 from "json5";
import { PluginManifestError } from "./errors.js";
import { compilePluginConfigSchema } from "./plugin-config.js";
import { schemaProblems } from "./schema-problems.js";

export const CLEW_MANIFEST_FILE = "clew.plugin.json";
export const OPENCLAW_MANIFEST_FILE = "openclaw.plugin.json";
/** Safe as a folder name and a config key. */
export const PLUGIN_ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9._-]*$";

export type ManifestFormat = "clew" | "openclaw";

export interface PluginManifest {
  id: string;
  name: string;
  description?: string;
  /** Declared kinds (`context-engine`, `memory`, `tools`, ...); empty when the manifest has none. */
  kind: string[];
  version?: string;
  /** JSON Schema of `plugins.entries.<id>.config`; `{}` accepts anything. */
  configSchema: Record<string, unknown> | boolean;
  /** Absolute plugin folder. */
  rootDir: string;
  /** Absolute path of the manifest file read. */
  manifestFile: string;
  format: ManifestFormat;
  /** Absolute path of the module whose default export is `register(api)`. */
  entry: string;
  packageName?: string;
}

const manifestSchema = {
  type: "object",
  required: ["id"],
  properties: {
    id: { type: "string", pattern: PLUGIN_ID_PATTERN, maxLength: 128 },
    name: { type: "string" },
    description: { type: "string" },
    version: { type: "string", minLength: 1 },
    kind: { type: ["string", "array"], minLength: 1, minItems: 1, items: { type: "string", minLength: 1 } },
    entry: { type: "string", minLength: 1 },
    configSchema: { type: ["object", "boolean"] },
  },
} as const;

const manifestAjv = new Ajv({ allErrors: true, strict: false });
const validators: Record<ManifestFormat, ValidateFunction> = {
  clew: manifestAjv.compile(manifestSchema),
  openclaw: manifestAjv.compile({ ...manifestSchema, required: ["id", "configSchema"] }),
};

interface PackageJson {
  name?: unknown;
  version?: unknown;
  main?: unknown;
  exports?: unknown;
  openclaw?: { extensions?: unknown; runtimeExtensions?: unknown };
}

/**
 * Reads and validates the manifest in `rootDir` (`clew.plugin.json` first, then
 * `openclaw.plugin.json`) and resolves the entry module: the manifest's `entry`, else
 * package.json `openclaw.runtimeExtensions[0]` / `openclaw.extensions[0]`, `exports`, `main`, else
 * `index.js`. The version comes from the manifest, else package.json.
 *
 * Throws `PluginManifestError` naming the file and each bad field: no manifest, bad JSON, missing
 * `id` (and `configSchema` for OpenClaw manifests), a wrong type, a schema that does not compile,
 * or an entry that is missing or outside the folder.
 */
export async function readPluginManifest(pluginDir: string): Promise<PluginManifest> {
  const rootDir = resolve(pluginDir);
  const found = await findManifestFile(rootDir);
  const raw = await readJsonFile(found.file);
  const validate = validators[found.format];
  if (!validate(raw)) {
    const problems = schemaProblems(validate.errors).map((problem) => ({
      field: problem.path,
      message:
        problem.path === "id" && problem.message.includes("pattern") ? idPatternMessage() : problem.message,
    }));
    throw new PluginManifestError(found.file, problems);
  }
  const fields = raw as Record<string, unknown>;
  const packageJson = await readPackageJson(rootDir);
  const configSchema = (fields.configSchema ?? {}) as Record<string, unknown> | boolean;
  try {
    compilePluginConfigSchema(configSchema);
  } catch (error) {
    throw new PluginManifestError(found.file, [
      { field: "configSchema", message: `is not a valid JSON Schema: ${(error as Error).message}` },
    ]);
  }
  const manifest: PluginManifest = {
    id: fields.id as string,
    name: optionalString(fields.name) ?? optionalString(packageJson?.name) ?? (fields.id as string),
    kind: normalizeKind(fields.kind),
    configSchema,
    rootDir,
    manifestFile: found.file,
    format: found.format,
    entry: await resolveEntry(rootDir, found.file, fields, packageJson),
  };
  const version = optionalString(fields.version) ?? optionalString(packageJson?.version);
  if (version !== undefined) manifest.version = version;
  const description = optionalString(fields.description);
  if (description !== undefined) manifest.description = description;
  const packageName = optionalString(packageJson?.name);
  if (packageName !== undefined) manifest.packageName = packageName;
  return manifest;
}

/** Whether the manifest declares `kind` (a plugin may declare several). */
export function hasKind(manifest: Pick<PluginManifest, "kind">, kind: string): boolean {
  return manifest.kind.includes(kind);
}

async function findManifestFile(rootDir: string): Promise<{ file: string; format: ManifestFormat }> {
  for (const [name, format] of [
    [CLEW_MANIFEST_FILE, "clew"],
    [OPENCLAW_MANIFEST_FILE, "openclaw"],
  ] as const) {
    const file = join(rootDir, name);
    if (await exists(file)) return { file, format };
  }
  throw new PluginManifestError(rootDir, [
    { field: "", message: `no ${CLEW_MANIFEST_FILE} or ${OPENCLAW_MANIFEST_FILE} in this folder` },
  ]);
}

async function readJsonFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new PluginManifestError(
      file,
      [{ field: "", message: `cannot read: ${(error as Error).message}` }],
      error,
    );
  }
  try {
    return JSON5.parse(text);
  } catch (error) {
    const syntax = error as { lineNumber?: number; columnNumber?: number; message: string };
    const where =
      syntax.lineNumber === undefined ? "" : ` (line ${syntax.lineNumber}, column ${syntax.columnNumber})`;
    throw new PluginManifestError(
      file,
      [{ field: "", message: `not valid JSON: ${syntax.message.replace(/^JSON5: /, "")}${where}` }],
      error,
    );
  }
}

async function readPackageJson(rootDir: string): Promise<PackageJson | undefined> {
  const file = join(rootDir, "package.json");
  if (!(await exists(file))) return undefined;
  const value = await readJsonFile(file);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new PluginManifestError(file, [{ field: "", message: "must be a JSON object" }]);
  }
  return value as PackageJson;
}

async function resolveEntry(
  rootDir: string,
  manifestFile: string,
  fields: Record<string, unknown>,
  packageJson: PackageJson | undefined,
): Promise<string> {
  const declared = entryDeclaration(fields, packageJson);
  const path = resolve(rootDir, declared.path);
  const inside = relative(rootDir, path);
  if (inside.startsWith("..") || isAbsolute(inside)) {
    throw new PluginManifestError(manifestFile, [
      { field: "entry", message: `${declared.path} (${declared.from}) is outside the plugin folder` },
    ]);
  }
  if (!(await exists(path))) {
    throw new PluginManifestError(manifestFile, [
      { field: "entry", message: `entry module ${path} (${declared.from}) does not exist` },
    ]);
  }
  return path;
}

function entryDeclaration(
  fields: Record<string, unknown>,
  packageJson: PackageJson | undefined,
): { path: string; from: string } {
  const declared = optionalString(fields.entry);
  if (declared !== undefined) return { path: declared, from: "the manifest" };
  const runtime = firstString(packageJson?.openclaw?.runtimeExtensions);
  if (runtime !== undefined) return { path: runtime, from: 'package.json "openclaw.runtimeExtensions"' };
  const source = firstString(packageJson?.openclaw?.extensions);
  if (source !== undefined) return { path: source, from: 'package.json "openclaw.extensions"' };
  const fromExports = exportsTarget(packageJson?.exports);
  if (fromExports !== undefined) return { path: fromExports, from: 'package.json "exports"' };
  const main = optionalString(packageJson?.main);
  if (main !== undefined) return { path: main, from: 'package.json "main"' };
  return { path: "index.js", from: "the default entry" };
}

/** The module `import` would load from an `exports` field: the "." target under import/node/default. */
function exportsTarget(exportsField: unknown): string | undefined {
  if (typeof exportsField === "string") return exportsField;
  if (typeof exportsField !== "object" || exportsField === null || Array.isArray(exportsField))
    return undefined;
  const record = exportsField as Record<string, unknown>;
  const hasSubpaths = Object.keys(record).some((key) => key.startsWith("."));
  return conditionTarget(hasSubpaths ? record["."] : record);
}

function conditionTarget(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(conditionTarget).find((target) => target !== undefined);
  if (typeof value !== "object" || value === null) return undefined;
  for (const [condition, target] of Object.entries(value)) {
    if (condition !== "import" && condition !== "node" && condition !== "default") continue;
    const resolved = conditionTarget(target);
    if (resolved !== undefined) return resolved;
  }
  return undefined;
}

function normalizeKind(kind: unknown): string[] {
  if (typeof kind === "string") return [kind];
  return Array.isArray(kind) ? kind.filter((value): value is string => typeof value === "string") : [];
}

function firstString(value: unknown): string | undefined {
  return Array.isArray(value) ? optionalString(value[0]) : undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

function idPatternMessage(): string {
  return "must start with a letter or digit and contain only letters, digits, '.', '_' or '-'";
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
