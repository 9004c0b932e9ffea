// docs/plugins.md shows this file verbatim; packages/plugin-sdk/test/docs-examples.test.ts runs it.
import type {
  AssembleParams,
  AssembleResult,
  CompactParams,
  CompactResult,
  ContextEngine,
  IngestResult,
  PluginApi,
} from "@clew/plugin-sdk";
import { buildMemorySystemPromptAddition, delegateCompactionToRuntime } from "@clew/plugin-sdk";

/**
 * An engine that does not own compaction: it passes the host's history through unchanged, puts
 * the active memory plugin's instructions in front of the system prompt, and hands compaction
 * back to the runtime (Clew's summary compaction).
 */
export function createMemoryHintEngine(): ContextEngine {
  return {
    info: { id: "memory-hint", name: "Memory hint", version: "1.0.0", ownsCompaction: false },

    // The host stores the transcript; this engine keeps nothing of its own.
    async ingest(): Promise<IngestResult> {
      return { ingested: false };
    },

    async assemble({ messages, availableTools, citationsMode }: AssembleParams): Promise<AssembleResult> {
      const memory = buildMemorySystemPromptAddition({
        availableTools: availableTools ?? new Set(),
        ...(citationsMode === undefined ? {} : { citationsMode }),
      });
      return {
        messages,
        estimatedTokens: 0, // "not counted": the host estimates pass-through history itself
        ...(memory === undefined ? {} : { systemPromptAddition: memory }),
      };
    },

    compact(params: CompactParams): Promise<CompactResult> {
      return delegateCompactionToRuntime(params);
    },
  };
}

export default function register(api: PluginApi): void {
  api.registerContextEngine("memory-hint", () => createMemoryHintEngine());
}
