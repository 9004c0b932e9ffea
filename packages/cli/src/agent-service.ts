import { LocalAgentService, PluginCommandRegistry, ToolRegistry } from "@clew/agent";
import {
  type ClewConfig,
  type ContextEngineRegistry,
  configPath,
  createContextEngineRegistry,
  createPinoLogger,
  createTokenCounter,
  type Logger,
} from "@clew/core";
import { loadPlugins, type PluginLoadReport, reloadPlugins } from "@clew/plugins";
import { openCliContext } from "./context.js";
import type { CliIo } from "./io.js";

/** The registry with `legacy` and every enabled plugin's engines and tools, loaded at start-up. */
export async function loadEngines(
  home: string,
  config: ClewConfig,
  logger: Logger,
): Promise<{
  registry: ContextEngineRegistry;
  tools: ToolRegistry;
  commands: PluginCommandRegistry;
  report: PluginLoadReport;
}> {
  const registry = createContextEngineRegistry();
  const tools = new ToolRegistry();
  const commands = new PluginCommandRegistry();
  const report = await loadPlugins({ home, config, registry, tools, commands, logger });
  for (const plugin of report.plugins) {
    if (plugin.enabled && !plugin.loaded && plugin.error !== undefined) {
      logger.error(`plugin ${plugin.id} did not load (${plugin.error.stage}): ${plugin.error.message}`);
    }
  }
  return { registry, tools, commands, report };
}

/** A running agent and how to reload it (plugins and config) without a restart. */
export interface ReloadableAgentService {
  service: LocalAgentService;
  /** The engines the agent selects from (legacy and the plugins'). */
  registry: ContextEngineRegistry;
  home: string;
  /** Reads clew.json again, reloads plugins into the same registry, and rebuilds the engines. */
  reload(): Promise<{ added: string[]; removed: string[]; changed: string[] }>;
}

/** The agent run in this process, from the user's config, with its plugins loaded. */
export async function openLocalAgentService(
  io: CliIo,
  options: { logger?: Logger } = {},
): Promise<LocalAgentService> {
  return (await openReloadableAgentService(io, options)).service;
}

export async function openReloadableAgentService(
  io: CliIo,
  options: { logger?: Logger } = {},
): Promise<ReloadableAgentService> {
  const context = await openCliContext(io);
  const logger =
    options.logger ?? createPinoLogger({ level: (io.env.CLEW_LOG_LEVEL as "info" | undefined) ?? "warn" });
  const { registry, tools, commands, report } = await loadEngines(context.home, context.config, logger);
  let previous = report;
  const service = new LocalAgentService({
    home: context.home,
    config: context.config,
    configPath: configPath(context.home),
    env: io.env,
    logger,
    counter: await createTokenCounter(context.config),
    registry,
    extraTools: tools,
    pluginCommands: commands,
  });
  return {
    service,
    registry,
    home: context.home,
    async reload() {
      const { config } = await openCliContext(io);
      const result = await reloadPlugins({
        home: context.home,
        config,
        registry,
        tools,
        commands,
        logger,
        previous,
      });
      previous = result.report;
      await service.reload(config);
      return { added: result.added, removed: result.removed, changed: result.changed };
    },
  };
}
