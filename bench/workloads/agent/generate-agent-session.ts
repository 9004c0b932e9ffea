/**
 * A generated coding-agent session with needles planted in it: turns of prompts, tool steps (reads
 * of source files, command output) and answers, the edge-case messages of the round-trip check,
 * unique needles in four carriers at depths 0–100%, and confusable needle sets. Seeded and
 * deterministic; nothing is read from disk.
 */
import { InvalidOptionError } from "@clew/core";
import { SeededRandom } from "../random.js";
import type { ReplayTurn, SourceMessage } from "../replay-turn.js";
import { writeEdgeTurns } from "./edge-messages.js";
import {
  type ConfusableSet,
  type Insertion,
  type PlantedNeedle,
  planConfusables,
  planNeedles,
} from "./needles.js";
import { AgentSessionWriter } from "./session-writer.js";
import {
  codeText,
  finalAnswer,
  insertLine,
  logText,
  shellCommand,
  sourcePath,
  userPrompt,
} from "./tool-output.js";

export interface AgentSessionOptions {
  seed: number;
  /** Ordinary turns (the edge-case turns come on top). */
  turns: number;
  needles: number;
  /** Sizes of the confusable sets, e.g. [2, 4, 8]. */
  confusableSets: readonly number[];
  distractorsPerSet: number;
  /** Size of a tool result that carries a needle in its middle (20 KB in the reference). */
  bigToolResultBytes: number;
  /** Size of the one oversized tool result among the edge cases (over 100 KB in the reference). */
  hugeToolResultBytes: number;
}

export interface AgentSession {
  turns: ReplayTurn[];
  sources: SourceMessage[];
  needles: PlantedNeedle[];
  confusables: ConfusableSet[];
  /** Edge case → the source id of the message carrying it. */
  edgeCases: Record<string, string>;
}

/** Throws `InvalidOptionError` when `turns` is below 4 or `needles` is negative. */
export function generateAgentSession(options: AgentSessionOptions): AgentSession {
  if (!Number.isInteger(options.turns) || options.turns < 4)
    throw new InvalidOptionError("turns", options.turns, "a whole number ≥ 4");
  if (!Number.isInteger(options.needles) || options.needles < 0)
    throw new InvalidOptionError("needles", options.needles, "a whole number ≥ 0");
  const random = new SeededRandom(options.seed);
  const planned = planNeedles(random.fork(), { count: options.needles, turns: options.turns });
  const confusable = planConfusables(random.fork(), {
    sizes: options.confusableSets,
    distractors: options.distractorsPerSet,
    turns: options.turns,
  });
  const insertions = [...planned.insertions, ...confusable.insertions];
  const writer = new AgentSessionWriter();
  const content = random.fork();
  const edgeTurn = Math.max(1, Math.floor(options.turns * 0.05));
  let edgeCases: Record<string, string> = {};
  for (let turn = 0; turn < options.turns; turn++) {
    if (turn === edgeTurn) edgeCases = writeEdgeTurns(writer, content, options);
    writeTurn(writer, content, {
      turn,
      insertions: insertions.filter((insertion) => insertion.turn === turn),
      bigToolResultBytes: options.bigToolResultBytes,
    });
  }
  return {
    turns: writer.turns,
    sources: writer.sources,
    needles: planned.needles,
    confusables: confusable.sets,
    edgeCases,
  };
}

function writeTurn(
  writer: AgentSessionWriter,
  random: SeededRandom,
  input: { turn: number; insertions: Insertion[]; bigToolResultBytes: number },
): void {
  const of = (carrier: Insertion["carrier"]) =>
    input.insertions.filter((insertion) => insertion.carrier === carrier);
  const userSentences = of("user-text");
  const prompt = [userPrompt(random, input.turn + 1), ...userSentences.map((item) => item.sentence)].join(
    " ",
  );
  const promptId = writer.startTurn(prompt);
  for (const insertion of userSentences) insertion.placed(promptId);

  const path = sourcePath(random);
  writer.toolStep("read", { path }, [{ type: "text", text: codeText(random, random.integer(400, 2_500)) }]);
  for (const insertion of of("tool-result-middle")) {
    const text = insertLine(logText(random, input.bigToolResultBytes), insertion.sentence, 0.5);
    insertion.placed(writer.toolStep("read", { path: "logs/worker.log" }, [{ type: "text", text }]));
  }
  for (const insertion of of("bash-output")) {
    const text = insertLine(logText(random, random.integer(600, 1_800)), insertion.sentence, random.next());
    insertion.placed(writer.toolStep("bash", { command: shellCommand(random) }, [{ type: "text", text }]));
  }
  if (random.chance(0.5)) {
    writer.toolStep("bash", { command: shellCommand(random) }, [
      { type: "text", text: logText(random, random.integer(200, 1_200)) },
    ]);
  }
  const assistantSentences = of("assistant-text");
  const answerId = writer.answer(
    [finalAnswer(random, input.turn + 1), ...assistantSentences.map((item) => item.sentence)].join(" "),
  );
  for (const insertion of assistantSentences) insertion.placed(answerId);
}
