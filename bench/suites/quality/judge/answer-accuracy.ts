/**
 * M1 answer accuracy (model-judged, optional): per budget, a judge answers the picked questions
 * from the requests the engine assembled, and each answer is graded against the workload's
 * answer. A question whose ask produced no request counts as wrong (the model would have had
 * nothing to answer from); one whose judge call failed is left out of the accuracy and reported.
 */
import { describeError } from "@clew/core";
import type { ConversationQuestion } from "../../../workloads/locomo/questions.js";
import { type Figure, notApplicable, share } from "../metrics/figure.js";
import type { AnswerJudge, AnswerRequest } from "./judge.js";

/** Kept in the JSON per answer; longer answers are cut. */
const ANSWER_CHARS = 500;

export interface JudgedAnswer {
  questionId: string;
  category: string;
  budget: number;
  expected: string;
  answer?: string;
  correct?: boolean;
  gradedBy?: "containment" | "model" | "no request";
  reason?: string;
  /** Why a judge call failed; such a question is not graded. */
  failed?: string;
}

export interface BudgetAccuracy {
  judged: number;
  graded: number;
  correct: number;
  /** Correct over graded; n/a when nothing could be graded. */
  accuracy: Figure;
  failed: number;
  byCategory: Record<string, { graded: number; correct: number }>;
}

export interface AnswerAccuracyReport {
  model: string;
  /** Questions judged at each budget. */
  questionsPerBudget: number;
  /** Completion calls made (answers and grades), failed ones included. */
  modelCalls: number;
  byBudget: Record<string, BudgetAccuracy>;
  answers: JudgedAnswer[];
}

export interface JudgeQuestionInput {
  budget: number;
  question: ConversationQuestion;
  /** Every question asked at this budget, in order (the judged ones are picked from it). */
  among: readonly ConversationQuestion[];
  /** What the engine assembled for the question, or why no request was made. */
  request: AnswerRequest | { failed: string };
}

/** Collects judged answers across budgets; one per quality cell. */
export class AnswerAccuracyTally {
  private readonly answers: JudgedAnswer[] = [];
  private questionsPerBudget = 0;

  /** `questions`: how many to judge per budget (undefined = all). */
  constructor(
    private readonly judge: AnswerJudge,
    private readonly questions: number | undefined,
  ) {}

  /**
   * Judges `input.question` when it is among the picked ones. Never rejects for a failing judge
   * call: the failure is recorded on the answer.
   */
  async judgeQuestion(input: JudgeQuestionInput): Promise<void> {
    const picked = pickQuestions(input.among, this.questions);
    this.questionsPerBudget = picked.size;
    if (!picked.has(input.question.id)) return;
    const judged: JudgedAnswer = {
      questionId: input.question.id,
      category: input.question.category,
      budget: input.budget,
      expected: input.question.answer,
    };
    this.answers.push(judged);
    if ("failed" in input.request) {
      Object.assign(judged, { correct: false, gradedBy: "no request", reason: input.request.failed });
      return;
    }
    try {
      const answer = await this.judge.answer(input.request);
      judged.answer = answer.slice(0, ANSWER_CHARS);
      const grade = await this.judge.grade({
        question: input.question.question,
        expected: input.question.answer,
        answer,
      });
      Object.assign(judged, { correct: grade.correct, gradedBy: grade.by });
      if (grade.reason !== undefined) judged.reason = grade.reason;
    } catch (error) {
      judged.failed = describeError(error);
    }
  }

  report(): AnswerAccuracyReport {
    const byBudget: Record<string, BudgetAccuracy> = {};
    for (const budget of [...new Set(this.answers.map((answer) => answer.budget))].sort((a, b) => a - b))
      byBudget[String(budget)] = rateAnswers(this.answers.filter((answer) => answer.budget === budget));
    return {
      model: this.judge.model,
      questionsPerBudget: this.questionsPerBudget,
      modelCalls: this.judge.calls,
      byBudget,
      answers: [...this.answers],
    };
  }
}

/**
 * Ids of `count` questions spread evenly over `questions` (the list is grouped by category, so
 * the first N would all be of one kind); all of them when `count` is undefined or not smaller.
 */
export function pickQuestions(
  questions: readonly ConversationQuestion[],
  count: number | undefined,
): Set<string> {
  if (count === undefined || count >= questions.length)
    return new Set(questions.map((question) => question.id));
  const ids = new Set<string>();
  for (let index = 0; index < count; index += 1) {
    const question = questions[Math.floor((index * questions.length) / count)];
    if (question !== undefined) ids.add(question.id);
  }
  return ids;
}

function rateAnswers(answers: readonly JudgedAnswer[]): BudgetAccuracy {
  const graded = answers.filter((answer) => answer.correct !== undefined);
  const correct = graded.filter((answer) => answer.correct === true);
  const failures = answers.filter((answer) => answer.failed !== undefined);
  const byCategory: BudgetAccuracy["byCategory"] = {};
  for (const answer of graded) {
    const tally = byCategory[answer.category] ?? { graded: 0, correct: 0 };
    byCategory[answer.category] = tally;
    tally.graded += 1;
    if (answer.correct === true) tally.correct += 1;
  }
  return {
    judged: answers.length,
    graded: graded.length,
    correct: correct.length,
    accuracy:
      graded.length > 0
        ? share(correct.length, graded.length)
        : notApplicable(`every judge call failed: ${failures[0]?.failed ?? "no answers"}`),
    failed: failures.length,
    byCategory,
  };
}
