/**
 * `createAnswerJudge`: the `AnswerJudge` over any completion function. Answering sends the
 * engine's request unchanged; grading tries normalized containment first and falls back to a
 * grading call only when the answer does not hold the expected text (paraphrases, other date
 * formats), so the common case costs one call per question.
 */
import type { UserMessage } from "@clew/core";
import { containsExpectedAnswer } from "./answer-match.js";
import type { AnswerJudge, AnswerRequest, Grade, GradeRequest, JudgeCompletion } from "./judge.js";

export const GRADER_SYSTEM_PROMPT = [
  "You grade answers to questions about a conversation against the expected answer.",
  "An answer is CORRECT when it states the expected answer (other wording, formats or extra detail are fine),",
  "and INCORRECT when it is missing, different, hedged between options or says it does not know.",
  "Reply with CORRECT or INCORRECT on the first line, then one short sentence saying why.",
].join(" ");

export interface AnswerJudgeOptions {
  /** Output cap of an answer; default 400 tokens. */
  answerMaxTokens?: number;
  /** Output cap of a grading reply; default 200 tokens. */
  gradeMaxTokens?: number;
  /** Stamps the grading prompt; default `Date.now`. */
  now?: () => number;
}

/** Never throws itself; the returned judge rejects only when `complete` does. */
export function createAnswerJudge(
  model: string,
  complete: JudgeCompletion,
  options: AnswerJudgeOptions = {},
): AnswerJudge {
  let calls = 0;
  const call: JudgeCompletion = (request) => {
    calls += 1;
    return complete(request);
  };
  return {
    model,
    get calls() {
      return calls;
    },
    async answer(request: AnswerRequest): Promise<string> {
      const maxTokens = options.answerMaxTokens ?? 400;
      const text = await call({ systemPrompt: request.systemPrompt, messages: request.messages, maxTokens });
      return text.trim();
    },
    async grade(request: GradeRequest): Promise<Grade> {
      if (containsExpectedAnswer(request.answer, request.expected))
        return { correct: true, by: "containment" };
      const prompt: UserMessage = {
        role: "user",
        content: gradingPrompt(request),
        timestamp: (options.now ?? Date.now)(),
      };
      const reply = await call({
        systemPrompt: GRADER_SYSTEM_PROMPT,
        messages: [prompt],
        maxTokens: options.gradeMaxTokens ?? 200,
      });
      return readVerdict(reply);
    },
  };
}

function gradingPrompt(request: GradeRequest): string {
  return [
    `Question: ${request.question}`,
    `Expected answer: ${request.expected}`,
    `Answer given: ${request.answer.length > 0 ? request.answer : "(no answer)"}`,
  ].join("\n");
}

/**
 * The grader's verdict: the first CORRECT or INCORRECT it wrote. A reply with neither counts as
 * incorrect (containment already failed, so nothing shows the answer is right), reason included.
 */
export function readVerdict(reply: string): Grade {
  const verdict = /\b(INCORRECT|CORRECT)\b/i.exec(reply)?.[1]?.toUpperCase();
  const reason = reply.trim().slice(0, 300);
  if (verdict === undefined)
    return { correct: false, by: "model", reason: `no verdict in the grader's reply: ${reason}` };
  return { correct: verdict === "CORRECT", by: "model", reason };
}
