import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { importTranscript, type NewTranscriptEntry, type TranscriptStore } from "../../src/index.js";

/** The real pi sessions, read in place from the shared data folder (never copied into the repo). */
export const PI_SESSIONS_DIR =
  process.env.CLEW_PI_SESSIONS_DIR ?? join(import.meta.dirname, "../../../../../shared/data/pi-sessions");

/** Imports a pi session file into `store` under agent `main`; returns its session id. */
export async function importPiSession(store: TranscriptStore, file: string): Promise<string> {
  const text = await readFile(join(PI_SESSIONS_DIR, file), "utf8");
  const imported = importTranscript(text, { sourceName: file });
  const transcript = await store.create({ agentId: "main", sessionId: imported.header.id });
  await transcript.append(imported.entries as unknown as NewTranscriptEntry[]);
  await transcript.flush();
  await transcript.close();
  return imported.header.id;
}
