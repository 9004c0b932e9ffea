/**
 * Child of the engine suite's cold start (M9, `cold-start.ts`): reads `--request <file>`, opens the
 * session's transcript and takes its messages (the host's work, untimed), then, timed from here on:
 * opens the bench engine over the existing state folder, calls `bootstrap` with the transcript when
 * the engine has it (as a host does on first sight of an existing session), and runs one
 * `assemble` with the prompt and the budget. Prints its figures as one marked line on stdout.
 * Exit code 2 for unusable arguments, 1 when a step fails (the reason on stderr).
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import {
  type AgentMessage,
  type ContextEngine,
  describeError,
  JsonlTranscriptStore,
  TranscriptHostSession,
} from "@clew/core";
import { loadBenchTokenCounter } from "../../token-counters.js";
import { createStubSummarizer } from "../pipeline/stub-summarizer.js";
import { COLD_START_MARKER, type ColdStartMetrics, type ColdStartRequest } from "./cold-start.js";
import { createEngineUnderTest } from "./engine-under-test.js";

// Static imports are evaluated before this module's body: everything up to here is start-up.
const startupMs = performance.now();

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { request: { type: "string" } }, strict: true });
  if (values.request === undefined) {
    process.stderr.write("cold-start-child: --request <file> is required\n");
    process.exitCode = 2;
    return;
  }
  const request = JSON.parse(await readFile(values.request, "utf8")) as ColdStartRequest;
  const counter = await loadBenchTokenCounter(request.counter);
  const session = await openedSession(request);
  const openStarted = performance.now();
  const engine = await createEngineUnderTest({
    engine: request.engine,
    counter,
    summarizer: createStubSummarizer({ busyMs: 0 }),
    stateDir: request.stateDir,
    workspaceDir: request.workspaceDir,
  });
  try {
    const metrics = await openedToAssembled(engine, request, session, openStarted);
    process.stdout.write(`${COLD_START_MARKER}${JSON.stringify(metrics)}\n`);
  } finally {
    await engine.dispose?.();
  }
}

interface OpenedSession {
  sessionFile: string;
  /** The session's context as a host opening it has it (after a compaction: summary, kept, later). */
  messages: AgentMessage[];
}

/** Opens the session's transcript the way a host does, takes its messages and closes it. */
async function openedSession(request: ColdStartRequest): Promise<OpenedSession> {
  const store = new JsonlTranscriptStore({ home: request.home });
  const session = await TranscriptHostSession.openOrCreate(store, {
    agentId: "main",
    sessionId: request.sessionId,
    sessionKey: request.sessionKey,
  });
  try {
    return { sessionFile: session.sessionFile, messages: await session.messages() };
  } finally {
    await session.close();
  }
}

/** Times bootstrap (when the engine has it) and the first assemble; `openStarted` is the clock's start. */
async function openedToAssembled(
  engine: ContextEngine,
  request: ColdStartRequest,
  session: OpenedSession,
  openStarted: number,
): Promise<ColdStartMetrics> {
  const identity = { sessionId: request.sessionId, sessionKey: request.sessionKey };
  const opened = performance.now();
  let bootstrap: ColdStartMetrics["bootstrap"];
  if (engine.bootstrap !== undefined) {
    const result = await engine.bootstrap({ ...identity, sessionFile: session.sessionFile });
    bootstrap = { bootstrapped: result.bootstrapped };
    if (result.importedMessages !== undefined) bootstrap.importedMessages = result.importedMessages;
    if (result.reason !== undefined) bootstrap.reason = result.reason;
  }
  const bootstrapped = performance.now();
  // A host hands assemble a fresh array from its pipeline; building it is not the engine's cost.
  const input = [...session.messages];
  const assembleStarted = performance.now();
  const assembled = await engine.assemble({
    ...identity,
    messages: input,
    tokenBudget: request.tokenBudget,
    prompt: request.prompt,
    model: "bench-model",
  });
  const finished = performance.now();
  const firstAssembleMs = finished - assembleStarted;
  return {
    startupMs,
    openMs: opened - openStarted,
    ...(bootstrap === undefined ? {} : { bootstrapMs: bootstrapped - opened, bootstrap }),
    firstAssembleMs,
    totalMs: bootstrapped - openStarted + firstAssembleMs,
    messages: session.messages.length,
    assembledMessages: assembled.messages.length,
    estimatedTokens: assembled.estimatedTokens,
    passThrough: assembled.messages === input,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
}

main().catch((error: unknown) => {
  process.stderr.write(`cold-start-child: ${describeError(error)}\n`);
  process.exit(1);
});
