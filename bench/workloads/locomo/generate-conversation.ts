/**
 * LoCoMo-style conversations: two speakers, dated sessions, hundreds of turns of small talk with
 * personal facts planted in it, some of them later changed or corrected, and questions whose
 * evidence turns are known by id (`D<session>:<turn>`, LoCoMo's `dia_id`). Seeded: the same
 * options always give the same conversation.
 *
 * Speaker A's turns become user messages and speaker B's assistant messages, so a conversation
 * replays through a host as one turn per A/B pair. Every turn's text is unique, so a text (or a
 * stored message) maps back to exactly one turn id.
 */
import { type AgentMessage, emptyUsage, InvalidOptionError } from "@clew/core";
import { SeededRandom } from "../random.js";
import type { ReplayTurn, SourceMessage } from "../replay-turn.js";
import { chatterTurn, factTurn, reactionTurn } from "./chatter.js";
import { FACT_SLOTS, type FactSlot } from "./fact-slots.js";
import { type ConversationQuestion, generateQuestions, type QuestionCategory } from "./questions.js";

export interface ConversationOptions {
  seed: number;
  /** Dated sessions, at least 2. */
  sessions: number;
  /** Turns in all; rounded down to an even number so speakers alternate. */
  turns: number;
  /** Facts planted per speaker, at most the number of fact slots. */
  factsPerSpeaker: number;
  /** Share of facts (whose slot allows it) that a later session changes or corrects. */
  updateShare: number;
  /** Questions wanted per category; fewer come back when the facts do not allow more. */
  questions: Record<QuestionCategory, number>;
}

export interface ConversationTurn {
  /** `D<session>:<turn>`, both 1-based. */
  id: string;
  session: number;
  /** 0 for speaker A (user), 1 for speaker B (assistant). */
  speaker: 0 | 1;
  text: string;
  timestamp: number;
  message: AgentMessage;
}

export interface PlantedFact {
  speaker: 0 | 1;
  slot: FactSlot;
  value: string;
  statedIn: string;
  /** Set when a later turn changed or corrected the fact. */
  update?: { value: string; turnId: string; kind: "changed" | "corrected" };
}

export interface GeneratedConversation {
  seed: number;
  speakers: readonly [string, string];
  /** Session dates (ISO day) in order. */
  sessionDates: string[];
  turns: ConversationTurn[];
  facts: PlantedFact[];
  questions: ConversationQuestion[];
}

const SPEAKER_NAMES = ["Maya", "Jonas", "Priya", "Tomas", "Elif", "Noah", "Aiko", "Mateo", "Freya", "Kwame"];
const FIRST_SESSION = Date.UTC(2023, 2, 5, 10, 0, 0);
const DAY_MS = 86_400_000;
const TURN_SPACING_MS = 90_000;
const MIN_SESSION_TURNS = 8;

/**
 * Generates one conversation. Throws `InvalidOptionError` naming the option when the sessions
 * cannot hold the turns (fewer than 8 per session), or there are fewer than 2 sessions, or more
 * facts are asked than there are slots.
 */
export function generateConversation(options: ConversationOptions): GeneratedConversation {
  validate(options);
  const random = new SeededRandom(options.seed);
  const speakers = random.shuffle(SPEAKER_NAMES).slice(0, 2) as [string, string];
  const lengths = sessionLengths(random, options.sessions, options.turns - (options.turns % 2));
  const starts = sessionStarts(random, options.sessions);
  const facts = planFacts(random.fork(), options);
  const layout = layoutEvents(random.fork(), facts, lengths);
  const turns = writeTurns(random.fork(), { speakers, lengths, starts, layout });
  const planted = facts.map((fact, index) => finishFact(fact, index, layout));
  return {
    seed: options.seed,
    speakers,
    sessionDates: starts.map((start) => new Date(start).toISOString().slice(0, 10)),
    turns,
    facts: planted,
    questions: generateQuestions(random.fork(), {
      speakers,
      facts: planted,
      sessionDateOf: (turnId) => sessionDateOf(turnId, starts),
      wanted: options.questions,
    }),
  };
}

/** The conversation as host turns: each A turn is a prompt, the B turn after it the one step. */
export function conversationReplayTurns(conversation: GeneratedConversation): ReplayTurn[] {
  const turns: ReplayTurn[] = [];
  for (let index = 0; index + 1 < conversation.turns.length; index += 2) {
    const prompt = conversation.turns[index];
    const reply = conversation.turns[index + 1];
    if (prompt === undefined || reply === undefined || prompt.message.role !== "user") continue;
    turns.push({ prompt: prompt.message, steps: [[reply.message]] });
  }
  return turns;
}

/** Every turn as a source message with its `dia_id`. */
export function conversationSources(conversation: GeneratedConversation): SourceMessage[] {
  return conversation.turns.map((turn) => ({ id: turn.id, message: turn.message }));
}

function validate(options: ConversationOptions): void {
  if (!Number.isInteger(options.sessions) || options.sessions < 2)
    throw new InvalidOptionError("sessions", options.sessions, "a whole number ≥ 2");
  if (!Number.isInteger(options.turns) || options.turns < options.sessions * MIN_SESSION_TURNS)
    throw new InvalidOptionError("turns", options.turns, `at least ${MIN_SESSION_TURNS} per session`);
  if (options.factsPerSpeaker < 1 || options.factsPerSpeaker > FACT_SLOTS.length)
    throw new InvalidOptionError("factsPerSpeaker", options.factsPerSpeaker, `1 to ${FACT_SLOTS.length}`);
}

/** Even lengths of at least `MIN_SESSION_TURNS`, the rest spread at random in A/B pairs. */
function sessionLengths(random: SeededRandom, sessions: number, turns: number): number[] {
  const lengths = new Array<number>(sessions).fill(MIN_SESSION_TURNS);
  for (let pairs = (turns - sessions * MIN_SESSION_TURNS) / 2; pairs > 0; pairs--) {
    const session = random.integer(0, sessions - 1);
    lengths[session] = (lengths[session] ?? 0) + 2;
  }
  return lengths;
}

function sessionStarts(random: SeededRandom, sessions: number): number[] {
  const starts: number[] = [FIRST_SESSION];
  for (let index = 1; index < sessions; index++)
    starts.push((starts[index - 1] ?? FIRST_SESSION) + random.integer(2, 18) * DAY_MS);
  return starts;
}

interface FactPlan {
  speaker: 0 | 1;
  slot: FactSlot;
  value: string;
  statedSession: number;
  update?: { value: string; session: number; kind: "changed" | "corrected" };
}

function planFacts(random: SeededRandom, options: ConversationOptions): FactPlan[] {
  const plans: FactPlan[] = [];
  for (const speaker of [0, 1] as const) {
    for (const slot of random.shuffle(FACT_SLOTS).slice(0, options.factsPerSpeaker)) {
      const value = random.pick(slot.values);
      const updated =
        slot.update !== undefined && options.sessions >= 4 && random.chance(options.updateShare);
      const statedSession = random.integer(0, updated ? options.sessions - 3 : options.sessions - 1);
      const plan: FactPlan = { speaker, slot, value, statedSession };
      if (updated && slot.update !== undefined) {
        plan.update = {
          value: random.pick(slot.values.filter((candidate) => candidate !== value)),
          session: random.integer(statedSession + 2, options.sessions - 1),
          kind: slot.update.kind,
        };
      }
      plans.push(plan);
    }
  }
  return plans;
}

/** Where each fact statement and update sits: `session:index` (0-based) → event. */
interface EventLayout {
  facts: readonly FactPlan[];
  events: Map<string, { fact: number; kind: "state" | "update" }>;
  reactions: Set<string>;
  turnIdOf: Map<string, string>;
}

function layoutEvents(random: SeededRandom, facts: readonly FactPlan[], lengths: number[]): EventLayout {
  const layout: EventLayout = { facts, events: new Map(), reactions: new Set(), turnIdOf: new Map() };
  const place = (fact: number, kind: "state" | "update", speaker: 0 | 1, wanted: number) => {
    // A full session passes its event on to the next one (and wraps), so every fact is placed.
    for (let offset = 0; offset < lengths.length; offset++) {
      const session = (wanted + offset) % lengths.length;
      const length = lengths[session] ?? 0;
      const free = [];
      for (let index = speaker; index < length - 1; index += 2) {
        if (!layout.events.has(`${session}:${index}`) && !layout.reactions.has(`${session}:${index}`))
          free.push(index);
      }
      if (free.length === 0) continue;
      const index = random.pick(free);
      layout.events.set(`${session}:${index}`, { fact, kind });
      layout.reactions.add(`${session}:${index + 1}`);
      layout.turnIdOf.set(`${fact}:${kind}`, turnId(session, index));
      return;
    }
    throw new RangeError("generateConversation: no room left for a planted fact");
  };
  facts.forEach((fact, index) => {
    place(index, "state", fact.speaker, fact.statedSession);
    if (fact.update !== undefined) place(index, "update", fact.speaker, fact.update.session);
  });
  return layout;
}

function writeTurns(
  random: SeededRandom,
  input: { speakers: readonly [string, string]; lengths: number[]; starts: number[]; layout: EventLayout },
): ConversationTurn[] {
  const facts = input.layout.facts;
  const seen = new Set<string>();
  const turns: ConversationTurn[] = [];
  input.lengths.forEach((length, session) => {
    for (let index = 0; index < length; index++) {
      const speaker = (index % 2) as 0 | 1;
      const other = input.speakers[speaker === 0 ? 1 : 0];
      const event = input.layout.events.get(`${session}:${index}`);
      const make = (): string => {
        if (event !== undefined) {
          const fact = facts[event.fact] as FactPlan;
          const sentence =
            event.kind === "state"
              ? fact.slot.state(fact.value)
              : (fact.slot.update?.state(fact.update?.value ?? fact.value) ?? "");
          return factTurn(random, sentence);
        }
        if (input.layout.reactions.has(`${session}:${index}`)) return reactionTurn(random, other);
        return chatterTurn(random, other);
      };
      const text = uniqueText(make, seen);
      const timestamp = (input.starts[session] ?? FIRST_SESSION) + index * TURN_SPACING_MS;
      turns.push({
        id: turnId(session, index),
        session: session + 1,
        speaker,
        text,
        timestamp,
        message: speakerMessage(speaker, text, timestamp),
      });
    }
  });
  return turns;
}

/** Draws until the text is new; after many collisions the text is made unique by a count. */
function uniqueText(make: () => string, seen: Set<string>): string {
  for (let attempt = 0; attempt < 40; attempt++) {
    const text = make();
    if (!seen.has(text)) {
      seen.add(text);
      return text;
    }
  }
  const text = `${make()} That makes ${seen.size} things I have told you.`;
  seen.add(text);
  return text;
}

function finishFact(fact: FactPlan, index: number, layout: EventLayout): PlantedFact {
  const planted: PlantedFact = {
    speaker: fact.speaker,
    slot: fact.slot,
    value: fact.value,
    statedIn: layout.turnIdOf.get(`${index}:state`) ?? "",
  };
  if (fact.update !== undefined) {
    planted.update = {
      value: fact.update.value,
      turnId: layout.turnIdOf.get(`${index}:update`) ?? "",
      kind: fact.update.kind,
    };
  }
  return planted;
}

function turnId(session: number, index: number): string {
  return `D${session + 1}:${index + 1}`;
}

function sessionDateOf(id: string, starts: readonly number[]): string {
  const session = Number(/^D(\d+):/.exec(id)?.[1] ?? "1") - 1;
  return new Date(starts[session] ?? FIRST_SESSION).toISOString().slice(0, 10);
}

function speakerMessage(speaker: 0 | 1, text: string, timestamp: number): AgentMessage {
  if (speaker === 0) return { role: "user", content: text, timestamp };
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "anthropic-messages",
    provider: "bench",
    model: "locomo-speaker-b",
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp,
  };
}
