import { createLegacyContextEngine } from "@clew/core";
import { runContextEngineContractSuite } from "../src/testing.js";
import { DelegatingEngine } from "./engines/delegating-engine.js";
import { RecentWindowEngine } from "./engines/recent-window-engine.js";

runContextEngineContractSuite("legacy", { createEngine: () => createLegacyContextEngine() });
runContextEngineContractSuite("recent-window (owns compaction)", {
  createEngine: () => new RecentWindowEngine(),
});
runContextEngineContractSuite("delegating", { createEngine: () => new DelegatingEngine() });
