import { delegateCompactionToRuntime } from "../runtime-compaction.js";
import type {
  AssembleParams,
  AssembleResult,
  CompactParams,
  CompactResult,
  ContextEngine,
  ContextEngineInfo,
  IngestResult,
} from "../types.js";

/**
 * The built-in engine, selected by default and used as the fallback for quarantined engines.
 * It keeps OpenClaw's built-in behaviour: the session store owns persistence (ingest and afterTurn
 * do nothing), the host pipeline has already shaped history (assemble passes it through), and
 * compaction is the runtime's summary compaction.
 */
export class LegacyContextEngine implements ContextEngine {
  readonly info: ContextEngineInfo = Object.freeze({
    id: "legacy",
    name: "Legacy Context Engine",
    version: "1.0.0",
  });

  async ingest(): Promise<IngestResult> {
    return { ingested: false };
  }

  async assemble(params: AssembleParams): Promise<AssembleResult> {
    return { messages: params.messages, estimatedTokens: 0 };
  }

  async afterTurn(): Promise<void> {}

  async compact(params: CompactParams): Promise<CompactResult> {
    return delegateCompactionToRuntime(params);
  }

  async dispose(): Promise<void> {}
}

export function createLegacyContextEngine(): ContextEngine {
  return new LegacyContextEngine();
}
