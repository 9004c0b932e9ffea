import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";

/** The OpenClaw SDK import paths (reference 5.1) that resolve to `@clew/plugin-sdk`. */
export const OPENCLAW_SDK_SPECIFIERS = [
  "openclaw/plugin-sdk",
  "openclaw/plugin-sdk/core",
  "openclaw/plugin-sdk/context-engine",
  "openclaw/plugin-sdk/compat",
  "openclaw/plugin-sdk/agent-harness-runtime",
  // Clew's own SDK name: a plugin installed outside this repo cannot find the package on disk,
  // and must share the host's copy anyway (delegateCompactionToRuntime only works there).
  "@clew/plugin-sdk",
] as const;

let registered = false;

/** File URL of the `@clew/plugin-sdk` module this process uses (so plugins share its core). */
export function clewPluginSdkUrl(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve("@clew/plugin-sdk")).href;
}

/**
 * Makes `import ... from "openclaw/plugin-sdk/core"` (and the other `OPENCLAW_SDK_SPECIFIERS`)
 * load Clew's SDK in this process, for plugins in any folder. Idempotent. Throws what Node throws
 * when it cannot register hooks (the loader then warns and loads plugins without the mapping).
 *
 * It registers a Node resolution hook (`module.register`), which is process-wide by nature and
 * cannot be removed; the flag only keeps it from being registered twice. The hook composes with
 * tsx's loader (`packages/cli/bin/clew.mjs`): it runs first, answers only these specifiers with
 * the SDK's URL, and tsx loads that TypeScript file. Test runners that load modules through their
 * own pipeline (Vitest) bypass Node's hooks, so tests check this in a child process.
 */
export function ensureOpenClawSdkResolution(): void {
  if (registered) return;
  register(new URL("./openclaw-sdk-hooks.mjs", import.meta.url), {
    data: { sdkUrl: clewPluginSdkUrl(), specifiers: [...OPENCLAW_SDK_SPECIFIERS] },
  });
  registered = true;
}
