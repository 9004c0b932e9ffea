/**
 * Node module resolution hooks, registered by `ensureOpenClawSdkResolution`: the OpenClaw plugin
 * SDK subpaths Clew implements resolve to Clew's SDK, whatever folder the importing plugin is in
 * (installed or linked) and even when the plugin bundles a copy of `openclaw`. Other
 * `openclaw/plugin-sdk/*` subpaths fail with a message naming the ones Clew provides, instead of
 * loading a second host's code. Everything else goes to the next hook (tsx, then Node).
 *
 * Plain JavaScript on purpose: hooks run on Node's loader thread before any TypeScript loader
 * could be relied on.
 */

let sdkUrl = "";
let specifiers = new Set();

export function initialize(data) {
  sdkUrl = data.sdkUrl;
  specifiers = new Set(data.specifiers);
}

export async function resolve(specifier, context, nextResolve) {
  // Resolved through the rest of the chain, so tsx sees the TypeScript file and loads it.
  if (specifiers.has(specifier)) return nextResolve(sdkUrl, context);
  if (specifier.startsWith("openclaw/plugin-sdk/")) {
    const error = new Error(
      `Clew does not provide "${specifier}" (imported by ${context.parentURL ?? "a plugin"}); ` +
        `it provides ${[...specifiers].join(", ")}`,
    );
    error.code = "ERR_MODULE_NOT_FOUND";
    throw error;
  }
  return nextResolve(specifier, context);
}
