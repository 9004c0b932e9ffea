/**
 * The LoCoMo-style conversation, replayed through the engine once without limits (ingest, recall
 * before any compaction, disk use) and once per budget B (compaction as the engine and host would,
 * then every question at B). Feeds M1, M2, M8, M10 (turn loop), M11 and M12, and every request to
 * M6 and M7.
 */
import { countMessagesTokens, type UserMessage } from "@clew/core";
import { type LatencySummary, summarizeLatencies } from "../../../metrics/percentiles.js";
import {
  conversationReplayTurns,
  conversationSources,
  type GeneratedConversation,
  generateConversation,
} from "../../../workloads/locomo/generate-conversation.js";
import { messagesOfTurns } from "../../../workloads/replay-turn.js";
import type { EngineSession, ReplayHooks } from "../harness/engine-session.js";
import { messageText } from "../harness/message-text.js";
import { Provenance } from "../harness/provenance.js";
import type { AnswerAccuracyTally } from "../judge/answer-accuracy.js";
import {
  type CompactionReport,
  summarizeCompactions,
  summarizeEngineCompactions,
} from "../metrics/compaction-stats.js";
import {
  type DiskUsage,
  diskUsageOf,
  measureClosedStore,
  measureOpenDisk,
  type OpenDiskUsage,
} from "../metrics/disk-usage.js";
import {
  type EvidenceCheck,
  type EvidenceRecallReport,
  findEvidence,
  summarizeEvidence,
} from "../metrics/evidence-recall.js";
import { type Figure, isNotApplicable, notApplicable } from "../metrics/figure.js";
import { type PrefixStabilityReport, PrefixStabilityTracker } from "../metrics/prefix-stability.js";
import { type PromptCacheReport, PromptCacheTracker } from "../metrics/prompt-cache.js";
import {
  type RankingScore,
  type RecallRankingReport,
  rankedSources,
  scoreRanking,
  summarizeRanking,
} from "../metrics/recall-ranking.js";
import { type QualityPreset, summaryCap } from "../presets.js";
import {
  openSession,
  type QualityRun,
  recordFailedAsk,
  recordRequest,
  replayDemand,
  tokensBeforeTurns,
  UNBOUNDED_BUDGET,
} from "./quality-run.js";

export interface ConversationReport {
  turns: number;
  questions: number;
  tokens: number;
  evidence: EvidenceRecallReport;
  recallBeforeCompaction: RecallRankingReport | Figure;
  recallAfterCompaction: RecallRankingReport | Figure;
  stability: PrefixStabilityReport;
  /** Every request of the replay at the stability budget, against a cache of prompt prefixes. */
  promptCache: PromptCacheReport;
  compaction: CompactionReport;
  /** Whole turns through the host during the unlimited replay (ingest + assemble + finalize). */
  turnLatency: LatencySummary;
  diskAfterIngest: DiskUsage;
  diskAfterCompaction: DiskUsage;
  replayFailures: string[];
}

/** `judge` (`--judge`) answers and grades the questions asked at each budget; none by default. */
export async function runConversationScenario(
  run: QualityRun,
  preset: QualityPreset,
  judge?: AnswerAccuracyTally,
): Promise<ConversationReport> {
  const conversation = generateConversation(preset.conversation);
  const provenance = new Provenance(conversationSources(conversation));
  const turns = conversationReplayTurns(conversation);
  const tokens = countMessagesTokens(run.counter, messagesOfTurns(turns));
  const before = tokensBeforeTurns(turns, run.counter);
  const replayFailures: string[] = [];

  run.log(`conversation: ${conversation.turns.length} turns, ${tokens} tokens, unlimited replay`);
  const unlimited = await openSession(run, {
    name: "conversation-all",
    budget: UNBOUNDED_BUDGET,
    provenance,
    summaryTokens: 1_024,
  });
  let turnLatency: LatencySummary;
  let openAfterIngest: OpenDiskUsage;
  let recallBeforeCompaction: RecallRankingReport | Figure;
  try {
    const outcome = await unlimited.session.replay(turns, (record, turn) =>
      recordRequest(
        run,
        "conversation",
        record,
        replayDemand(before, turns, { turn, step: record.step }, run.counter),
      ),
    );
    replayFailures.push(...outcome.failures.map((failure) => `conversation-all: ${failure}`));
    turnLatency = summarizeLatencies(outcome.turnMs);
    openAfterIngest = await measureOpenDisk(unlimited.session);
    recallBeforeCompaction = await rankQuestions(
      unlimited.session,
      conversation,
      provenance,
      preset.recallKs,
    );
  } finally {
    await unlimited.session.close();
  }
  const diskAfterIngest = diskUsageOf(openAfterIngest, await measureClosedStore(unlimited.session));

  const checks: EvidenceCheck[] = [];
  let stability: PrefixStabilityReport | undefined;
  let promptCache: PromptCacheReport | undefined;
  let compaction: CompactionReport | undefined;
  let recallAfterCompaction: RecallRankingReport | Figure = notApplicable("no budgeted run");
  let diskAfterCompaction: DiskUsage | undefined;
  let openAfterCompaction: OpenDiskUsage | undefined;
  for (const budget of preset.budgets) {
    run.log(`conversation at ${budget} tokens`);
    const name = `conversation-${budget}`;
    const { session, summarizer } = await openSession(run, {
      name,
      budget,
      provenance,
      summaryTokens: summaryCap(budget),
    });
    try {
      const tracker = new PrefixStabilityTracker(run.counter, session.requestOnly);
      const cache = budget === preset.stabilityBudget ? new PromptCacheTracker(run.counter) : undefined;
      let compactionsSeen = 0;
      const enginePasses = new EnginePassCounter(session);
      const outcome = await session.replay(
        turns,
        (record, turn) => {
          recordRequest(
            run,
            name,
            record,
            replayDemand(before, turns, { turn, step: record.step }, run.counter),
          );
          cache?.observe(record.systemPrompt, record.messages);
          if (record.step !== 0) return;
          const replayCompactions = session.compactions.filter((item) => item.phase === "replay").length;
          const compacted = replayCompactions > compactionsSeen || enginePasses.takeNew();
          tracker.observe(record.messages, compacted);
          compactionsSeen = replayCompactions;
        },
        enginePasses.hooks,
      );
      replayFailures.push(...outcome.failures.map((failure) => `${name}: ${failure}`));
      if (budget === preset.stabilityBudget) {
        stability = tracker.result();
        promptCache = cache?.result();
        compaction = session.reportsStore
          ? summarizeEngineCompactions(await session.engineStats(), tokens)
          : summarizeCompactions(
              session.compactions.filter((item) => item.phase === "replay"),
              tokens,
              { ...summarizer.stats },
            );
      }
      checks.push(
        ...(await askQuestions(run, { session, conversation, provenance, label: name, tokens, judge })),
      );
      if (budget === preset.budgets[0]) {
        recallAfterCompaction = await rankQuestions(session, conversation, provenance, preset.recallKs);
        openAfterCompaction = await measureOpenDisk(session);
      }
    } finally {
      await session.close();
    }
    if (openAfterCompaction !== undefined && diskAfterCompaction === undefined)
      diskAfterCompaction = diskUsageOf(openAfterCompaction, await measureClosedStore(session));
  }
  if (
    stability === undefined ||
    promptCache === undefined ||
    compaction === undefined ||
    diskAfterCompaction === undefined
  )
    throw new Error(
      `preset ${preset.id}: the stability budget ${preset.stabilityBudget} is not among its budgets`,
    );
  return {
    turns: conversation.turns.length,
    questions: conversation.questions.length,
    tokens,
    evidence: summarizeEvidence(checks),
    recallBeforeCompaction,
    recallAfterCompaction,
    stability,
    promptCache,
    compaction,
    turnLatency,
    diskAfterIngest,
    diskAfterCompaction,
    replayFailures,
  };
}

/** Asks every question of `conversation` at the session's budget; the session is left unchanged. */
export async function askQuestions(
  run: QualityRun,
  input: {
    session: EngineSession;
    conversation: GeneratedConversation;
    provenance: Provenance;
    label: string;
    /** Tokens of the whole conversation. */
    tokens: number;
    /** Answers and grades the questions from their requests (`--judge`). */
    judge?: AnswerAccuracyTally | undefined;
  },
): Promise<EvidenceCheck[]> {
  const { session, conversation, provenance, label } = input;
  const asked = (conversation.turns.at(-1)?.timestamp ?? 0) + 86_400_000;
  const evidenceText = (id: string) => {
    const message = provenance.messageOf(id);
    return message === undefined ? "" : messageText(message);
  };
  const checks: EvidenceCheck[] = [];
  for (const question of conversation.questions) {
    const prompt: UserMessage = { role: "user", content: question.question, timestamp: asked };
    const record = await session.ask(prompt);
    const base = {
      questionId: question.id,
      category: question.category,
      budget: session.budget,
      evidence: question.evidence,
    };
    const among = conversation.questions;
    await input.judge?.judgeQuestion({ budget: session.budget, question, among, request: record });
    if ("failed" in record) {
      recordFailedAsk(run, `${label} ${question.id}`, record.failed);
      checks.push({ ...base, raw: [], covered: [], failed: record.failed });
      continue;
    }
    recordRequest(run, `${label} ${question.id}`, record, input.tokens + run.counter.countMessage(prompt));
    checks.push({ ...base, ...findEvidence(record.messages.slice(0, -1), question.evidence, evidenceText) });
  }
  return checks;
}

async function rankQuestions(
  session: EngineSession,
  conversation: GeneratedConversation,
  provenance: Provenance,
  ks: readonly number[],
): Promise<RecallRankingReport | Figure> {
  const recall = session.recall;
  if (recall === undefined) return notApplicable("no recall tool");
  const scores: RankingScore[] = [];
  const deepest = Math.max(...ks);
  for (const question of conversation.questions) {
    if (question.evidence.length === 0) continue;
    const ranked = await rankedSources(recall, question.question, deepest, (message) =>
      provenance.idOf(message),
    );
    scores.push(scoreRanking(ranked, question.evidence, ks));
  }
  return summarizeRanking(scores, ks);
}

/**
 * Compaction passes an engine with a store ran where the host cannot see them (background
 * maintenance between turns), read before each turn, so M8 does not count a turn after such a
 * pass as a broken prefix. Does nothing for engines without the stats hook.
 */
class EnginePassCounter {
  readonly hooks: ReplayHooks;
  private passes = 0;
  private seen = 0;

  constructor(session: EngineSession) {
    this.hooks = session.reportsStore
      ? {
          beforeTurn: async () => {
            const stats = await session.engineStats();
            if (!isNotApplicable(stats)) this.passes = stats.compaction.passes;
          },
        }
      : {};
  }

  /** Whether passes ran since the previous call. */
  takeNew(): boolean {
    const ran = this.passes > this.seen;
    this.seen = this.passes;
    return ran;
  }
}
