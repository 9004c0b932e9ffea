import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkEngineStores, type EngineStoreProbe, runDoctor } from "../../src/index.js";
import { createTempHome } from "../support.js";

/** The lossless engine as the CLI describes it to the doctor. */
const LOSSLESS: EngineStoreProbe = { engineId: "lossless", fileName: "lossless.db" };

let temp: Awaited<ReturnType<typeof createTempHome>>;
beforeEach(async () => {
  temp = await createTempHome("clew-doctor-lossless-");
});
afterEach(async () => {
  await temp.cleanup();
});

/** A stand-in store file of `bytes` bytes plus a WAL of `walBytes`, in agent `agentId`'s folder. */
async function storeFile(agentId: string, bytes: number, walBytes: number): Promise<string> {
  const folder = join(temp.home, "agents", agentId);
  await mkdir(folder, { recursive: true });
  const path = join(folder, "lossless.db");
  await writeFile(path, Buffer.alloc(bytes));
  await writeFile(`${path}-wal`, Buffer.alloc(walBytes));
  return path;
}

describe("doctor: lossless store", () => {
  it("reports each agent's store with its WAL bytes and the reader's counts, only for the lossless engine", async () => {
    const path = await storeFile("main", 4_096, 1_024);
    await mkdir(join(temp.home, "agents", "helper"), { recursive: true });
    const readTotals = async (read: string) => {
      expect(read).toBe(path);
      return { sessions: 3, messages: 120 };
    };
    const store = { ...LOSSLESS, readTotals };
    expect(await checkEngineStores({ home: temp.home, selectedEngineId: "legacy", store })).toEqual([]);
    expect(await checkEngineStores({ home: temp.home, selectedEngineId: "lossless", store })).toEqual([
      {
        id: "lossless-store.main",
        status: "ok",
        message: `lossless store of agent main: ${path}, 5.0 KB (5120 bytes) on disk (with WAL), 120 messages in 3 session(s)`,
      },
    ]);
  });

  it("warns when a store cannot be read, and says when there is none yet", async () => {
    expect(
      await checkEngineStores({ home: temp.home, selectedEngineId: "lossless", store: LOSSLESS }),
    ).toEqual([{ id: "lossless-store", status: "ok", message: "lossless store: none yet" }]);
    await storeFile("main", 100, 0);
    const [failed] = await checkEngineStores({
      home: temp.home,
      selectedEngineId: "lossless",
      store: {
        ...LOSSLESS,
        readTotals: async () => {
          throw new Error("file is not a database");
        },
      },
    });
    expect(failed).toMatchObject({ status: "warning" });
    expect(failed?.message).toContain("but it cannot be read: file is not a database");
  });

  it("runs as part of doctor when the config selects the engine the caller describes", async () => {
    await storeFile("main", 2_048, 0);
    await temp.writeConfig({ plugins: { slots: { contextEngine: "lossless" } } });
    expect(
      (await runDoctor({ home: temp.home })).checks.some((check) => check.id.startsWith("lossless")),
    ).toBe(false);
    const report = await runDoctor({ home: temp.home, engineStore: LOSSLESS });
    const line = report.checks.find((check) => check.id === "lossless-store.main");
    expect(line?.message).toContain("2.0 KB (2048 bytes) on disk");
  });
});
