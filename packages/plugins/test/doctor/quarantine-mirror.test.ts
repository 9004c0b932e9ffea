import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { createContextEngineRegistry } from "@clew/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createQuarantineMirror,
  quarantineMirrorPath,
  readGatewayQuarantineState,
  runDoctor,
} from "../../src/index.js";
import { createTempHome } from "../support.js";

let temp: Awaited<ReturnType<typeof createTempHome>>;
beforeEach(async () => {
  temp = await createTempHome("clew-doctor-quarantine-");
});
afterEach(async () => {
  await temp.cleanup();
});

const HOST = "gateway-host";
const record = {
  engineId: "lossless",
  owner: "plugin:lossless",
  operation: "assemble" as const,
  reason: "boom",
  failedAt: 1_700_000_000_000,
};

function mirrorFor(registry = createContextEngineRegistry()) {
  return {
    registry,
    mirror: createQuarantineMirror({
      home: temp.home,
      registry,
      processId: 777,
      hostName: HOST,
      now: () => 1_700_000_000_000,
    }),
  };
}

describe("quarantine mirror", () => {
  it("writes the registry's quarantine records on sync, only when they changed", async () => {
    const { registry, mirror } = mirrorFor();
    await mirror.sync();
    const path = quarantineMirrorPath(temp.home);
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({
      pid: 777,
      hostname: HOST,
      updatedAt: "2023-11-14T22:13:20.000Z",
      records: [],
    });
    const before = (await stat(path)).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 15));
    await mirror.sync();
    expect((await stat(path)).mtimeMs).toBe(before);
    registry.quarantine.record(record);
    await mirror.sync();
    expect(JSON.parse(await readFile(path, "utf8")).records).toEqual([record]);
  });

  it("is read as running while its writer lives on this host, stale otherwise, and removed on close", async () => {
    const { registry, mirror } = mirrorFor();
    registry.quarantine.record(record);
    await mirror.sync();
    const alive = await readGatewayQuarantineState(temp.home, { hostName: HOST, isProcessAlive: () => true });
    expect(alive).toMatchObject({ kind: "running", pid: 777, records: [record] });
    const dead = await readGatewayQuarantineState(temp.home, { hostName: HOST, isProcessAlive: () => false });
    expect(dead).toMatchObject({ kind: "stale", pid: 777 });
    const remote = await readGatewayQuarantineState(temp.home, {
      hostName: "other",
      isProcessAlive: () => true,
    });
    expect(remote.kind).toBe("stale");
    await mirror.close();
    expect((await readGatewayQuarantineState(temp.home)).kind).toBe("none");
  });

  it("shows in doctor as an error when the running gateway quarantined the selected engine", async () => {
    const { registry, mirror } = mirrorFor();
    registry.quarantine.record(record);
    await mirror.sync();
    await temp.writeConfig({ plugins: { slots: { contextEngine: "lossless" } } });
    const report = await runDoctor({ home: temp.home, hostName: HOST, isProcessAlive: () => true });
    const quarantine = report.checks.find((check) => check.id === "context-engine.quarantine");
    expect(quarantine).toEqual({
      id: "context-engine.quarantine",
      status: "error",
      message:
        'quarantine: the running gateway (pid 777) quarantined "lossless" during assemble: boom; it runs on legacy',
      fix: "fix the engine, then restart the gateway or reload it (kill -HUP 777)",
    });
  });

  it("reports garbage in the mirror as a warning with the fix to remove it", async () => {
    const path = quarantineMirrorPath(temp.home);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, "not json");
    const report = await runDoctor({ home: temp.home });
    const quarantine = report.checks.find((check) => check.id === "context-engine.quarantine");
    expect(quarantine).toMatchObject({ status: "warning", fix: `remove ${path}` });
    expect(report.exitCode).toBe(1);
  });
});
