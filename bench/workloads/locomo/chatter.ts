/**
 * Small talk between planted facts: turns built from sentence templates and word lists, so a
 * conversation of hundreds of turns reads varied and no turn repeats another.
 */
import type { SeededRandom } from "../random.js";

const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "the weekend", "Sunday morning"];
const ACTIVITIES = [
  "cleaning out the garage",
  "repainting the hallway",
  "watching old films",
  "reorganising my bookshelves",
  "baking bread that did not rise",
  "walking along the river",
  "fixing a wobbly kitchen chair",
  "sorting photos from last summer",
  "trying a new yoga class",
  "helping a neighbour move boxes",
  "playing board games with friends",
  "catching up on sleep",
];
const THINGS = [
  "the new cafe near the station",
  "that documentary about octopuses",
  "the night market downtown",
  "the podcast about forgotten inventors",
  "the pottery workshop on Elm Street",
  "the ramen place that opened last month",
  "the jazz bar by the harbour",
  "the free museum evenings",
  "the cycling path along the canal",
  "the Danish crime series everyone mentions",
];
const OPINIONS = [
  "I thought it was better than the reviews said.",
  "Honestly it was a bit overrated.",
  "It surprised me in a good way.",
  "I would go again, but not on a busy day.",
  "It was cosy and quiet, exactly what I needed.",
  "The queue was long, but it was worth it.",
];
const MOODS = ["hectic", "oddly calm", "exhausting", "slow", "full of meetings", "surprisingly fun"];
const DETAILS = [
  "everyone seems to be on holiday at once",
  "we have a big deadline coming up",
  "my manager keeps changing the plan",
  "the office coffee machine broke again",
  "I finally cleared my inbox",
  "a new colleague joined the team",
];
const WEATHER = [
  "It has been raining non-stop here",
  "We had the first really warm day today",
  "The wind almost took my umbrella this morning",
  "It snowed a little overnight",
  "The fog was so thick I could not see the street",
];
const QUESTIONS = [
  "How was your week?",
  "What have you been up to lately?",
  "Did you do anything fun recently?",
  "How are things at home?",
  "Any plans for the coming days?",
  "Have you been sleeping better?",
];
const REACTIONS = [
  "That is wonderful news!",
  "Wow, I did not see that coming.",
  "That sounds like a big step.",
  "I am so happy for you.",
  "Oh, that is a lot to take in.",
  "That is brilliant, congratulations.",
];
const FOLLOW_UPS = [
  "Tell me more about it next time.",
  "You have to send me pictures.",
  "How did the others take it?",
  "I want to hear every detail.",
  "Let me know how it goes.",
  "We should celebrate soon.",
];

type SentenceMaker = (random: SeededRandom, other: string) => string;

const SENTENCES: readonly SentenceMaker[] = [
  (random) => `I spent most of ${random.pick(DAYS)} ${random.pick(ACTIVITIES)}.`,
  (random) => `Have you tried ${random.pick(THINGS)}? ${random.pick(OPINIONS)}`,
  (random) => `Work has been ${random.pick(MOODS)} lately, because ${random.pick(DETAILS)}.`,
  (random) => `${random.pick(WEATHER)}, so I stayed in and ended up ${random.pick(ACTIVITIES)}.`,
  (random, other) => `${other}, ${random.pick(QUESTIONS).toLowerCase()}`,
  (random) => `A friend recommended ${random.pick(THINGS)} to me. ${random.pick(OPINIONS)}`,
  (random) => `On ${random.pick(DAYS)} I was ${random.pick(ACTIVITIES)} and lost track of time.`,
];

/** Two or three small-talk sentences addressed to `other`. */
export function chatterTurn(random: SeededRandom, other: string): string {
  const makers = random.shuffle(SENTENCES).slice(0, random.integer(2, 3));
  return makers.map((make) => make(random, other)).join(" ");
}

/** A reply to news: a reaction and a follow-up question or wish. */
export function reactionTurn(random: SeededRandom, other: string): string {
  return `${random.pick(REACTIONS)} ${other}, ${random.pick(FOLLOW_UPS).toLowerCase()} ${chatterTurn(random, other)}`;
}

const OPENERS = [
  "Guess what!",
  "Oh, before I forget.",
  "Life update from my side.",
  "You will laugh at this.",
  "Quick news.",
  "So much has happened since we last talked.",
  "I have to tell you something.",
];
const CLOSERS = [
  "It still feels a bit unreal.",
  "My friends think I am a little crazy.",
  "I will tell you more about it soon.",
  "I am excited and nervous at the same time.",
  "It was a spontaneous decision.",
  "I have been thinking about it for months.",
];

/**
 * A turn carrying `fact`: an opener, the fact and a closer, with the fact first in about a third of
 * turns. Never only the fact, so the whole turn never equals a first-sentence summary of it.
 */
export function factTurn(random: SeededRandom, fact: string): string {
  const opener = random.pick(OPENERS);
  const closer = random.pick(CLOSERS);
  return random.chance(0.35) ? `${fact} ${closer}` : `${opener} ${fact} ${closer}`;
}
