import { createPinoLogger, describeError } from "@clew/core";
import { startGateway } from "@clew/gateway";
import { createQuarantineMirror } from "@clew/plugins";
import type { Command } from "commander";
import { openReloadableAgentService } from "../agent-service.js";
import { type CliIo, CliUsageError } from "../io.js";

/** `clew gateway`: serves the agent over HTTP and WebSocket until SIGINT or SIGTERM. */
export function registerGatewayCommand(program: Command, io: CliIo, signals: ShutdownSignals): void {
  program
    .command("gateway")
    .description("serve the agent over HTTP and WebSocket (loopback by default)")
    .option("--host <host>", "address to bind", "127.0.0.1")
    .option("--port <port>", "port to bind (0 picks a free one)", "18789")
    .option(
      "--token <token>",
      "bearer token clients must send (required beyond loopback; or CLEW_GATEWAY_TOKEN)",
    )
    .action(async (options: { host: string; port: string; token?: string }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65_535) {
        throw new CliUsageError(`--port must be an integer from 0 to 65535, got "${options.port}"`);
      }
      const logger = createPinoLogger({ name: "clew-gateway" });
      const agent = await openReloadableAgentService(io, { logger });
      const service = agent.service;
      // `kill -HUP <pid>` reloads config and plugins (install, uninstall, slot changes) in place.
      const onReload = () => {
        agent
          .reload()
          .then((changes) => logger.info(`reloaded: ${JSON.stringify(changes)}`))
          .catch((error: unknown) => logger.error(`reload failed: ${describeError(error)}`));
      };
      process.on("SIGHUP", onReload);
      // Engines quarantined in this process, mirrored to a file so `clew doctor` can report them.
      const mirror = createQuarantineMirror({ home: agent.home, registry: agent.registry });
      const mirrorTimer = setInterval(() => void mirror.sync().catch(() => {}), 2_000);
      mirrorTimer.unref();
      const token = options.token ?? io.env.CLEW_GATEWAY_TOKEN;
      const gateway = await startGateway({
        service,
        host: options.host,
        port,
        logger,
        ...(token === undefined || token === "" ? {} : { token }),
      }).catch(async (error: unknown) => {
        await service.close();
        throw error;
      });
      io.stdout(`Clew gateway listening on ${gateway.url}\n`);
      await signals.wait();
      io.stdout("Shutting down: finishing or aborting runs...\n");
      process.off("SIGHUP", onReload);
      clearInterval(mirrorTimer);
      await gateway.close();
      await mirror.close();
    });
}

/** Resolves when the process is asked to stop; tests pass their own. */
export interface ShutdownSignals {
  wait(): Promise<void>;
}

export function processShutdownSignals(): ShutdownSignals {
  return {
    wait: () =>
      new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      }),
  };
}
