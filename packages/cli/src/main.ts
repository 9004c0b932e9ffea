import { describeError, isClewError } from "@clew/core";
import { Command, CommanderError } from "commander";
import { registerSessionsCommands } from "./commands/sessions.js";
import { type CliIo, CliUsageError, nodeIo } from "./io.js";

export { nodeIo };

const CLEW_VERSION = "0.1.0";

/** Builds the `clew` program; each command writes through `io` and never calls `process.exit`. */
export function createProgram(io: CliIo): Command {
  const program = new Command("clew")
    .description("Clew: decides what an LLM agent sees on every model run")
    .version(CLEW_VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();
  registerSessionsCommands(program, io);
  return program;
}

/** Runs `clew` with `argv` (without the node and script paths); resolves with the exit status. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = createProgram(io);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
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
