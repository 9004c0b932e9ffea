import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { acquireSessionLock, agentSessionsDir, SessionIndex } from "@clew/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkSessionStores, runDoctor } from "../../src/index.js";
import { createTempHome } from "../support.js";

let temp: Awaited<ReturnType<typeof createTempHome>>;
beforeEach(async () => {
  temp = await createTempHome("clew-doctor-sessions-");
});
afterEach(async () => {
  await temp.cleanup();
});

const HOST = "doctor-test-host";

function lockRecord(pid: number, hostname = HOST): string {
  return `${JSON.stringify({ pid, hostname, createdAt: "2025-01-02T03:04:05.000Z", token: "abc" })}\n`;
}

describe("checkSessionStores", () => {
  it("reports each agent's index as parsed, with its session count", async () => {
    await new SessionIndex({ home: temp.home, agentId: "main" }).upsert("agent:main:a", { sessionId: "a" });
    await mkdir(agentSessionsDir(temp.home, "helper"), { recursive: true });
    const checks = await checkSessionStores({ home: temp.home, hostName: HOST });
    expect(checks.map((check) => [check.id, check.status, check.message])).toEqual([
      ["sessions.helper", "ok", expect.stringContaining("(0 sessions)")],
      ["sessions.main", "ok", expect.stringContaining("sessions.json parses (1 session)")],
    ]);
  });

  it("is an error naming the file when sessions.json is corrupt, and doctor exits 2", async () => {
    const dir = agentSessionsDir(temp.home, "main");
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, "sessions.json"), '{"agent:main:a": {"sessionId": "a"');
    const report = await runDoctor({ home: temp.home });
    const check = report.checks.find((candidate) => candidate.id === "sessions.main");
    expect(check?.status).toBe("error");
    expect(check?.message).toContain(join(dir, "sessions.json"));
    expect(check?.message).toContain("not valid JSON");
    expect(check?.fix).toContain(`repair ${join(dir, "sessions.json")}`);
    expect(report.exitCode).toBe(2);
  });

  it("warns about a stale lock with the fix to remove it, and doctor exits 1", async () => {
    const dir = agentSessionsDir(temp.home, "main");
    await mkdir(dir, { recursive: true });
    const stale = join(dir, "s1.jsonl.lock");
    await writeFile(stale, lockRecord(4242));
    const report = await runDoctor({ home: temp.home, hostName: HOST, isProcessAlive: () => false });
    const lock = report.checks.find((check) => check.id === "sessions.main.lock");
    expect(lock).toEqual({
      id: "sessions.main.lock",
      status: "warning",
      message: `lock ${stale}: stale, its holder pid 4242 (since 2025-01-02T03:04:05.000Z) is not running`,
      fix: `remove ${stale}`,
    });
    expect(report.exitCode).toBe(1);
  });

  it("accepts a lock held by a live process or another host, and warns about garbage", async () => {
    const dir = agentSessionsDir(temp.home, "main");
    await mkdir(dir, { recursive: true });
    const live = await acquireSessionLock(join(dir, "live.jsonl"), { label: "live", hostName: HOST });
    await writeFile(join(dir, "remote.jsonl.lock"), lockRecord(7, "elsewhere"));
    await writeFile(join(dir, "torn.jsonl.lock"), '{"pid": 12');
    try {
      const checks = await checkSessionStores({ home: temp.home, hostName: HOST });
      const locks = checks.filter((check) => check.id === "sessions.main.lock");
      expect(locks.map((check) => [check.status, check.message])).toEqual([
        ["ok", `lock ${live.lockPath}: held by running process ${process.pid}`],
        ["ok", expect.stringContaining("held by pid 7 on host elsewhere (cannot check it from here)")],
        ["warning", expect.stringContaining("torn.jsonl.lock: not a lock record")],
      ]);
    } finally {
      await live.release();
    }
  });
});
