import { open, readFile, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type AgentMessage, JsonlTranscriptStore, type Transcript } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { messageDigest } from "../src/ingest/message-identity.js";
import { readTranscriptMessages } from "../src/ingest/read-transcript.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { LosslessStore } from "../src/store/store.js";
import { codingConversation, userText } from "./support/conversations.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterEach(() => engines.cleanup());

const SESSION = "boot";

/** A host's transcript of `messages` (left open, so a test can append to it as a host does). */
async function hostTranscript(messages: readonly AgentMessage[]): Promise<Transcript> {
  const store = new JsonlTranscriptStore({ home: await engines.directory() });
  const transcript = await store.create({ agentId: "main", sessionId: SESSION });
  await append(transcript, messages);
  return transcript;
}

async function append(transcript: Transcript, messages: readonly AgentMessage[]): Promise<void> {
  await transcript.append(messages.map((message) => ({ type: "message" as const, message })));
  await transcript.flush();
}

/** Every stored message of the session, in seq order, as digests. */
async function storedDigests(store: LosslessStore): Promise<string[]> {
  const rows = await store.readMessageRange(SESSION, { limit: 100_000 });
  return rows.map((row) => messageDigest(JSON.parse(row.json)));
}

/** An engine and a second store handle over the same new database, as a restart would see it. */
async function restartable(): Promise<{ path: string; start: () => ReturnType<TempEngines["engine"]> }> {
  const path = join(await engines.directory(), "lossless.db");
  return { path, start: () => engines.engine({}, path) };
}

async function storeAt(path: string): Promise<LosslessStore> {
  return openSqliteStore(path, { backgroundIndexDelayMs: false });
}

/** The user message with the first letter of its text changed: a different message, as long. */
function sameLengthEdit(message: AgentMessage): AgentMessage {
  const { content } = message as { content: unknown };
  if (typeof content !== "string") throw new Error("expected a user message with text content");
  return { ...message, content: `${content.startsWith("X") ? "Y" : "X"}${content.slice(1)}` } as AgentMessage;
}

const later = (count: number, offset: number): AgentMessage[] =>
  Array.from({ length: count }, (_, index) => userText(`later message ${index}`, 9_000_000 + offset + index));

describe("bootstrap after a restart", () => {
  it("reads only the entries appended since the last import", async () => {
    const first = codingConversation(6);
    const transcript = await hostTranscript(first);
    const since = await readTranscriptMessages(transcript.location, SESSION);
    if (!since.ok || since.watermark === undefined) throw new Error("no watermark after a full read");
    expect(since.tailOnly).toBeUndefined();
    await append(transcript, later(3, 0));
    // Overwrite one imported line in place, same length: the file no longer parses the same way
    // from the start, so a result with every new message and no error shows the prefix was not read.
    const text = await readFile(transcript.location, "utf8");
    const lines = text.split("\n");
    const middle = 3;
    const handle = await open(transcript.location, "r+");
    await handle.write(
      " ".repeat(Buffer.byteLength(lines[middle] ?? "")),
      Buffer.byteLength(
        lines
          .slice(0, middle)
          .map((line) => `${line}\n`)
          .join(""),
      ),
    );
    await handle.close();
    const tail = await readTranscriptMessages(transcript.location, SESSION, since.watermark);
    expect(tail).toMatchObject({ ok: true, tailOnly: true });
    expect(tail.ok && tail.messages).toEqual(later(3, 0));
    await transcript.close();
  });

  it("imports only the new messages on a restart, each once and in order", async () => {
    const first = codingConversation(6);
    const transcript = await hostTranscript(first);
    const { path, start } = await restartable();
    const engine = await start();
    expect(await engine.bootstrap({ sessionId: SESSION, sessionFile: transcript.location })).toEqual({
      bootstrapped: true,
      importedMessages: first.length,
    });
    await engine.dispose();
    const added = later(4, 0);
    await append(transcript, added);
    const restarted = await start();
    expect(await restarted.bootstrap({ sessionId: SESSION, sessionFile: transcript.location })).toEqual({
      bootstrapped: true,
      importedMessages: added.length,
    });
    expect(await restarted.bootstrap({ sessionId: SESSION, sessionFile: transcript.location })).toEqual({
      bootstrapped: true,
      importedMessages: 0,
    });
    await restarted.dispose();
    const store = await storeAt(path);
    expect(await storedDigests(store)).toEqual([...first, ...added].map(messageDigest));
    const watermark = await store.readTranscriptWatermark(SESSION);
    expect(watermark?.offset).toBe((await stat(transcript.location)).size);
    await store.close();
    await transcript.close();
  });

  it("reads a rewritten transcript whole: the rewritten message is stored, nothing twice", async () => {
    const first = codingConversation(5);
    const transcript = await hostTranscript(first);
    const { path, start } = await restartable();
    const engine = await start();
    await engine.bootstrap({ sessionId: SESSION, sessionFile: transcript.location });
    await engine.dispose();
    // What a host's maintenance does: replaces one message (a new file renamed over the old),
    // here by one of the same length, so every later line keeps its offset.
    const target = transcript.entries().find((entry) => entry.type === "message");
    if (target === undefined) throw new Error("no message entry");
    const rewritten = sameLengthEdit(first[0] as AgentMessage);
    const result = await transcript.rewriteTranscriptEntries({
      replacements: [{ entryId: target.id, message: rewritten }],
    });
    expect(result.changed).toBe(true);
    const added = later(2, 0);
    await append(transcript, added);
    const restarted = await start();
    expect(await restarted.bootstrap({ sessionId: SESSION, sessionFile: transcript.location })).toEqual({
      bootstrapped: true,
      importedMessages: 1 + added.length,
    });
    await restarted.dispose();
    const store = await storeAt(path);
    expect(await storedDigests(store)).toEqual([...first, rewritten, ...added].map(messageDigest));
    await store.close();
    await transcript.close();
  });

  it("reads a truncated transcript whole, losing and duplicating nothing", async () => {
    const first = codingConversation(6);
    const transcript = await hostTranscript(first);
    await transcript.close();
    const { path, start } = await restartable();
    const engine = await start();
    await engine.bootstrap({ sessionId: SESSION, sessionFile: transcript.location });
    await engine.dispose();
    // Cut the file after its third message line and write other lines in place of the rest, so
    // it is as long as before but no longer holds what was imported.
    const lines = (await readFile(transcript.location, "utf8")).split("\n");
    const kept = lines
      .slice(0, 4)
      .map((line) => `${line}\n`)
      .join("");
    await truncate(transcript.location, Buffer.byteLength(kept));
    const parentId = (JSON.parse(lines[3] ?? "{}") as { id: string }).id;
    const replacement = later(3, 0).map((message, index) =>
      JSON.stringify({
        type: "message",
        id: `new${index}`,
        parentId: index === 0 ? parentId : `new${index - 1}`,
        timestamp: "2025-01-01T00:00:00.000Z",
        message,
      }),
    );
    await writeFile(transcript.location, `${kept}${replacement.join("\n")}\n`);
    const restarted = await start();
    expect(await restarted.bootstrap({ sessionId: SESSION, sessionFile: transcript.location })).toEqual({
      bootstrapped: true,
      importedMessages: 3,
    });
    await restarted.dispose();
    const store = await storeAt(path);
    expect(await storedDigests(store)).toEqual([...first, ...later(3, 0)].map(messageDigest));
    await store.close();
  });

  it("stays correct after a crash between the import and the watermark", async () => {
    const first = codingConversation(6);
    const transcript = await hostTranscript(first);
    const { path, start } = await restartable();
    const engine = await start();
    await engine.bootstrap({ sessionId: SESSION, sessionFile: transcript.location });
    const stale = await readTranscriptMessages(transcript.location, SESSION);
    await engine.dispose();
    // Messages appended and imported, but the process died before recording the new watermark:
    // the store still holds the older one.
    const added = later(3, 0);
    await append(transcript, added);
    const importing = await start();
    await importing.bootstrap({ sessionId: SESSION, sessionFile: transcript.location });
    await importing.dispose();
    const store = await storeAt(path);
    if (!stale.ok || stale.watermark === undefined) throw new Error("no watermark");
    await store.writeTranscriptWatermark(SESSION, stale.watermark);
    await store.close();
    const restarted = await start();
    expect(await restarted.bootstrap({ sessionId: SESSION, sessionFile: transcript.location })).toEqual({
      bootstrapped: true,
      importedMessages: 0,
    });
    await restarted.dispose();
    const reopened = await storeAt(path);
    expect(await storedDigests(reopened)).toEqual([...first, ...added].map(messageDigest));
    await reopened.close();
    await transcript.close();
  });

  it("reads the whole file when the new entries leave the imported branch", async () => {
    const first = codingConversation(4);
    const transcript = await hostTranscript(first);
    const since = await readTranscriptMessages(transcript.location, SESSION);
    if (!since.ok || since.watermark === undefined) throw new Error("no watermark");
    // A new branch from the first message: what the whole file's newest branch holds.
    const root = transcript.entries().find((entry) => entry.type === "message");
    if (root === undefined) throw new Error("no message entry");
    const fork = userText("another way", 8_000_000);
    await transcript.append([{ type: "message", parentId: root.id, message: fork }]);
    await transcript.flush();
    const read = await readTranscriptMessages(transcript.location, SESSION, since.watermark);
    expect(read.ok && read.tailOnly).toBeFalsy();
    expect(read.ok && read.messages).toEqual([first[0], fork]);
    await transcript.close();
  });

  it("reads a last line without a newline again once it has one", async () => {
    const first = codingConversation(3);
    const transcript = await hostTranscript(first);
    await transcript.close();
    const { path, start } = await restartable();
    const full = await readFile(transcript.location, "utf8");
    const lastLine = JSON.stringify({
      type: "message",
      id: "last",
      parentId: (JSON.parse(full.trimEnd().split("\n").at(-1) ?? "{}") as { id: string }).id,
      timestamp: "2025-01-01T00:00:00.000Z",
      message: later(1, 0)[0],
    });
    await writeFile(transcript.location, `${full}${lastLine}`);
    const engine = await start();
    expect(
      (await engine.bootstrap({ sessionId: SESSION, sessionFile: transcript.location })).importedMessages,
    ).toBe(first.length + 1);
    await engine.dispose();
    await writeFile(transcript.location, `${full}${lastLine}\n`);
    const restarted = await start();
    expect(
      (await restarted.bootstrap({ sessionId: SESSION, sessionFile: transcript.location })).importedMessages,
    ).toBe(0);
    await restarted.dispose();
    const store = await storeAt(path);
    expect(await storedDigests(store)).toEqual([...first, ...later(1, 0)].map(messageDigest));
    await store.close();
  });

  it("reads another file of the session whole", async () => {
    const first = codingConversation(3);
    const transcript = await hostTranscript(first);
    const since = await readTranscriptMessages(transcript.location, SESSION);
    if (!since.ok || since.watermark === undefined) throw new Error("no watermark");
    const copy = `${transcript.location.slice(0, -".jsonl".length)}-copy.jsonl`;
    await writeFile(copy, await readFile(transcript.location));
    const read = await readTranscriptMessages(copy, SESSION, since.watermark);
    expect(read).toMatchObject({ ok: true, messages: first });
    expect(read.ok && read.tailOnly).toBeFalsy();
    await transcript.close();
  });
});
