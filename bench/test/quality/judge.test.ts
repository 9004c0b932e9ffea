/**
 * The answer-accuracy judge end to end: a real quality cell (tiny preset, legacy) whose judge
 * resolves `local/tiny` from a clew.json in a temporary CLEW_HOME, pointing at a fake provider
 * that speaks the OpenAI Chat Completions stream on loopback. No other network.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type FakeProvider,
  type FakeReply,
  type RecordedRequest,
  startFakeProvider,
} from "@clew/agent/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CellResult } from "../../cell.js";
import { runCell } from "../../cell-runner.js";
import { parseBenchArgs } from "../../cli-options.js";
import { formatTables } from "../../report.js";
import { QUALITY_SYSTEM_PROMPT } from "../../suites/quality/harness/engine-session.js";
import { pickQuestions } from "../../suites/quality/judge/answer-accuracy.js";
import { GRADER_SYSTEM_PROMPT } from "../../suites/quality/judge/answer-judge.js";
import { qualityPreset } from "../../suites/quality/presets.js";
import { qualityFigures } from "../../suites/quality/quality-rows.js";
import type { QualityMetrics } from "../../suites/quality/quality-suite.js";
import { generateConversation } from "../../workloads/locomo/generate-conversation.js";

const questions = generateConversation(qualityPreset("tiny").conversation).questions;
const picked = questions.filter((question) => pickQuestions(questions, 4).has(question.id));
// One scripted behaviour per judged question: the answer, and the grader's verdict if it is asked.
const [exact, wrong, paraphrased, failing] = picked;

interface ChatBody {
  messages: { role: string; content: string | { type: string; text?: string }[] | null }[];
}

const textOf = (content: ChatBody["messages"][number]["content"]): string =>
  typeof content === "string" ? content : (content ?? []).map((part) => part.text ?? "").join("");

function reply(request: RecordedRequest): FakeReply {
  const messages = (request.body as ChatBody).messages;
  const system = textOf(messages[0]?.content ?? "");
  const last = textOf(messages.at(-1)?.content ?? "");
  if (system === GRADER_SYSTEM_PROMPT) {
    return last.includes(paraphrased?.question ?? "?")
      ? { text: "CORRECT\nThe same value in other words." }
      : { text: "INCORRECT\nAnother value." };
  }
  if (last === exact?.question) return { text: `It is ${exact.answer}.` };
  if (last === wrong?.question) return { text: "I do not know." };
  if (last === paraphrased?.question) return { text: "The one mentioned earlier." };
  return { status: 400, error: "scripted failure", headers: { "x-should-retry": "false" } };
}

let home: string;
let fake: FakeProvider;
let judged: CellResult;
let unjudged: CellResult;
let unjudgedRequests: number;

const cellOf = (argv: string[]) => ({
  suite: "quality",
  engine: "legacy",
  counter: "o200k-cached" as const,
  workload: { kind: "quality" as const, preset: "tiny" },
  settings: parseBenchArgs(argv, { CLEW_HOME: home }).settings,
});

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-judge-"));
  fake = await startFakeProvider({ protocol: "openai-completions", script: reply });
  await writeFile(
    join(home, "clew.json"),
    JSON.stringify({
      models: {
        providers: { local: { api: "openai-completions", baseUrl: fake.baseUrl, models: [{ id: "tiny" }] } },
      },
    }),
  );
  const tempRoot = join(home, "cells");
  await mkdir(tempRoot);
  unjudged = await runCell(cellOf([]), { log: () => {}, tempRoot });
  unjudgedRequests = fake.requests.length;
  judged = await runCell(cellOf(["--judge", "local/tiny", "--judge-questions", "4"]), {
    log: () => {},
    tempRoot,
  });
});

afterAll(async () => {
  await fake.close();
  await rm(home, { recursive: true, force: true });
});

const metricsOf = (result: CellResult) => result.metrics as QualityMetrics;

describe("the M1 answer-accuracy judge", () => {
  it("is off by default: the rows say n/a (no --judge) and the provider is never contacted", () => {
    expect(unjudged.error).toBeUndefined();
    expect(unjudgedRequests).toBe(0);
    const figures = qualityFigures(metricsOf(unjudged));
    expect(figures.m1JudgeAccuracy2k).toEqual({ na: "no --judge" });
    expect(figures.m1JudgeCalls).toEqual({ na: "no --judge" });
    expect(formatTables([unjudged])).toMatch(/M1 answer accuracy, judge \(2k\)\s+n\/a \(no --judge\)/);
  });

  it("counts a correct answer and a paraphrase the grader accepts, and not a wrong one", () => {
    expect(judged.error).toBeUndefined();
    const figures = qualityFigures(metricsOf(judged));
    // Per budget: exact (containment), wrong (graded incorrect), paraphrase (graded correct); the
    // failed call is left out.
    expect(figures.m1JudgeAccuracy2k).toBeCloseTo(2 / 3, 10);
    expect(figures.m1JudgeAccuracy4k).toBeCloseTo(2 / 3, 10);
    expect(figures.m1JudgeAccuracy8k).toEqual({ na: "budget not in preset" });
    const report = metricsOf(judged).answerAccuracy;
    if ("na" in report) throw new Error(report.na);
    const at2k = report.answers.filter((answer) => answer.budget === 2_000);
    expect(at2k.map((answer) => [answer.questionId, answer.correct, answer.gradedBy])).toEqual([
      [exact?.id, true, "containment"],
      [wrong?.id, false, "model"],
      [paraphrased?.id, true, "model"],
      [failing?.id, undefined, undefined],
    ]);
    expect(at2k[3]?.failed).toContain("scripted failure");
    expect(report.byBudget["2000"]).toMatchObject({ judged: 4, graded: 3, correct: 2, failed: 1 });
  });

  it("counts every model call: one per answer, one more per grade containment could not settle", () => {
    // Per budget: 1 (exact) + 2 (wrong) + 2 (paraphrase) + 1 (failed answer) = 6; two budgets.
    expect(fake.requests.length - unjudgedRequests).toBe(12);
    expect(qualityFigures(metricsOf(judged)).m1JudgeCalls).toBe(12);
    const report = metricsOf(judged).answerAccuracy;
    expect(report).toMatchObject({ model: "local/tiny", questionsPerBudget: 4, modelCalls: 12 });
  });

  it("answers from the request the engine assembled: its system prompt, the history, the question last", () => {
    const answerRequests = fake.requests
      .map((request) => (request.body as ChatBody).messages)
      .filter((messages) => textOf(messages[0]?.content ?? "") === QUALITY_SYSTEM_PROMPT);
    expect(answerRequests).toHaveLength(8);
    for (const messages of answerRequests) {
      expect(messages.length).toBeGreaterThan(3);
      expect(picked.map((question) => question.question)).toContain(textOf(messages.at(-1)?.content ?? ""));
    }
  });

  it("fails the cell at once, naming the provider, when the judge's model cannot be resolved", async () => {
    const result = await runCell(cellOf(["--judge", "nowhere/model"]), { log: () => {} });
    expect(result.error).toContain('Unknown model provider "nowhere"');
    expect(result.metrics).toBeUndefined();
  });
});
