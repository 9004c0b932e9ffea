import path from "node:path";
import { describe, expect, it } from "vitest";
import { CommandFailedError, createExecTool } from "../../src/tools/exec-tool.js";
import { useTempWorkspace, waitForPidFile, waitForProcessExit } from "./temp-workspace.js";

const workspace = useTempWorkspace("exec");

function execTool(options: { timeoutMs?: number; outputCapChars?: number } = {}) {
  return createExecTool({ workspaceDir: workspace.dir, ...options });
}

async function run(command: string, options: { timeoutMs?: number; outputCapChars?: number } = {}) {
  const result = await execTool(options).execute("call-1", { command });
  const first = result.content[0];
  if (first?.type !== "text") throw new Error("expected a text block");
  return { text: first.text, details: result.details };
}

async function failureOf(promise: Promise<unknown>): Promise<CommandFailedError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof CommandFailedError))
    throw new Error(`expected CommandFailedError, got ${String(error)}`);
  return error;
}

describe("exec tool", () => {
  it("runs in the workspace and returns stdout and stderr in arrival order", async () => {
    const { text, details } = await run(
      "pwd; sleep 0.05; echo to-stderr >&2; sleep 0.05; echo back-to-stdout",
    );
    expect(text).toBe(`${workspace.dir}\nto-stderr\nback-to-stdout\n`);
    expect(details).toEqual({ exitCode: 0, omittedChars: 0 });
  });

  it("closes stdin so commands that read it finish at once", async () => {
    expect((await run("cat; echo done")).text).toBe("done\n");
  });

  it("says when a successful command printed nothing", async () => {
    expect((await run("true")).text).toBe("(no output)");
  });

  it("fails with the exit code and the output for a non-zero exit", async () => {
    const error = await failureOf(run("echo oops; exit 3"));
    expect(error.message).toBe("Command exited with code 3\noops\n");
    expect(error.exitCode).toBe(3);
  });

  it("keeps the head and tail of long output and counts what it dropped", async () => {
    const { text, details } = await run("printf START; head -c 100000 /dev/zero | tr '\\0' x; printf END", {
      outputCapChars: 1000,
    });
    expect(text.startsWith(`START${"x".repeat(495)}\n[... 99008 chars omitted ...]\n`)).toBe(true);
    expect(text.endsWith(`${"x".repeat(497)}END`)).toBe(true);
    expect(details.omittedChars).toBe(99008);
  });

  it("kills the whole process group on timeout and returns the partial output", async () => {
    const pidFile = path.join(workspace.dir, "sleep.pid");
    const started = Date.now();
    const error = await failureOf(
      execTool({ timeoutMs: 60_000 }).execute("call-1", {
        command: `echo partial; sleep 5 & echo $! > ${pidFile}; wait`,
        timeoutSeconds: 0.3,
      }),
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.timedOut).toBe(true);
    expect(error.message).toBe("Command timed out after 0.3s\npartial");
    expect(await waitForProcessExit(await waitForPidFile(pidFile))).toBe(true);
  });

  it("kills the process group and rejects with the signal's reason when aborted", async () => {
    const pidFile = path.join(workspace.dir, "sleep.pid");
    const controller = new AbortController();
    const running = execTool().execute(
      "call-1",
      { command: `sleep 5 & echo $! > ${pidFile}; wait` },
      controller.signal,
    );
    const sleepPid = await waitForPidFile(pidFile);
    const reason = new Error("user pressed stop");
    const started = Date.now();
    controller.abort(reason);
    await expect(running).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(500);
    expect(await waitForProcessExit(sleepPid)).toBe(true);
  });

  it("refuses to start when the signal has already fired", async () => {
    const pidFile = path.join(workspace.dir, "never.pid");
    const controller = new AbortController();
    controller.abort(new Error("too late"));
    await expect(
      execTool().execute("call-1", { command: `echo $$ > ${pidFile}` }, controller.signal),
    ).rejects.toThrow("too late");
    await expect(waitForPidFile(pidFile, 100)).rejects.toThrow("No pid appeared");
  });

  it("does not wait for background jobs that keep the output pipes open", async () => {
    const pidFile = path.join(workspace.dir, "background.pid");
    const started = Date.now();
    try {
      expect((await run(`sleep 3 & echo $! > ${pidFile}; echo started`)).text).toBe("started\n");
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      process.kill(await waitForPidFile(pidFile), "SIGKILL");
    }
  });
});
