import { InvalidOptionError } from "@clew/core";
import { describe, expect, it } from "vitest";
import { parseBenchArgs } from "../../cli-options.js";
import { parseGateThresholds } from "../../gate/gate-thresholds.js";
import { pickQuestions } from "../../suites/quality/judge/answer-accuracy.js";
import {
  createAnswerJudge,
  GRADER_SYSTEM_PROMPT,
  readVerdict,
} from "../../suites/quality/judge/answer-judge.js";
import { containsExpectedAnswer } from "../../suites/quality/judge/answer-match.js";
import type { JudgeCompletionRequest } from "../../suites/quality/judge/judge.js";
import { QUALITY_ROWS, UNGATED_ROW_KEYS } from "../../suites/quality/quality-rows.js";
import type { ConversationQuestion } from "../../workloads/locomo/questions.js";

describe("containment grading", () => {
  it("finds the expected answer as whole words, ignoring case, accents and punctuation", () => {
    expect(containsExpectedAnswer("She moved to LISBON.", "Lisbon")).toBe(true);
    expect(containsExpectedAnswer("Sao Paulo, I think", "São Paulo")).toBe(true);
    expect(containsExpectedAnswer("Lisbonne", "Lisbon")).toBe(false);
    expect(containsExpectedAnswer("a red bicycle", "red-bicycle")).toBe(true);
  });

  it("needs every part of a multi-hop answer", () => {
    expect(containsExpectedAnswer("Jazz, and she drives a Volvo", "jazz; Volvo")).toBe(true);
    expect(containsExpectedAnswer("Jazz", "jazz; Volvo")).toBe(false);
  });

  it("never matches an expected answer without words", () => {
    expect(containsExpectedAnswer("anything", " ; ")).toBe(false);
  });
});

describe("the grader's verdict", () => {
  it("reads INCORRECT before CORRECT and keeps the reason", () => {
    expect(readVerdict("INCORRECT\nThe answer names another city.")).toEqual({
      correct: false,
      by: "model",
      reason: "INCORRECT\nThe answer names another city.",
    });
    expect(readVerdict("Correct. Same date, other format.").correct).toBe(true);
  });

  it("counts a reply without a verdict as incorrect, saying so", () => {
    const grade = readVerdict("I am not sure.");
    expect(grade.correct).toBe(false);
    expect(grade.reason).toContain("no verdict");
  });
});

describe("createAnswerJudge", () => {
  const recordingCompletion = (reply: string) => {
    const requests: JudgeCompletionRequest[] = [];
    const complete = async (request: JudgeCompletionRequest) => {
      requests.push(request);
      return reply;
    };
    return { requests, complete };
  };

  it("grades by containment without a model call, and asks the grader only when containment fails", async () => {
    const { requests, complete } = recordingCompletion("CORRECT\nsame thing");
    const judge = createAnswerJudge("local/tiny", complete, { now: () => 1 });
    expect(await judge.grade({ question: "Where?", expected: "Lisbon", answer: "In Lisbon." })).toEqual({
      correct: true,
      by: "containment",
    });
    expect(judge.calls).toBe(0);
    const graded = await judge.grade({
      question: "Where?",
      expected: "Lisbon",
      answer: "Portugal's capital",
    });
    expect(graded).toMatchObject({ correct: true, by: "model" });
    expect(judge.calls).toBe(1);
    expect(requests[0]?.systemPrompt).toBe(GRADER_SYSTEM_PROMPT);
    expect(requests[0]?.messages).toEqual([
      {
        role: "user",
        content: "Question: Where?\nExpected answer: Lisbon\nAnswer given: Portugal's capital",
        timestamp: 1,
      },
    ]);
  });

  it("answers from the request as given and counts a failed call", async () => {
    const { requests, complete } = recordingCompletion("  Lisbon  ");
    const judge = createAnswerJudge("local/tiny", complete);
    const messages = [{ role: "user" as const, content: "Where?", timestamp: 0 }];
    expect(await judge.answer({ systemPrompt: "system", messages })).toBe("Lisbon");
    expect(requests[0]).toMatchObject({ systemPrompt: "system", messages });
    const failing = createAnswerJudge("local/tiny", async () => {
      throw new Error("down");
    });
    await expect(failing.answer({ systemPrompt: "system", messages })).rejects.toThrow("down");
    expect(failing.calls).toBe(1);
  });
});

describe("picking judged questions", () => {
  const questions = Array.from(
    { length: 8 },
    (_, index): ConversationQuestion => ({
      id: `Q${index + 1}`,
      category: "single-hop",
      question: "?",
      answer: "a",
      evidence: ["D1:1"],
    }),
  );

  it("spreads N questions over the list and takes all without a count", () => {
    expect([...pickQuestions(questions, 4)]).toEqual(["Q1", "Q3", "Q5", "Q7"]);
    expect(pickQuestions(questions, undefined).size).toBe(8);
    expect(pickQuestions(questions, 20).size).toBe(8);
  });
});

describe("--judge options", () => {
  it("carries the model, the question count and CLEW_HOME to the cells", () => {
    const options = parseBenchArgs(["--judge", "local/tiny", "--judge-questions", "3"], {
      CLEW_HOME: "/tmp/judge-home",
    });
    expect(options.settings.judge).toEqual({
      model: "local/tiny",
      questions: 3,
      clewHome: "/tmp/judge-home",
    });
    expect(parseBenchArgs([]).settings.judge).toBeUndefined();
  });

  it("rejects a model that is not provider/model-id, and a question count without a judge or below 1", () => {
    expect(() => parseBenchArgs(["--judge", "tiny"])).toThrow(InvalidOptionError);
    expect(() => parseBenchArgs(["--judge-questions", "3"])).toThrow(/--judge-questions.*--judge too/);
    expect(() => parseBenchArgs(["--judge", "local/tiny", "--judge-questions", "0"])).toThrow(
      /--judge-questions/,
    );
  });

  it("keeps the judged rows out of the gate", () => {
    const judged = QUALITY_ROWS.filter((row) => row.key.startsWith("m1Judge")).map((row) => row.key);
    expect(judged).toEqual([
      "m1JudgeAccuracy2k",
      "m1JudgeAccuracy4k",
      "m1JudgeAccuracy8k",
      "m1JudgeAccuracy16k",
      "m1JudgeCalls",
    ]);
    const thresholds = JSON.stringify({
      preset: "gate",
      engines: { legacy: { m1JudgeAccuracy8k: { min: 0.5 } } },
    });
    const keys = { knownKeys: new Set(QUALITY_ROWS.map((row) => row.key)), ungatedKeys: UNGATED_ROW_KEYS };
    expect(() => parseGateThresholds(thresholds, "gate-thresholds.json", keys)).toThrow(/never gated/);
  });
});
