/**
 * Workload sizes of the quality suite. `full` follows the reference (LoCoMo-sized conversation, 50
 * needles, 100 KB+ tool result); `gate` is the small deterministic run CI gates on; `tiny` keeps
 * the suite's own tests fast. All seeds are fixed.
 */
import { InvalidOptionError } from "@clew/core";
import type { AgentSessionOptions } from "../../workloads/agent/generate-agent-session.js";
import type { ConversationOptions } from "../../workloads/locomo/generate-conversation.js";

export const QUALITY_PRESET_IDS = ["full", "gate", "tiny"] as const;

export type QualityPresetId = (typeof QUALITY_PRESET_IDS)[number];

export interface QualityPreset {
  id: QualityPresetId;
  conversation: ConversationOptions;
  /** M1 budgets on the conversation, ascending. */
  budgets: number[];
  /** M1 budgets inside long agent transcripts (pi sessions); empty skips that run. */
  longTranscriptBudgets: number[];
  /** The budget whose replay M8 (prefix stability) and M12 (compaction) are read from. */
  stabilityBudget: number;
  recallKs: number[];
  agent: AgentSessionOptions;
  /** Forced compactions in the needle run (N = 0…this). */
  needleCompactions: number;
  /** The smallest needle budget; budgets double from it up to one the whole session fits. */
  minNeedleBudget: number;
  /** Whether the crash-replay check (M13) runs; it starts a child process. */
  crash: boolean;
}

const FULL: QualityPreset = {
  id: "full",
  conversation: {
    seed: 20_240_601,
    sessions: 26,
    turns: 600,
    factsPerSpeaker: 12,
    updateShare: 0.35,
    questions: { "single-hop": 40, "multi-hop": 20, temporal: 20, "open-domain": 14 },
  },
  budgets: [2_000, 4_000, 8_000, 16_000],
  longTranscriptBudgets: [32_000, 64_000, 128_000],
  stabilityBudget: 8_000,
  recallKs: [5, 10, 25],
  agent: {
    seed: 20_240_602,
    turns: 80,
    needles: 50,
    confusableSets: [2, 4, 8],
    distractorsPerSet: 6,
    bigToolResultBytes: 20_000,
    hugeToolResultBytes: 110_000,
  },
  needleCompactions: 5,
  minNeedleBudget: 16_000,
  crash: true,
};

const GATE: QualityPreset = {
  ...FULL,
  id: "gate",
  conversation: {
    ...FULL.conversation,
    sessions: 20,
    turns: 400,
    factsPerSpeaker: 9,
    questions: { "single-hop": 12, "multi-hop": 8, temporal: 8, "open-domain": 6 },
  },
  // The recorded pi sessions are not in CI, and the gate must not depend on them.
  longTranscriptBudgets: [],
  agent: { ...FULL.agent, turns: 30, needles: 12, distractorsPerSet: 4 },
};

const TINY: QualityPreset = {
  ...GATE,
  id: "tiny",
  conversation: {
    ...GATE.conversation,
    sessions: 4,
    turns: 48,
    factsPerSpeaker: 3,
    questions: { "single-hop": 3, "multi-hop": 2, temporal: 2, "open-domain": 1 },
  },
  budgets: [2_000, 4_000],
  stabilityBudget: 2_000,
  agent: {
    ...GATE.agent,
    turns: 8,
    needles: 4,
    confusableSets: [2],
    distractorsPerSet: 2,
    bigToolResultBytes: 4_000,
    hugeToolResultBytes: 8_000,
  },
  needleCompactions: 2,
  minNeedleBudget: 4_000,
  crash: false,
};

const PRESETS: Record<QualityPresetId, QualityPreset> = { full: FULL, gate: GATE, tiny: TINY };

/** Throws `InvalidOptionError` naming the presets for an unknown id. */
export function qualityPreset(id: string): QualityPreset {
  const preset = PRESETS[id as QualityPresetId];
  if (preset === undefined) throw new InvalidOptionError("--preset", id, QUALITY_PRESET_IDS.join(", "));
  return preset;
}

/** The stub summarizer's cap at budget B: a sixth of it, within 200..1024 tokens. */
export function summaryCap(budget: number): number {
  return Math.max(200, Math.min(1_024, Math.floor(budget / 6)));
}
