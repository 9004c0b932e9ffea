import { LocalAgentService, ToolRegistry } from "@clew/agent";
import {
  type ClewConfig,
  type ContextEngineRegistry,
  configPath,
  createContextEngineRegistry,
  createPinoLogger,
  createTokenCounter,
  type Logger,
} from "@clew/core";
import { loadPlugins } from "@clew/plugins";
import { openCliContext } from "./context.js";
import type { CliIo } from "./io.js";

/** The registry with `legacy` and every enabled plugin's engines and tools, loaded at start-up. */
export async function loadEngines(
  home: string,
  config: ClewConfig,
  logger: Logger,
): Promise<{ registry: ContextEngineRegistry; tools: ToolRegistry }> {
  const registry = createContextEngineRegistry();
  const tools = new ToolRegistry();
  const report = await loadPlugins({ home, config, registry, tools, logger });
  for (const plugin of report.plugins) {
    if (plugin.enabled && !plugin.loaded && plugin.error !== undefined) {
      logger.error(`plugin ${plugin.id} did not load (${plugin.error.stage}): ${plugin.error.message}`);
    }
  }
  return { registry, tools };
}

/** The agent run in this process, from the user's config, with its plugins loaded. */
export async function openLocalAgentService(
  io: CliIo,
  options: { logger?: Logger } = {},
): Promise<LocalAgentService> {
  const context = await openCliContext(io);
  const logger =
    options.logger ?? createPinoLogger({ level: (io.env.CLEW_LOG_LEVEL as "info" | undefined) ?? "warn" });
  const { registry, tools } = await loadEngines(context.home, context.config, logger);
  return new LocalAgentService({
    home: context.home,
    config: context.config,
    configPath: configPath(context.home),
    env: io.env,
    logger,
    counter: await createTokenCounter(context.config),
    registry,
    extraTools: tools,
  });
}
