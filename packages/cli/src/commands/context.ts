import { resolve } from "node:path";
import type { Command } from "commander";
import { openLocalAgentService } from "../agent-service.js";
import { type CliIo, CliUsageError } from "../io.js";

const MODES = ["list", "detail", "json", "map", "help"] as const;

/** `clew context <mode>` and `clew status`, the same reports as `/context` and `/status`. */
export function registerContextCommands(program: Command, io: CliIo): void {
  program
    .command("context")
    .description("what the model sees: list, detail, json, or map (a treemap image of the last run)")
    .argument("[mode]", MODES.join("|"), "list")
    .option("--session <key>", "session key or id", "agent:main:main")
    .option("--format <format>", "map format: png or svg", "png")
    .option("--out <dir>", "where the map is written (default ~/.clew/context-maps)")
    .action(async (mode: string, options: { session: string; format: string; out?: string }) => {
      if (!(MODES as readonly string[]).includes(mode)) {
        throw new CliUsageError(`unknown mode "${mode}"; use ${MODES.join(", ")}`);
      }
      if (options.format !== "png" && options.format !== "svg") {
        throw new CliUsageError(`--format must be png or svg, got "${options.format}"`);
      }
      const service = await openLocalAgentService(io);
      try {
        const text = await service.context(options.session, mode as (typeof MODES)[number], {
          format: options.format,
          ...(options.out === undefined ? {} : { outDir: resolve(io.cwd, options.out) }),
        });
        io.stdout(`${text}\n`);
      } finally {
        await service.close();
      }
    });

  program
    .command("status")
    .description("model, window fill, context engine, compactions and settings of a session")
    .option("--session <key>", "session key or id", "agent:main:main")
    .option("--json", "print as JSON")
    .action(async (options: { session: string; json?: boolean }) => {
      const service = await openLocalAgentService(io);
      try {
        const status = await service.status(options.session);
        io.stdout(options.json ? `${JSON.stringify(status.data, null, 2)}\n` : `${status.text}\n`);
      } finally {
        await service.close();
      }
    });
}
