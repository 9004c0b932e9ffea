import type {
  AssembleParams,
  AssembleResult,
  CompactParams,
  CompactResult,
  ContextEngine,
  ContextEngineMaintenanceResult,
  IngestBatchParams,
  IngestBatchResult,
  IngestResult,
  SubagentSpawnParams,
  SubagentSpawnPreparation,
} from "../../src/index.js";
import { delegateCompactionToRuntime } from "../../src/index.js";

/**
 * An engine that does not own compaction: it counts what it sees, adds a line to the system
 * prompt, passes history through and hands compaction to the runtime.
 */
export class DelegatingEngine implements ContextEngine {
  readonly info = { id: "delegating", name: "Delegating (test engine)", version: "1.0.0" };
  readonly seen = new Map<string, Set<string>>();
  readonly spawns: string[] = [];

  async ingest(): Promise<IngestResult> {
    return { ingested: false };
  }

  async ingestBatch(params: IngestBatchParams): Promise<IngestBatchResult> {
    const seen = this.seen.get(params.sessionId) ?? new Set<string>();
    this.seen.set(params.sessionId, seen);
    let ingestedCount = 0;
    for (const message of params.messages) {
      const key = JSON.stringify(message);
      if (!seen.has(key)) {
        seen.add(key);
        ingestedCount++;
      }
    }
    return { ingestedCount };
  }

  async assemble(params: AssembleParams): Promise<AssembleResult> {
    const count = this.seen.get(params.sessionId)?.size ?? 0;
    return {
      messages: params.messages,
      estimatedTokens: 0,
      systemPromptAddition: `The delegating engine has seen ${count} messages of this session.`,
    };
  }

  compact(params: CompactParams): Promise<CompactResult> {
    return delegateCompactionToRuntime(params);
  }

  async maintain(): Promise<ContextEngineMaintenanceResult> {
    return { changed: false, bytesFreed: 0, rewrittenEntries: 0 };
  }

  async prepareSubagentSpawn(params: SubagentSpawnParams): Promise<SubagentSpawnPreparation> {
    this.spawns.push(params.childSessionKey);
    return { rollback: () => void this.spawns.splice(this.spawns.indexOf(params.childSessionKey), 1) };
  }

  async onSubagentEnded(): Promise<void> {}
}
