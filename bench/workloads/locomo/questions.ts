/**
 * Questions about a generated conversation, in LoCoMo's four answerable categories, each with the
 * ids of the turns that hold its evidence. Answers are kept for an optional model-judged check;
 * the suite itself scores evidence ids only.
 */
import type { SeededRandom } from "../random.js";
import type { PlantedFact } from "./generate-conversation.js";

export const QUESTION_CATEGORIES = ["single-hop", "multi-hop", "temporal", "open-domain"] as const;

export type QuestionCategory = (typeof QUESTION_CATEGORIES)[number];

export interface ConversationQuestion {
  id: string;
  category: QuestionCategory;
  question: string;
  answer: string;
  /** Turn ids (`D<session>:<turn>`) a reader needs; never empty. */
  evidence: string[];
}

export interface QuestionInput {
  speakers: readonly [string, string];
  facts: readonly PlantedFact[];
  sessionDateOf(turnId: string): string;
  wanted: Record<QuestionCategory, number>;
}

type Draft = Omit<ConversationQuestion, "id">;

/** Up to `wanted` questions per category, drawn at random from every question the facts allow. */
export function generateQuestions(random: SeededRandom, input: QuestionInput): ConversationQuestion[] {
  const drafts: Draft[] = QUESTION_CATEGORIES.flatMap((category) =>
    random.shuffle(candidates(category, input)).slice(0, input.wanted[category]),
  );
  return drafts.map((draft, index) => ({ id: `Q${index + 1}`, ...draft }));
}

function candidates(category: QuestionCategory, input: QuestionInput): Draft[] {
  switch (category) {
    case "single-hop":
      return input.facts.map((fact) => ({
        category,
        question: fact.slot.question(nameOf(fact, input)),
        answer: currentValue(fact),
        evidence: [currentTurn(fact)],
      }));
    case "multi-hop":
      return pairs(input.facts).map(([first, second]) => ({
        category,
        question: `${withoutMark(first.slot.question(nameOf(first, input)))}, and ${lowerFirst(second.slot.question(nameOf(second, input)))}`,
        answer: `${currentValue(first)}; ${currentValue(second)}`,
        evidence: [currentTurn(first), currentTurn(second)],
      }));
    case "temporal":
      return input.facts.flatMap((fact): Draft[] => temporalQuestion(fact, input));
    case "open-domain":
      return input.facts.flatMap((fact): Draft[] =>
        fact.slot.inference === undefined
          ? []
          : [
              {
                category,
                question: fact.slot.inference(nameOf(fact, input)),
                answer: currentValue(fact),
                evidence: [currentTurn(fact)],
              },
            ],
      );
  }
}

/** "What was it before the change?" for changed facts, "when?" for the others that allow it. */
function temporalQuestion(fact: PlantedFact, input: QuestionInput): Draft[] {
  const name = nameOf(fact, input);
  if (fact.update !== undefined) {
    return [
      {
        category: "temporal",
        question: `Before ${fact.update.value}, what was ${name}'s ${fact.slot.noun}?`,
        answer: fact.value,
        evidence: [fact.statedIn, fact.update.turnId],
      },
    ];
  }
  if (fact.slot.when === undefined) return [];
  return [
    {
      category: "temporal",
      question: fact.slot.when(name),
      answer: input.sessionDateOf(fact.statedIn),
      evidence: [fact.statedIn],
    },
  ];
}

/** Pairs of facts from different speakers, so a multi-hop question always needs both turns. */
function pairs(facts: readonly PlantedFact[]): [PlantedFact, PlantedFact][] {
  const result: [PlantedFact, PlantedFact][] = [];
  for (const first of facts)
    for (const second of facts) if (first.speaker === 0 && second.speaker === 1) result.push([first, second]);
  return result;
}

function nameOf(fact: PlantedFact, input: QuestionInput): string {
  return input.speakers[fact.speaker];
}

function currentValue(fact: PlantedFact): string {
  return fact.update?.value ?? fact.value;
}

function currentTurn(fact: PlantedFact): string {
  return fact.update?.turnId ?? fact.statedIn;
}

function withoutMark(question: string): string {
  return question.replace(/\?$/, "");
}

function lowerFirst(text: string): string {
  return text.length === 0 ? text : `${text[0]?.toLowerCase()}${text.slice(1)}`;
}
