/**
 * M13, crash/replay idempotency. A clean run replays the whole agent session. The crash run: a
 * child process replays half of it and is killed with SIGKILL; the rest of the session is then
 * appended to the transcript (the lock of the dead process is taken over), so the JSONL is full;
 * a new host opens the session and the engine bootstraps from it. The engine's store (its recall
 * store, or the transcript for engines without one) must then hold the same messages, in the same
 * order, as the clean run's, with no duplicates; an engine that reports a store (`engine-stats.ts`)
 * must also count as many messages as after the clean run. The bootstrap is also timed (M10, bulk
 * ingest) for engines that keep a store of their own: for the others it has nothing to fill.
 */
import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { type AgentMessage, JsonlTranscriptStore } from "@clew/core";
import { messageHash } from "../../../metrics/message-hash.js";
import { generateAgentSession } from "../../../workloads/agent/generate-agent-session.js";
import { messagesOfTurns, type ReplayTurn } from "../../../workloads/replay-turn.js";
import type { EngineSession } from "../harness/engine-session.js";
import { Provenance } from "../harness/provenance.js";
import { type Figure, isNotApplicable, notApplicable } from "../metrics/figure.js";
import type { QualityPreset } from "../presets.js";
import { openSession, type QualityRun, storedMessages, UNBOUNDED_BUDGET } from "./quality-run.js";

export const CRASH_READY_LINE = "CRASH_READY";
export const CRASH_SESSION = "crash";
const CHILD_ENTRY = join(import.meta.dirname, "crash-child.ts");
const REPO_ROOT = join(import.meta.dirname, "../../../..");
const CHILD_TIMEOUT_MS = 120_000;

export interface CrashReport {
  source: "recall store" | "transcript";
  cleanMessages: number;
  restartedMessages: number;
  /** Positions where the restarted store differs from the clean one (missing ones included). */
  mismatched: number;
  /** Messages stored more than once after the restart. */
  duplicates: number;
  /** Messages the engine's stats count after each run; n/a for engines without a store. */
  storeCounts: { clean: number; restarted: number } | Figure;
  /** The engine's bootstrap over the full transcript. */
  bootstrap: { messagesPerSecond: Figure; megabytesPerSecond: Figure };
}

/** The session both runs use: unbounded, synced per turn as a real gateway does. */
export function crashSessionInput(provenance: Provenance) {
  return {
    name: CRASH_SESSION,
    budget: UNBOUNDED_BUDGET,
    provenance,
    summaryTokens: 1_024,
    fsync: "turn" as const,
  };
}

export async function runCrashScenario(run: QualityRun, preset: QualityPreset): Promise<CrashReport> {
  const workload = generateAgentSession(preset.agent);
  const provenance = new Provenance(workload.sources);
  const half = Math.floor(workload.turns.length / 2);
  const clean = await cleanRun(run, workload.turns, provenance);

  const crashRoot = join(run.root, "crashed");
  run.log(`crash replay: child replays ${half} of ${workload.turns.length} turns, then SIGKILL`);
  await replayInChildAndKill({ engine: run.engine, root: crashRoot, preset: preset.id, turns: half });
  const rest = messagesOfTurns(workload.turns.slice(half));
  const transcriptBytes = await appendAsAnotherWriter(crashRoot, rest);

  const crashRun = { ...run, root: crashRoot };
  const { session } = await openSession(crashRun, crashSessionInput(provenance));
  try {
    const started = performance.now();
    await session.bootstrap();
    const seconds = (performance.now() - started) / 1000;
    const restarted = await storedMessages(session);
    const comparison = compareSequences(clean.hashes, restarted.messages.map(messageHash));
    const storeCounts = countsOf(clean.storeCount, await storeCount(session));
    return {
      source: restarted.source,
      cleanMessages: clean.hashes.length,
      restartedMessages: restarted.messages.length,
      // A store the recall tools list was compared message by message; one they cannot list
      // is compared by its count, beside the transcript.
      mismatched:
        comparison.mismatched + (restarted.source === "transcript" ? countMismatch(storeCounts) : 0),
      duplicates: comparison.duplicates,
      storeCounts,
      bootstrap: session.keepsStore
        ? bootstrapRates(restarted.messages.length, transcriptBytes, seconds)
        : noBootstrap(),
    };
  } finally {
    await session.close();
  }
}

async function cleanRun(
  run: QualityRun,
  turns: readonly ReplayTurn[],
  provenance: Provenance,
): Promise<{ hashes: string[]; storeCount: Figure }> {
  const cleanRoot = { ...run, root: join(run.root, "clean") };
  const { session } = await openSession(cleanRoot, crashSessionInput(provenance));
  try {
    const outcome = await session.replay(turns, () => {});
    if (outcome.failures.length > 0) throw new Error(`clean run failed: ${outcome.failures.join("; ")}`);
    const hashes = (await storedMessages(session)).messages.map(messageHash);
    return { hashes, storeCount: await storeCount(session) };
  } finally {
    await session.close();
  }
}

/** Starts the child, waits for its ready line, kills it with SIGKILL and waits for it to exit. */
function replayInChildAndKill(input: { engine: string; root: string; preset: string; turns: number }) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        "tsx",
        CHILD_ENTRY,
        ...["--engine", input.engine, "--root", input.root, "--preset", input.preset],
        ...["--turns", String(input.turns)],
      ],
      { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    let errors = "";
    let killed = false;
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (!killed && output.includes(CRASH_READY_LINE)) {
        killed = true;
        child.kill("SIGKILL");
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      errors += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (killed && signal === "SIGKILL") resolve();
      else
        reject(
          new Error(
            `crash child ended with ${signal ?? `code ${code}`} before it was killed: ${errors.trim()}`,
          ),
        );
    });
  });
}

/** Appends the rest of the session as another process would; returns the transcript's size after. */
async function appendAsAnotherWriter(root: string, messages: readonly AgentMessage[]): Promise<number> {
  let counter = 0;
  const store = new JsonlTranscriptStore({
    home: join(root, CRASH_SESSION, "home"),
    randomId: () => `r${(++counter).toString(16).padStart(7, "0")}`,
  });
  const transcript = await store.open("main", CRASH_SESSION);
  try {
    await transcript.append(messages.map((message) => ({ type: "message" as const, message })));
    await transcript.flush();
  } finally {
    await transcript.close();
  }
  return (await stat(store.transcriptPath("main", CRASH_SESSION))).size;
}

/** Position-by-position comparison of two hash sequences, and copies beyond the first. */
export function compareSequences(
  clean: readonly string[],
  restarted: readonly string[],
): { mismatched: number; duplicates: number } {
  let mismatched = Math.abs(clean.length - restarted.length);
  for (let index = 0; index < Math.min(clean.length, restarted.length); index++)
    if (clean[index] !== restarted[index]) mismatched += 1;
  return { mismatched, duplicates: restarted.length - new Set(restarted).size };
}

/** Messages in the engine's store by its own stats, or why there is no such count. */
async function storeCount(session: EngineSession): Promise<Figure> {
  const stats = await session.engineStats();
  return isNotApplicable(stats) ? stats : stats.messagesStored;
}

function countsOf(clean: Figure, restarted: Figure): CrashReport["storeCounts"] {
  if (typeof clean !== "number") return clean;
  if (typeof restarted !== "number") return restarted;
  return { clean, restarted };
}

/** How far the stats' counts of the two runs differ (0 without counts). */
function countMismatch(counts: CrashReport["storeCounts"]): number {
  if (typeof counts === "number" || isNotApplicable(counts)) return 0;
  return Math.abs(counts.clean - counts.restarted);
}

function bootstrapRates(messages: number, bytes: number, seconds: number): CrashReport["bootstrap"] {
  return { messagesPerSecond: messages / seconds, megabytesPerSecond: bytes / 1_000_000 / seconds };
}

function noBootstrap(): CrashReport["bootstrap"] {
  const reason = notApplicable("no store of its own to bootstrap");
  return { messagesPerSecond: reason, megabytesPerSecond: reason };
}
