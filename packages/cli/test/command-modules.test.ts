import { Command } from "commander";
import { describe, expect, it } from "vitest";
import type { CliIo } from "../src/io.js";
import { COMMAND_MODULES, commandsFor, createProgram, runCli } from "../src/main.js";

function recordingIo(): CliIo & { out: string[] } {
  const out: string[] = [];
  return { out, stdout: (text) => out.push(text), stderr: (text) => out.push(text), env: {}, cwd: "/" };
}

const never = { wait: () => new Promise<void>(() => undefined) };

describe("clew's commands, loaded on demand", () => {
  it("names in its table exactly the top-level commands each module registers", async () => {
    for (const entry of COMMAND_MODULES) {
      const program = new Command("clew");
      (await entry.load())(program, recordingIo(), never);
      expect(program.commands.map((command) => command.name()).sort()).toEqual([...entry.names].sort());
    }
  });

  it("builds the whole program by default, and only what a command needs when asked", async () => {
    const all = await createProgram(recordingIo(), { signals: never });
    expect(all.commands.map((command) => command.name()).sort()).toEqual(
      COMMAND_MODULES.flatMap((entry) => entry.names).sort(),
    );
    // Pinned: a command dropped from the table would drop out of both lists above alike.
    expect(all.commands.map((command) => command.name()).sort()).toEqual([
      "chat",
      "context",
      "doctor",
      "gateway",
      "lossless",
      "plugins",
      "replay",
      "sessions",
      "status",
    ]);
    const some = await createProgram(recordingIo(), { signals: never, commands: ["status"] });
    expect(some.commands.map((command) => command.name()).sort()).toEqual(["context", "status"]);
  });

  it("loads no command for the version, the named one for a command, and all for help or a typo", async () => {
    expect(commandsFor(["--version"])).toEqual([]);
    expect(commandsFor(["sessions", "list"])).toEqual(["sessions"]);
    expect(commandsFor(["--help"])).toBeUndefined();
    expect(commandsFor(["sesions"])).toBeUndefined();
    expect(commandsFor([])).toBeUndefined();
    const io = recordingIo();
    expect(await runCli(["--version"], io)).toBe(0);
    expect(io.out.join("")).toBe("0.1.0\n");
    const typo = recordingIo();
    expect(await runCli(["sesions"], typo)).toBe(1);
    expect(typo.out.join("")).toContain("(Did you mean sessions?)");
  });
});
