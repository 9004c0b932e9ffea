import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { openSqliteStore, type SqliteLosslessStore } from "../../src/store/sqlite/sqlite-store.js";

/**
 * A fresh `lossless.db` path in a temporary folder for every test of the calling file, and stores
 * opened over it (background indexing off) that are closed, with the folder removed, after each.
 */
export function useTempStorePath(prefix: string): { path(): string; open(): SqliteLosslessStore } {
  let directory = "";
  const stores: SqliteLosslessStore[] = [];
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await rm(directory, { recursive: true, force: true });
  });
  const path = () => join(directory, "lossless.db");
  return {
    path,
    open() {
      const store = openSqliteStore(path(), { backgroundIndexDelayMs: false });
      stores.push(store);
      return store;
    },
  };
}
