/**
 * M9's cold start: new process → open the engine over its existing state → first assemble. The
 * parent side: writes the request, starts `cold-start-child.ts` in a fresh `node --import tsx`
 * process and reads back the one marked line it prints. Node and tsx start-up and module imports
 * are left out (the child starts its clock after its imports); the host's own work (reading the
 * transcript into messages) happens before the clock too.
 */
import { spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Above this history size (the messages a cell asks for) no cold start is measured: a child per
 * cell costs seconds of start-up.
 */
export const COLD_START_MAX_MESSAGES = 50_000;

/** Prefix of the child's one stdout line carrying its figures. */
export const COLD_START_MARKER = "CLEW_COLD_START ";

/** A child that has not answered by then is killed and the cold start reported as failed. */
const CHILD_TIMEOUT_MS = 5 * 60_000;

const REPO_ROOT = join(import.meta.dirname, "..", "..", "..");
const CHILD_ENTRY = join(import.meta.dirname, "cold-start-child.ts");

/** What the child opens and assembles; written as JSON next to the cell's state. */
export interface ColdStartRequest {
  /** Bench engine id (`engines.ts`). */
  engine: string;
  /** Bench token counter id (`token-counters.ts`). */
  counter: string;
  /** The engine's existing state folder (what the cell's engine left there). */
  stateDir: string;
  workspaceDir: string;
  /** The Clew home holding the session's JSONL transcript (agent `main`). */
  home: string;
  sessionId: string;
  sessionKey: string;
  /** The pending prompt of the first turn after the restart. */
  prompt: string;
  tokenBudget: number;
}

/** Wall times in the child, from after its imports. */
export interface ColdStartMetrics {
  /** Process start to the end of module imports: left out of every other figure. */
  startupMs: number;
  /** The bench engine's setup and its factory: the store opened, nothing read yet. */
  openMs: number;
  /** `bootstrap` of the transcript, as a host calls it on first sight of an existing session; absent without one. */
  bootstrapMs?: number;
  bootstrap?: { bootstrapped: boolean; importedMessages?: number; reason?: string };
  /** The first `assemble`, with the prompt and the 128k budget. */
  firstAssembleMs: number;
  /** `openMs + bootstrapMs + firstAssembleMs`. */
  totalMs: number;
  /** Messages of the transcript handed to `assemble`. */
  messages: number;
  assembledMessages: number;
  estimatedTokens: number;
  passThrough: boolean;
  /** Kernel maxRSS of the child, in MB. */
  maxRssMb: number;
}

/** The cold start's figures, or why there are none (`failed` when the child did not answer). */
export type ColdStartOutcome =
  | ({ measured: true } & ColdStartMetrics)
  | { measured: false; reason: string; failed?: boolean };

/**
 * Runs the child over `request` (its request file goes into `scratchDir`). Never rejects for a
 * failing child: a crash, a timeout, a non-zero exit or a missing line comes back as
 * `measured: false, failed: true` with the child's last stderr line.
 */
export async function measureColdStart(
  request: ColdStartRequest,
  scratchDir: string,
): Promise<ColdStartOutcome> {
  const requestPath = join(scratchDir, "cold-start-request.json");
  await writeFile(requestPath, JSON.stringify(request));
  const { code, signal, stdout, stderr } = await runChild(requestPath);
  const line = stdout.split("\n").find((candidate) => candidate.startsWith(COLD_START_MARKER));
  if (code === 0 && line !== undefined) {
    return { measured: true, ...(JSON.parse(line.slice(COLD_START_MARKER.length)) as ColdStartMetrics) };
  }
  const lastError = stderr.trim().split("\n").at(-1) ?? "";
  const ending = signal ?? `code ${code}`;
  return { measured: false, failed: true, reason: `cold-start child ended with ${ending}: ${lastError}` };
}

interface ChildOutcome {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

function runChild(requestPath: string): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD_ENTRY, "--request", requestPath], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}\ncould not start: ${error.message}` });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}
