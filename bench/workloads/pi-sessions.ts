/**
 * The two real pi sessions, read in place from the shared data folder (never copied into the
 * repository) and converted with Clew's own importer.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ImportedTranscript, importTranscript, TranscriptReadError } from "@clew/core";

/** The recorded sessions the bench replays, in replay order. */
export const PI_SESSION_FILES = ["before-compaction.jsonl", "large-session.jsonl"] as const;

const DEFAULT_PI_SESSIONS_DIR = join(import.meta.dirname, "../../../shared/data/pi-sessions");

/** `CLEW_PI_SESSIONS_DIR` when set, else `../shared/data/pi-sessions` beside the repository. */
export function piSessionsDir(environment: NodeJS.ProcessEnv = process.env): string {
  const configured = environment.CLEW_PI_SESSIONS_DIR?.trim();
  return configured ? configured : DEFAULT_PI_SESSIONS_DIR;
}

/**
 * Reads and imports one session file from `directory`. Throws `TranscriptReadError` naming the
 * file when it cannot be read (with a hint about `CLEW_PI_SESSIONS_DIR`) or holds no transcript.
 */
export async function readPiSession(file: string, directory: string): Promise<ImportedTranscript> {
  const location = join(directory, file);
  let text: string;
  try {
    text = await readFile(location, "utf8");
  } catch (error) {
    throw new TranscriptReadError(
      "cannot read the pi session (set CLEW_PI_SESSIONS_DIR to the folder holding it)",
      location,
      { cause: error },
    );
  }
  return importTranscript(text, { sourceName: location, now: () => 0 });
}
