import { ConfigError, describeError, isClewError } from "@clew/core";
import { Command, CommanderError } from "commander";
import { registerChatCommand } from "./commands/chat.js";
import { registerContextCommands } from "./commands/context.js";
import { registerDoctorCommand } from "./commands/doctor.js";
import { processShutdownSignals, registerGatewayCommand, type ShutdownSignals } from "./commands/gateway.js";
import { registerLosslessCommands } from "./commands/lossless.js";
import { registerPluginsCommands } from "./commands/plugins.js";
import { registerReplayCommand } from "./commands/replay.js";
import { registerSessionsCommands } from "./commands/sessions.js";
import { type CliIo, CliUsageError, nodeIo } from "./io.js";

export { nodeIo };

const CLEW_VERSION = "0.1.0";

/** Builds the `clew` program; each command writes through `io` and never calls `process.exit`. */
export function createProgram(io: CliIo, options: { signals?: ShutdownSignals } = {}): Command {
  const program = new Command("clew")
    .description("Clew: decides what an LLM agent sees on every model run")
    .version(CLEW_VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();
  registerSessionsCommands(program, io);
  registerPluginsCommands(program, io);
  registerChatCommand(program, io);
  registerContextCommands(program, io);
  registerReplayCommand(program, io);
  registerDoctorCommand(program, io);
  registerLosslessCommands(program, io);
  registerGatewayCommand(program, io, options.signals ?? processShutdownSignals());
  return program;
}

/** Runs `clew` with `argv` (without the node and script paths); resolves with the exit status. */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  options: { signals?: ShutdownSignals } = {},
): Promise<number> {
  const program = createProgram(io, options);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    // A config the user must fix: named file, line and field; status 2 like other usage errors.
    if (error instanceof ConfigError) {
      io.stderr(`clew: ${error.message}\n`);
      return 2;
    }
    if (error instanceof CliUsageError || isClewError(error)) {
      io.stderr(`clew: ${describeError(error)}\n`);
      return 1;
    }
    io.stderr(
      `clew: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 2;
  }
}
