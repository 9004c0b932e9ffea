import { runContextEngineContractSuite } from "@clew/plugin-sdk/testing";
import { afterAll } from "vitest";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());

runContextEngineContractSuite("lossless", { createEngine: () => engines.engine() });
