/**
 * M1 inside long agent transcripts: the conversation's sessions interleaved between chunks of the
 * recorded pi sessions (hundreds of thousands of tokens), replayed at 32k/64k/128k, then every
 * question asked at that budget. Needs the pi sessions (`CLEW_PI_SESSIONS_DIR`); without them the
 * figures are n/a. Requests feed M6 and M7 like every other scenario.
 */
import { countMessagesTokens, describeError } from "@clew/core";
import {
  conversationSources,
  generateConversation,
} from "../../../workloads/locomo/generate-conversation.js";
import { interleaveConversation, piSessionTurns } from "../../../workloads/long-transcript.js";
import { messagesOfTurns, type ReplayTurn } from "../../../workloads/replay-turn.js";
import { Provenance } from "../harness/provenance.js";
import {
  type EvidenceCheck,
  type EvidenceRecallReport,
  summarizeEvidence,
} from "../metrics/evidence-recall.js";
import { type Figure, notApplicable } from "../metrics/figure.js";
import { type PromptCacheReport, PromptCacheTracker } from "../metrics/prompt-cache.js";
import type { QualityPreset } from "../presets.js";
import { askQuestions } from "./conversation-scenario.js";
import {
  openSession,
  type QualityRun,
  recordRequest,
  replayDemand,
  tokensBeforeTurns,
} from "./quality-run.js";

export interface LongTranscriptReport {
  turns: number;
  tokens: number;
  evidence: EvidenceRecallReport;
  /** Every request of the replay at each budget (by budget), against a cache of prompt prefixes. */
  promptCache: Record<string, PromptCacheReport>;
  replayFailures: string[];
}

/** The summary cap inside long transcripts: a small share of the window, as a model summary would be. */
const LONG_SUMMARY_TOKENS = 2_048;

export async function runLongTranscriptScenario(
  run: QualityRun,
  preset: QualityPreset,
  piSessionsDir: string,
): Promise<LongTranscriptReport | Figure> {
  if (preset.longTranscriptBudgets.length === 0) return notApplicable(`not run in preset ${preset.id}`);
  let agentTurns: ReplayTurn[];
  try {
    agentTurns = await piSessionTurns(piSessionsDir);
  } catch (error) {
    run.log(`long transcripts skipped: ${describeError(error)}`);
    return notApplicable("pi sessions not found");
  }
  const conversation = generateConversation(preset.conversation);
  const provenance = new Provenance(conversationSources(conversation));
  const turns = interleaveConversation(agentTurns, conversation);
  const tokens = countMessagesTokens(run.counter, messagesOfTurns(turns));
  const before = tokensBeforeTurns(turns, run.counter);
  const checks: EvidenceCheck[] = [];
  const replayFailures: string[] = [];
  const promptCache: Record<string, PromptCacheReport> = {};
  for (const budget of preset.longTranscriptBudgets) {
    run.log(`long transcript: ${turns.length} turns, ${tokens} tokens, at ${budget} tokens`);
    const name = `long-${budget}`;
    const { session } = await openSession(run, {
      name,
      budget,
      provenance,
      summaryTokens: LONG_SUMMARY_TOKENS,
    });
    try {
      const cache = new PromptCacheTracker(run.counter);
      const outcome = await session.replay(turns, (record, turn) => {
        cache.observe(record.systemPrompt, record.messages);
        recordRequest(
          run,
          name,
          record,
          replayDemand(before, turns, { turn, step: record.step }, run.counter),
        );
      });
      promptCache[String(budget)] = cache.result();
      replayFailures.push(...outcome.failures.map((failure) => `${name}: ${failure}`));
      checks.push(...(await askQuestions(run, { session, conversation, provenance, label: name, tokens })));
    } finally {
      await session.close();
    }
  }
  return { turns: turns.length, tokens, evidence: summarizeEvidence(checks), promptCache, replayFailures };
}
