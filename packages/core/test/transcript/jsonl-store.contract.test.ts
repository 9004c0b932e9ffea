import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runTranscriptStoreContractSuite } from "../../src/testing/index.js";
import { JsonlTranscriptStore } from "../../src/transcript/jsonl/jsonl-transcript-store.js";

runTranscriptStoreContractSuite("jsonl", {
  async createStore() {
    const home = await mkdtemp(join(tmpdir(), "clew-jsonl-contract-"));
    return {
      store: new JsonlTranscriptStore({ home }),
      cleanup: () => rm(home, { recursive: true, force: true }),
    };
  },
});
