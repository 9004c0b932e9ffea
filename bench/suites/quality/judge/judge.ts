/**
 * The answer-accuracy judge's seam (optional, off by default): a model answers each M1 question
 * from exactly the request the engine assembled, and the answer is graded against the workload's
 * expected answer. Everything a model does goes through one completion function, so any model
 * works; `clew-completion.ts` builds one from a Clew config, tests build one over a fake provider.
 * Nothing else in the quality suite depends on a model: without `--judge` none of this runs.
 */
import type { AgentMessage } from "@clew/core";

/** `--judge` as it reaches a cell (`BenchSettings.judge`). */
export interface JudgeSettings {
  /** `provider/model-id`, resolved against the config in `clewHome`. */
  model: string;
  /** Questions judged per budget, spread over the list; undefined = all. */
  questions?: number;
  /** The Clew home whose `clew.json` describes the model (`CLEW_HOME`, else `~/.clew`). */
  clewHome: string;
}

export interface JudgeCompletionRequest {
  systemPrompt: string;
  /** Sent in order; only model roles (user, assistant, toolResult) reach the model. */
  messages: AgentMessage[];
  /** Output cap of the reply. */
  maxTokens: number;
}

/**
 * One model call with no tools. Resolves with the reply's text blocks joined (possibly empty).
 * Rejects with `ModelCallError` when the model answered with an error or stopped without an
 * answer; never retries beyond the provider SDK's own retries, so every call is one model call.
 */
export type JudgeCompletion = (request: JudgeCompletionRequest) => Promise<string>;

/** The request the engine assembled for a question; its pending user turn (the question) is last. */
export interface AnswerRequest {
  systemPrompt: string;
  messages: AgentMessage[];
}

export interface GradeRequest {
  question: string;
  /** The workload's answer; parts of a multi-hop answer are separated by `;`. */
  expected: string;
  answer: string;
}

export interface Grade {
  correct: boolean;
  /** `containment`: the answer holds every part of the expected one (no model call). */
  by: "containment" | "model";
  /** The grader's words, when the model graded. */
  reason?: string;
}

/**
 * Answers and grades. `answer` sends the request as it is (one call). `grade` checks normalized
 * containment first and asks the model only when that fails, so a correct answer costs no grading
 * call. Both reject as the completion function does; a rejected call still counts in `calls`.
 */
export interface AnswerJudge {
  /** `provider/model-id`, for the report. */
  readonly model: string;
  answer(request: AnswerRequest): Promise<string>;
  grade(request: GradeRequest): Promise<Grade>;
  /** Completion calls started so far, failed ones included. */
  readonly calls: number;
}
