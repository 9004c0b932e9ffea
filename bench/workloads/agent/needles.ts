/**
 * Needles: unique codes (`NDL-` + 8 base32 characters) inside fact sentences, and sets of
 * near-identical confusable needles ("the deploy key for staging is X_i") with distractors. This
 * file plans them; the session generator writes them into their carriers.
 */
import type { SeededRandom } from "../random.js";

export const NEEDLE_CARRIERS = ["user-text", "assistant-text", "tool-result-middle", "bash-output"] as const;

export type NeedleCarrier = (typeof NEEDLE_CARRIERS)[number];

/** One sentence to write into a carrier of the turn at `turn`. */
export interface Insertion {
  turn: number;
  carrier: NeedleCarrier;
  sentence: string;
  /** Called with the id of the message the sentence landed in. */
  placed(sourceId: string): void;
}

export interface PlantedNeedle {
  code: string;
  sentence: string;
  /** The fact's words without the code, for recall by meaning. */
  factQuery: string;
  carrier: NeedleCarrier;
  /** Position in the session, 0 (first turn) to 1 (last). */
  depth: number;
  sourceId: string;
}

export interface ConfusableNeedle {
  code: string;
  sentence: string;
  sourceId: string;
}

export interface ConfusableSet {
  subject: string;
  question: string;
  /** In the order they were said; the i-th is the answer to "the i-th value". */
  needles: ConfusableNeedle[];
  /** Similar sentences that are not needles of this set. */
  distractors: string[];
}

const SECRETS = ["access code", "license key", "vault token", "recovery id", "build signature", "pager pin"];
const ADJECTIVES = ["nightly", "legacy", "regional", "internal", "shared", "canary", "offline", "primary"];
const SYSTEMS = [
  "backup vault",
  "payment gateway",
  "metrics cluster",
  "build farm",
  "artifact mirror",
  "feature flag service",
  "log archive",
  "mail relay",
  "search index",
];
const CONFUSABLE_SUBJECTS = [
  { subject: "deploy key for staging", variants: ["deploy key for production", "deploy token for staging"] },
  {
    subject: "door code for the server room",
    variants: ["door code for the storage room", "alarm code for the server room"],
  },
  {
    subject: "signing secret for the billing webhook",
    variants: ["signing secret for the email webhook", "signing key for the billing service"],
  },
];

export function needleCode(random: SeededRandom): string {
  return `NDL-${random.base32(8)}`;
}

/**
 * `count` needles spread evenly over `turns` turns, cycling through the carriers. Returns the
 * needles (their `sourceId` is set once written) and the insertions to write.
 */
export function planNeedles(
  random: SeededRandom,
  options: { count: number; turns: number },
): { needles: PlantedNeedle[]; insertions: Insertion[] } {
  const needles: PlantedNeedle[] = [];
  const insertions: Insertion[] = [];
  const subjects = new Set<string>();
  for (let index = 0; index < options.count; index++) {
    let subject = "";
    do subject = `${random.pick(SECRETS)} for the ${random.pick(ADJECTIVES)} ${random.pick(SYSTEMS)}`;
    while (subjects.has(subject) && subjects.size < SECRETS.length * ADJECTIVES.length * SYSTEMS.length);
    subjects.add(subject);
    const code = needleCode(random);
    const depth = (index + 0.5) / options.count;
    const needle: PlantedNeedle = {
      code,
      sentence: `For the record, the ${subject} is ${code}.`,
      factQuery: `What is the ${subject}?`,
      carrier: NEEDLE_CARRIERS[index % NEEDLE_CARRIERS.length] as NeedleCarrier,
      depth,
      sourceId: "",
    };
    needles.push(needle);
    insertions.push({
      turn: Math.min(options.turns - 1, Math.floor(depth * options.turns)),
      carrier: needle.carrier,
      sentence: needle.sentence,
      placed: (sourceId) => {
        needle.sourceId = sourceId;
      },
    });
  }
  return { needles, insertions };
}

/**
 * One confusable set per size in `sizes` (at most three): the set's needles at increasing depths in
 * user and assistant text, plus `distractors` similar sentences at random depths.
 */
export function planConfusables(
  random: SeededRandom,
  options: { sizes: readonly number[]; distractors: number; turns: number },
): { sets: ConfusableSet[]; insertions: Insertion[] } {
  const sets: ConfusableSet[] = [];
  const insertions: Insertion[] = [];
  options.sizes.slice(0, CONFUSABLE_SUBJECTS.length).forEach((size, setIndex) => {
    const { subject, variants } = CONFUSABLE_SUBJECTS[setIndex] as (typeof CONFUSABLE_SUBJECTS)[number];
    const set: ConfusableSet = { subject, question: `What is the ${subject}?`, needles: [], distractors: [] };
    for (let order = 0; order < size; order++) {
      const code = needleCode(random);
      const needle: ConfusableNeedle = {
        code,
        sentence: `Heads up: the ${subject} is now ${code}.`,
        sourceId: "",
      };
      set.needles.push(needle);
      const depth = (order + 0.5 + random.next() * 0.4 - 0.2) / size;
      insertions.push({
        turn: Math.min(options.turns - 1, Math.max(0, Math.floor(depth * options.turns))),
        carrier: order % 2 === 0 ? "user-text" : "assistant-text",
        sentence: needle.sentence,
        placed: (sourceId) => {
          needle.sourceId = sourceId;
        },
      });
    }
    for (let index = 0; index < options.distractors; index++) {
      const sentence =
        index % 2 === 0
          ? `Heads up: the ${random.pick(variants)} is now ${needleCode(random)}.`
          : `Someone asked whether the ${subject} rotates every month; nobody remembers.`;
      set.distractors.push(sentence);
      insertions.push({
        turn: random.integer(0, options.turns - 1),
        carrier: random.chance(0.5) ? "user-text" : "assistant-text",
        sentence,
        placed: () => {},
      });
    }
    sets.push(set);
  });
  return { sets, insertions };
}
