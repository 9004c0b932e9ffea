import { Command, CommanderError } from "commander";
import type { ShutdownSignals } from "./commands/gateway.js";
import { type CliIo, CliUsageError, nodeIo } from "./io.js";

export { nodeIo };

const CLEW_VERSION = "0.1.0";

type Registration = (program: Command, io: CliIo, signals: ShutdownSignals | undefined) => void;

/**
 * Each top-level command and the module that registers it. A module is imported only when its
 * command runs (or for help): the agent, the gateway and the lossless engine take most of a
 * second to import through tsx, which `clew sessions list` or `clew --version` need not wait for.
 */
export const COMMAND_MODULES: ReadonlyArray<{ names: readonly string[]; load: () => Promise<Registration> }> =
  [
    {
      names: ["sessions"],
      load: async () => (await import("./commands/sessions.js")).registerSessionsCommands,
    },
    { names: ["plugins"], load: async () => (await import("./commands/plugins.js")).registerPluginsCommands },
    { names: ["chat"], load: async () => (await import("./commands/chat.js")).registerChatCommand },
    {
      names: ["context", "status"],
      load: async () => (await import("./commands/context.js")).registerContextCommands,
    },
    { names: ["replay"], load: async () => (await import("./commands/replay.js")).registerReplayCommand },
    { names: ["doctor"], load: async () => (await import("./commands/doctor.js")).registerDoctorCommand },
    {
      names: ["lossless"],
      load: async () => (await import("./commands/lossless.js")).registerLosslessCommands,
    },
    {
      names: ["gateway"],
      load: async () => {
        const gateway = await import("./commands/gateway.js");
        return (program, io, signals) =>
          gateway.registerGatewayCommand(program, io, signals ?? gateway.processShutdownSignals());
      },
    },
  ];

/**
 * Builds the `clew` program; each command writes through `io` and never calls `process.exit`.
 * `commands` limits it to the top-level commands named (all by default).
 */
export async function createProgram(
  io: CliIo,
  options: { signals?: ShutdownSignals; commands?: readonly string[] } = {},
): Promise<Command> {
  const program = new Command("clew")
    .description("Clew: decides what an LLM agent sees on every model run")
    .version(CLEW_VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();
  const { commands } = options;
  const wanted = COMMAND_MODULES.filter(
    (entry) => commands === undefined || entry.names.some((name) => commands.includes(name)),
  );
  const registrations = await Promise.all(wanted.map((entry) => entry.load()));
  for (const register of registrations) register(program, io, options.signals);
  return program;
}

/**
 * The top-level commands `argv` needs: none for the version alone, the one it names, or all (help,
 * an unknown command, no command: commander lists them).
 */
export function commandsFor(argv: readonly string[]): readonly string[] | undefined {
  const [first] = argv;
  if (first === undefined) return undefined;
  if (argv.length === 1 && (first === "--version" || first === "-V")) return [];
  return COMMAND_MODULES.some((entry) => entry.names.includes(first)) ? [first] : undefined;
}

/** Runs `clew` with `argv` (without the node and script paths); resolves with the exit status. */
export async function runCli(
  argv: readonly string[],
  io: CliIo,
  options: { signals?: ShutdownSignals } = {},
): Promise<number> {
  try {
    const commands = commandsFor(argv);
    const program = await createProgram(io, { ...options, ...(commands === undefined ? {} : { commands }) });
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    return reportError(error, io);
  }
}

/** Writes what went wrong; the exit status. Core is imported here, so `--version` never loads it. */
async function reportError(error: unknown, io: CliIo): Promise<number> {
  const { ConfigError, describeError, isClewError } = await import("@clew/core");
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
