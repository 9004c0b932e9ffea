import { type ClewConfig, ConfigError, describeError, loadConfig } from "@clew/core";
import { check, type DoctorCheck } from "./doctor-check.js";

export interface ConfigCheckResult {
  checks: DoctorCheck[];
  /** The config, when it loaded; later checks need it and are skipped without it. */
  config?: ClewConfig;
  path: string;
}

/**
 * Loads `<home>/clew.json` as every command does. A missing file is fine (defaults). A
 * `ConfigError` gives one error per problem, each naming the file, the line when known and the
 * field. Never throws.
 */
export async function checkConfig(home: string, configFile: string): Promise<ConfigCheckResult> {
  try {
    const loaded = await loadConfig(home);
    const message = loaded.exists
      ? `config ${loaded.path} is valid`
      : `no config file at ${loaded.path}; using the defaults`;
    return { checks: [check("config", "ok", message)], config: loaded.config, path: loaded.path };
  } catch (error) {
    if (!(error instanceof ConfigError)) {
      return {
        checks: [check("config", "error", `config ${configFile}: ${describeError(error)}`)],
        path: configFile,
      };
    }
    const checks = error.problems.map((problem) => {
      const where = problem.line === undefined ? error.file : `${error.file}:${problem.line}`;
      const field = problem.path === "" ? "" : `${problem.path}: `;
      return check(
        "config",
        "error",
        `config ${where}: ${field}${problem.message}`,
        `edit ${where}${problem.path === "" ? "" : ` (${problem.path})`}; plugins, engines and memory are not checked until it loads`,
      );
    });
    return { checks, path: error.file };
  }
}
