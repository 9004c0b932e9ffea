import type { AgentMessage, Logger } from "@clew/core";
import { afterAll } from "vitest";
import {
  loadWordVectorTable,
  type WordVectorTable,
} from "../../src/embeddings/word-vectors/word-vector-table.js";
import type { LosslessStore } from "../../src/store/store.js";
import { userText } from "./conversations.js";
import { store as stored } from "./preparation.js";
import { TempEngines } from "./temp-engine.js";
import { writeTinyVectors } from "./word-vectors.js";

export const SOFT_TERMS_START = Date.UTC(2025, 3, 1, 9);

export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** The tiny word-vector table of `word-vectors.ts`, loaded as an engine loads a file. */
export async function tinyTable(engines: TempEngines): Promise<WordVectorTable> {
  return loadWordVectorTable(await writeTinyVectors(await engines.directory()), 100);
}

export interface SoftTermSession {
  store: LosslessStore;
  /** Messages read by `readMessageRange` so far (what indexing reads). */
  rowsRead(): number;
  /** Calls of `readMessageRange` and `readMessageHeads` so far (reads and probes). */
  storeCalls(): number;
  /** Stores `texts` as further user messages. */
  add(texts: readonly string[]): Promise<void>;
  /** Deletes the session and stores `texts` as its messages from seq 1, as another process could. */
  rewrite(texts: readonly string[]): Promise<void>;
}

/**
 * An engine's store holding `texts` as user messages (seq n+1 for texts[n]), and the rows it
 * reads; `unreadable` seqs come back with JSON that does not parse.
 */
export async function storeWith(
  engines: TempEngines,
  texts: readonly string[],
  unreadable: ReadonlySet<number> = new Set(),
): Promise<SoftTermSession> {
  const engine = await engines.engine();
  let messages: AgentMessage[] = texts.map((text, index) => userText(text, SOFT_TERMS_START + index));
  await stored(engine, "s", messages);
  const inner = (engine as unknown as { store: LosslessStore }).store;
  let rows = 0;
  let calls = 0;
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "readMessageHeads") {
        return (...args: Parameters<LosslessStore["readMessageHeads"]>) => {
          calls += 1;
          return target.readMessageHeads(...args);
        };
      }
      if (property !== "readMessageRange") return Reflect.get(target, property, receiver);
      return async (...args: Parameters<LosslessStore["readMessageRange"]>) => {
        calls += 1;
        const page = await target.readMessageRange(...args);
        rows += page.length;
        return page.map((row) => (unreadable.has(row.seq) ? { ...row, json: "{not json" } : row));
      };
    },
  });
  return {
    store,
    rowsRead: () => rows,
    storeCalls: () => calls,
    async add(more) {
      messages = [
        ...messages,
        ...more.map((text, index) => userText(text, SOFT_TERMS_START + messages.length + index)),
      ];
      await stored(engine, "s", messages);
    },
    async rewrite(texts) {
      await inner.deleteSession("s");
      // Later times than any before: the new messages are others even where their text repeats.
      const start = SOFT_TERMS_START + 1_000_000;
      messages = texts.map((text, index) => userText(text, start + index));
      await stored(engine, "s", messages);
    },
  };
}

/**
 * For a test file: engines made in a temporary folder, removed after its tests, and `tinyTable` and
 * `storeWith` over them.
 */
export function useSoftTermSessions(): {
  tinyTable: () => Promise<WordVectorTable>;
  storeWith: (texts: readonly string[], unreadable?: ReadonlySet<number>) => Promise<SoftTermSession>;
} {
  const engines = new TempEngines();
  afterAll(() => engines.cleanup());
  return {
    tinyTable: () => tinyTable(engines),
    storeWith: (texts, unreadable) => storeWith(engines, texts, unreadable),
  };
}
