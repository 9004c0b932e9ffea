/**
 * The lossless engine as a plugin (Clew or OpenClaw): `register(api)` registers the engine under
 * the plugin's id, so installing the plugin selects it. Its database is `<agentDir>/lossless.db`.
 */
import type { PluginApi } from "@clew/plugin-sdk";
import { createLosslessEngineFactory } from "./create-lossless-engine.js";

export const LOSSLESS_PLUGIN_ID = "lossless";

export default function register(api: PluginApi): void {
  api.registerContextEngine(LOSSLESS_PLUGIN_ID, createLosslessEngineFactory({ logger: api.logger }));
}
