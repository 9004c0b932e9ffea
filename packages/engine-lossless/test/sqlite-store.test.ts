import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { runLosslessStoreContractSuite } from "../src/testing.js";

runLosslessStoreContractSuite("sqlite (file)", {
  createStore: async () => {
    const directory = await mkdtemp(join(tmpdir(), "clew-lossless-store-"));
    const path = join(directory, "lossless.db");
    const subject = {
      store: openSqliteStore(path),
      reopen: async () => {
        await subject.store.close();
        subject.store = openSqliteStore(path);
        return subject.store;
      },
      cleanup: async () => {
        await subject.store.close();
        await rm(directory, { recursive: true, force: true });
      },
    };
    return subject;
  },
});

runLosslessStoreContractSuite("sqlite (memory)", {
  createStore: async () => {
    const store = openSqliteStore(":memory:");
    return { store, cleanup: () => store.close() };
  },
});
