import { LocalAgentService } from "@clew/agent";
import { configPath, createPinoLogger, createTokenCounter, type Logger } from "@clew/core";
import { openCliContext } from "./context.js";
import type { CliIo } from "./io.js";

/** The agent run in this process, from the user's config. */
export async function openLocalAgentService(
  io: CliIo,
  options: { logger?: Logger } = {},
): Promise<LocalAgentService> {
  const context = await openCliContext(io);
  return new LocalAgentService({
    home: context.home,
    config: context.config,
    configPath: configPath(context.home),
    env: io.env,
    logger:
      options.logger ?? createPinoLogger({ level: (io.env.CLEW_LOG_LEVEL as "info" | undefined) ?? "warn" }),
    counter: await createTokenCounter(context.config),
  });
}
