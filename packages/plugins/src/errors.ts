/**
 * Errors of the plugins package. They extend core's `ClewError`, so `isClewError` recognises them
 * and the CLI prints them without a stack (exit status 1). Load failures of a single plugin are
 * not thrown: they are data in the load report (`PluginLoadFailure`).
 */
import { ClewError } from "@clew/core";

export interface ManifestProblem {
  /** Dotted field of the manifest (`kind`, `configSchema.properties`), or "" for the whole file. */
  field: string;
  message: string;
}

/** A plugin manifest is missing, unreadable or invalid; names the file and every bad field. */
export class PluginManifestError extends ClewError {
  readonly file: string;
  readonly problems: ManifestProblem[];

  constructor(file: string, problems: ManifestProblem[], cause?: unknown) {
    const lines = problems.map(
      (problem) => `${file}: ${problem.field ? `${problem.field}: ` : ""}${problem.message}`,
    );
    super(`Invalid plugin manifest:\n${lines.join("\n")}`, {
      code: "plugin_manifest_invalid",
      category: "user",
      cause,
    });
    this.file = file;
    this.problems = problems;
  }
}

/**
 * An install, link or uninstall could not be done (the spec names nothing installable, npm failed,
 * the install records file is corrupt). Nothing is left half-installed when this is thrown: the
 * staging folder is removed and neither the records nor `clew.json` were changed.
 */
export class PluginInstallError extends ClewError {
  /** What the user asked to install, or the plugin id for uninstall. */
  readonly spec: string;

  constructor(spec: string, message: string, cause?: unknown) {
    super(message, { code: "plugin_install_failed", category: "user", cause });
    this.spec = spec;
  }
}

/** No installed, linked or configured plugin has this id. */
export class UnknownPluginError extends ClewError {
  readonly pluginId: string;
  readonly knownPluginIds: string[];

  constructor(pluginId: string, knownPluginIds: string[]) {
    const known = knownPluginIds.length > 0 ? knownPluginIds.join(", ") : "(none)";
    super(`Unknown plugin "${pluginId}". Installed or linked plugins: ${known}`, {
      code: "plugin_unknown",
      category: "user",
    });
    this.pluginId = pluginId;
    this.knownPluginIds = knownPluginIds;
  }
}
