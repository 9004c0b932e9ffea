/**
 * What an engine-speed cell replays: a history of (at least) N messages, written as a JSONL
 * transcript the way a host keeps it, then whole turns that follow it in the same replay.
 */
import { stat } from "node:fs/promises";
import {
  type AgentMessage,
  type JsonlTranscriptStore,
  type NewTranscriptEntry,
  TranscriptHostSession,
} from "@clew/core";

export interface SplitReplay {
  /** The session before the measured turns: `historyMessages` entries, then up to the next user message. */
  history: NewTranscriptEntry[];
  /** Whole turns after the history: a user message and everything up to the next user message. */
  turns: AgentMessage[][];
}

/**
 * Takes `historyMessages` message entries from `entries`, then more until the next user message,
 * so the first turn starts with its prompt as a host's turn does; then up to `turns` whole turns.
 * The last turn may be cut short when `entries` ends. Reads `entries` lazily and no further than
 * it needs; entries that are not messages are skipped. Never throws for short input.
 */
export function splitReplay(
  entries: Iterable<NewTranscriptEntry>,
  options: { historyMessages: number; turns: number },
): SplitReplay {
  const history: NewTranscriptEntry[] = [];
  const turns: AgentMessage[][] = [];
  for (const entry of entries) {
    if (!isMessageEntry(entry)) continue;
    const startsTurn = entry.message.role === "user";
    if (history.length < options.historyMessages || (turns.length === 0 && !startsTurn)) {
      history.push(entry);
      continue;
    }
    if (startsTurn) {
      if (turns.length === options.turns) break;
      turns.push([]);
    }
    turns.at(-1)?.push(entry.message);
  }
  return { history, turns };
}

/** The messages of message entries, in order. */
export function messagesOf(entries: readonly NewTranscriptEntry[]): AgentMessage[] {
  return entries.flatMap((entry) => (isMessageEntry(entry) ? [entry.message] : []));
}

type NewMessageEntry = NewTranscriptEntry & { type: "message"; message: AgentMessage };

function isMessageEntry(entry: NewTranscriptEntry): entry is NewMessageEntry {
  return entry.type === "message";
}

export interface WrittenTranscript {
  path: string;
  /** File size: the session header line plus one JSON line per entry. */
  bytes: number;
}

/**
 * Writes `entries` as the new transcript `sessionId` of agent `main` (appends of 500 entries,
 * then one flush) and closes it. Throws what the store throws (an existing session, for one).
 */
export async function writeTranscript(
  store: JsonlTranscriptStore,
  sessionId: string,
  entries: readonly NewTranscriptEntry[],
): Promise<WrittenTranscript> {
  const transcript = await store.create({ agentId: "main", sessionId, cwd: "/bench" });
  try {
    for (let start = 0; start < entries.length; start += 500) {
      await transcript.append(entries.slice(start, start + 500));
    }
    await transcript.flush();
  } finally {
    await transcript.close();
  }
  const path = store.transcriptPath("main", sessionId);
  return { path, bytes: (await stat(path)).size };
}

/**
 * Appends `messages` to the session's transcript as a host stores turns (opened, appended, flushed,
 * closed), so the transcript holds what the engine was given. Throws what the store throws.
 */
export async function appendToTranscript(
  store: JsonlTranscriptStore,
  session: { sessionId: string; sessionKey: string },
  messages: readonly AgentMessage[],
): Promise<void> {
  const opened = await TranscriptHostSession.openOrCreate(store, { agentId: "main", ...session });
  try {
    await opened.append(messages);
    await opened.flush();
  } finally {
    await opened.close();
  }
}
