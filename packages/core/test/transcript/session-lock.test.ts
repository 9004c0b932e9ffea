import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SessionLockedError } from "../../src/errors.js";
import { JsonlTranscriptStore } from "../../src/transcript/jsonl/jsonl-transcript-store.js";
import {
  acquireSessionLock,
  type LockRecord,
  parseLockRecord,
} from "../../src/transcript/jsonl/session-lock.js";
import { type FixtureProcess, startFixture } from "./fixtures/spawn-fixture.js";

const dirs: string[] = [];
const children: FixtureProcess[] = [];

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "clew-session-lock-"));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.child.exitCode === null && child.child.signalCode === null) child.child.kill("SIGKILL");
    await child.exited;
  }
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function readLock(target: string): Promise<LockRecord | undefined> {
  return parseLockRecord(await readFile(`${target}.lock`, "utf8"));
}

function lockRecord(overrides: Partial<LockRecord>): string {
  const record: LockRecord = {
    pid: process.pid,
    hostname: hostname(),
    createdAt: new Date().toISOString(),
    token: "someone-else",
    ...overrides,
  };
  return JSON.stringify(record);
}

/** A pid that is not running: a child that has exited and been reaped. */
async function deadPid(): Promise<number> {
  return spawnSync(process.execPath, ["-e", ""]).pid ?? 0;
}

describe("session writer lock across processes", () => {
  it("refuses a second process with SessionLockedError naming the holder pid, then takes over after SIGKILL", async () => {
    const home = await tempDir();
    const store = new JsonlTranscriptStore({ home });
    await (await store.create({ agentId: "main", sessionId: "shared" })).close();

    const holder = startFixture("hold-lock.ts", [home, "main", "shared"]);
    children.push(holder);
    await holder.waitForLine((line) => line === "locked");
    const refusal = await store.open("main", "shared").catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(SessionLockedError);
    expect(refusal).toMatchObject({ holderPid: holder.child.pid, sessionId: "shared" });
    expect((refusal as Error).message).toContain(`process ${holder.child.pid}`);

    holder.child.kill("SIGKILL");
    await holder.exited;
    const transcript = await store.open("main", "shared");
    expect(await readLock(transcript.location)).toMatchObject({ pid: process.pid, hostname: hostname() });
    await transcript.close();
  });
});

describe("acquireSessionLock", () => {
  it("creates the lock file with pid, hostname, createdAt and token, and release removes it", async () => {
    const target = join(await tempDir(), "session.jsonl");
    const lock = await acquireSessionLock(target, { label: "s", randomToken: () => "token-1", now: () => 0 });
    expect(await readLock(target)).toMatchObject({
      pid: process.pid,
      hostname: hostname(),
      createdAt: "1970-01-01T00:00:00.000Z",
      token: "token-1",
    });
    await lock.release();
    await expect(readFile(lock.lockPath)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("refuses while this same process holds the lock", async () => {
    const target = join(await tempDir(), "session.jsonl");
    const lock = await acquireSessionLock(target, { label: "s" });
    await expect(acquireSessionLock(target, { label: "s" })).rejects.toMatchObject({
      holderPid: process.pid,
    });
    await lock.release();
    await (await acquireSessionLock(target, { label: "s" })).release();
  });

  it("takes over a lock whose process is gone", async () => {
    const target = join(await tempDir(), "session.jsonl");
    await writeFile(`${target}.lock`, lockRecord({ pid: await deadPid() }));
    const lock = await acquireSessionLock(target, { label: "s", randomToken: () => "mine" });
    expect((await readLock(target))?.token).toBe("mine");
    await lock.release();
  });

  it("takes over a lock with our pid left by an earlier process start (a reused pid)", async () => {
    const target = join(await tempDir(), "session.jsonl");
    await writeFile(`${target}.lock`, lockRecord({ processStartedAt: Date.now() - 3_600_000 }));
    const lock = await acquireSessionLock(target, { label: "s", randomToken: () => "mine" });
    expect((await readLock(target))?.token).toBe("mine");
    await lock.release();
  });

  it("never takes over a lock from another host", async () => {
    const target = join(await tempDir(), "session.jsonl");
    await writeFile(`${target}.lock`, lockRecord({ pid: await deadPid(), hostname: "some-other-host" }));
    await expect(acquireSessionLock(target, { label: "s" })).rejects.toBeInstanceOf(SessionLockedError);
  });

  it("takes over unreadable garbage only once it is older than the garbage threshold", async () => {
    const target = join(await tempDir(), "session.jsonl");
    const lockPath = `${target}.lock`;
    await writeFile(lockPath, "{not a lock");
    const young = await acquireSessionLock(target, { label: "s" }).catch((error: unknown) => error);
    expect(young).toMatchObject({ holderPid: undefined });
    expect(await readFile(lockPath, "utf8")).toBe("{not a lock");
    const tenSecondsAgo = new Date(Date.now() - 10_000);
    await utimes(lockPath, tenSecondsAgo, tenSecondsAgo);
    const lock = await acquireSessionLock(target, { label: "s", randomToken: () => "mine" });
    expect((await readLock(target))?.token).toBe("mine");
    await lock.release();
  });

  it("lets exactly one of many concurrent callers take over the same stale lock", async () => {
    const target = join(await tempDir(), "session.jsonl");
    await writeFile(`${target}.lock`, lockRecord({ pid: await deadPid() }));
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) =>
        acquireSessionLock(target, { label: "s", randomToken: () => `token-${index}` }),
      ),
    );
    const winners = attempts.filter((attempt) => attempt.status === "fulfilled");
    expect(winners).toHaveLength(1);
    const winner = winners[0];
    if (winner?.status === "fulfilled") expect((await readLock(target))?.token).toBe(winner.value.token);
  });

  it("release leaves a lock that is no longer ours in place", async () => {
    const target = join(await tempDir(), "session.jsonl");
    const lock = await acquireSessionLock(target, { label: "s" });
    const replacement = lockRecord({ token: "new-owner" });
    await writeFile(lock.lockPath, replacement);
    await lock.release();
    expect(await readFile(lock.lockPath, "utf8")).toBe(replacement);
  });

  it("waits up to waitMs for a live holder to release", async () => {
    const target = join(await tempDir(), "session.jsonl");
    const first = await acquireSessionLock(target, { label: "s" });
    setTimeout(() => void first.release(), 50);
    const second = await acquireSessionLock(target, { label: "s", waitMs: 2000 });
    await second.release();
  });
});
