import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { ContextEngineHostUnsupportedError, type ContextEngineInfo, InvalidOptionError } from "@clew/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliBackend, cliBackendDescriptor, runCliBackendTurn } from "../../src/hosts/cli-backend.js";
import { CliBackendError } from "../../src/hosts/cli-backend-error.js";

const PLAIN_ENGINE: ContextEngineInfo = { id: "plain", name: "Plain engine" };

const ASSEMBLING_ENGINE: ContextEngineInfo = {
  id: "assembler",
  name: "Assembling engine",
  hostRequirements: {
    "agent-run": {
      requiredCapabilities: ["bootstrap", "assemble-before-prompt"],
      unsupportedMessage: "Run this engine on the embedded runner, not on a CLI backend.",
    },
  },
};

let cwd: string;
beforeEach(async () => {
  cwd = await mkdtemp(join(tmpdir(), "clew-cli-backend-"));
});
afterEach(async () => {
  await rm(cwd, { recursive: true, force: true });
});

function shell(id: string, script: string, extra: Partial<CliBackend> = {}): CliBackend {
  return { id, command: "sh", args: ["-c", script], ...extra };
}

/** False once the process is gone or a zombie (a container's init may never reap it). */
function isAlive(pid: number): boolean {
  const statPath = `/proc/${pid}/stat`;
  if (existsSync("/proc/self/stat")) {
    try {
      return !/\) Z /.test(readFileSync(statPath, "utf8"));
    } catch {
      return false;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntilDead(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    if (!isAlive(pid)) return true;
    await sleep(20);
  }
  return false;
}

async function readPid(file: string): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const text = await readFile(file, "utf8").catch(() => "");
    if (text.trim() !== "") return Number(text.trim());
    await sleep(10);
  }
  throw new Error(`no pid written to ${file}`);
}

describe("cliBackendDescriptor", () => {
  it("names the backend and declares only the default capabilities", () => {
    expect(cliBackendDescriptor("codex")).toEqual({
      id: "cli:codex",
      label: 'CLI backend "codex"',
      capabilities: ["bootstrap", "after-turn", "maintain"],
    });
    expect(cliBackendDescriptor("x", ["compact"]).capabilities).toEqual(["compact"]);
  });
});

describe("runCliBackendTurn", () => {
  it("sends the prompt on stdin and answers with stdout", async () => {
    const reply = await runCliBackendTurn({
      backend: { id: "echo", command: "cat" },
      engineInfo: PLAIN_ENGINE,
      prompt: "first line\nsecond line\n",
      cwd,
    });
    expect(reply.text).toBe("first line\nsecond line");
  });

  it("runs the command with its args in the given working directory", async () => {
    const reply = await runCliBackendTurn({
      backend: shell("upper", "tr a-z A-Z | tee reply.txt; echo note >&2"),
      engineInfo: PLAIN_ENGINE,
      prompt: "make me loud",
      cwd,
    });
    expect(reply).toEqual({ text: "MAKE ME LOUD", stderrTail: "note\n" });
    expect(await readFile(join(cwd, "reply.txt"), "utf8")).toBe("MAKE ME LOUD");
  });

  it("refuses an engine that needs assemble-before-prompt before the command starts", async () => {
    const marker = join(cwd, "started");
    const attempt = runCliBackendTurn({
      backend: shell("plain", `touch "${marker}"; cat`),
      engineInfo: ASSEMBLING_ENGINE,
      prompt: "hi",
      cwd,
    });
    await expect(attempt).rejects.toThrow(ContextEngineHostUnsupportedError);
    await expect(attempt).rejects.toThrow(/Run this engine on the embedded runner, not on a CLI backend\./);
    await expect(attempt).rejects.toThrow(
      /CLI backend "plain".*Missing host capabilities: assemble-before-prompt/,
    );
    await sleep(50);
    expect(existsSync(marker)).toBe(false);
  });

  it("runs that engine when the backend declares the capability", async () => {
    const reply = await runCliBackendTurn({
      backend: { id: "full", command: "cat", capabilities: ["bootstrap", "assemble-before-prompt"] },
      engineInfo: ASSEMBLING_ENGINE,
      prompt: "ok",
      cwd,
    });
    expect(reply.text).toBe("ok");
  });

  it("reports a non-zero exit with its code and the stderr tail", async () => {
    const attempt = runCliBackendTurn({
      backend: shell("broken", "cat >/dev/null; echo 'model unavailable' >&2; exit 3"),
      engineInfo: PLAIN_ENGINE,
      prompt: "hi",
      cwd,
    });
    const error = await attempt.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CliBackendError);
    expect(error).toMatchObject({
      backendId: "broken",
      failure: "exit",
      exitCode: 3,
      code: "cli_backend_failed",
    });
    expect((error as CliBackendError).stderrTail).toContain("model unavailable");
    expect((error as Error).message).toMatch(/exited with code 3[\s\S]*model unavailable/);
  });

  it("kills the whole process group when the timeout passes", async () => {
    const pidFile = join(cwd, "child.pid");
    const started = Date.now();
    const attempt = runCliBackendTurn({
      backend: shell("slow", `sleep 30 & echo $! > "${pidFile}"; wait`, { timeoutMs: 300 }),
      engineInfo: PLAIN_ENGINE,
      prompt: "hi",
      cwd,
    });
    const error = await attempt.catch((caught: unknown) => caught);
    expect(error).toMatchObject({ failure: "timeout", exitCode: null });
    expect((error as Error).message).toContain("timed out after 300 ms");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await waitUntilDead(await readPid(pidFile))).toBe(true);
  });

  it("rejects with the abort reason and kills the command", async () => {
    const pidFile = join(cwd, "child.pid");
    const controller = new AbortController();
    const attempt = runCliBackendTurn({
      backend: shell("waiting", `sleep 30 & echo $! > "${pidFile}"; wait`),
      engineInfo: PLAIN_ENGINE,
      prompt: "hi",
      cwd,
      signal: controller.signal,
    });
    const pid = await readPid(pidFile);
    const reason = new Error("user pressed stop");
    controller.abort(reason);
    await expect(attempt).rejects.toBe(reason);
    expect(await waitUntilDead(pid)).toBe(true);
  });

  it("does not start the command when the signal has already fired", async () => {
    const marker = join(cwd, "started");
    const reason = new Error("cancelled early");
    const attempt = runCliBackendTurn({
      backend: shell("early", `touch "${marker}"`),
      engineInfo: PLAIN_ENGINE,
      prompt: "hi",
      cwd,
      signal: AbortSignal.abort(reason),
    });
    await expect(attempt).rejects.toBe(reason);
    expect(existsSync(marker)).toBe(false);
  });

  it("succeeds with a command that never reads its stdin", async () => {
    const reply = await runCliBackendTurn({
      backend: shell("deaf", "echo fixed answer"),
      engineInfo: PLAIN_ENGINE,
      prompt: "x".repeat(1_000_000),
      cwd,
    });
    expect(reply.text).toBe("fixed answer");
  });

  it("reports a command that cannot start", async () => {
    const attempt = runCliBackendTurn({
      backend: { id: "missing", command: join(cwd, "no-such-program") },
      engineInfo: PLAIN_ENGINE,
      prompt: "hi",
      cwd,
    });
    await expect(attempt).rejects.toMatchObject({ failure: "spawn", category: "user" });
    await expect(attempt).rejects.toThrow(/could not start.*ENOENT/);
  });

  it("names the bad field of an invalid backend config", async () => {
    const run = (backend: CliBackend) =>
      runCliBackendTurn({ backend, engineInfo: PLAIN_ENGINE, prompt: "", cwd });
    await expect(run({ id: "b", command: " " })).rejects.toThrow(InvalidOptionError);
    await expect(run({ id: "b", command: "cat", timeoutMs: 0 })).rejects.toThrow(/cliBackends\.b\.timeoutMs/);
    await expect(run({ id: "b", command: "cat", capabilities: ["telepathy" as "compact"] })).rejects.toThrow(
      /cliBackends\.b\.capabilities: "telepathy"/,
    );
  });
});
