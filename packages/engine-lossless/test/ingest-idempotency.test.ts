import { type AgentMessage, charEstimateTokenCounter, JsonlTranscriptStore } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { messageDigest } from "../src/ingest/message-identity.js";
import type { LosslessStore } from "../src/store/store.js";
import { codingConversation, userText } from "./support/conversations.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterEach(() => engines.cleanup());

async function storedDigests(engine: Awaited<ReturnType<TempEngines["engine"]>>, sessionId: string) {
  const { read } = recallToolsOf(engine, sessionId);
  const ids = Array.from({ length: 400 }, (_, index) => `m${index + 1}`);
  const page = await read.execute("read", { messageIds: ids, maxTokens: 32_000 });
  return (page.details.messages as Array<{ message: unknown }>).map((entry) => messageDigest(entry.message));
}

describe("idempotent ingest", () => {
  it("stores a turn once when the same turn is ingested twice", async () => {
    const engine = await engines.engine();
    const turn = codingConversation(3);
    expect((await engine.ingestBatch({ sessionId: "s", messages: turn })).ingestedCount).toBe(turn.length);
    expect((await engine.ingestBatch({ sessionId: "s", messages: turn })).ingestedCount).toBe(0);
    for (const message of turn)
      expect((await engine.ingest({ sessionId: "s", message })).ingested).toBe(false);
    expect(await storedDigests(engine, "s")).toEqual(turn.map(messageDigest));
  });

  it("stores nothing new when afterTurn brings a turn ingest already stored", async () => {
    const engine = await engines.engine();
    const history = codingConversation(4);
    await engine.ingestBatch({ sessionId: "s", messages: history });
    const turn = codingConversation(6).slice(history.length);
    for (const message of turn) await engine.ingest({ sessionId: "s", message });
    const snapshot = [...history, ...turn];
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: snapshot,
      prePromptMessageCount: history.length,
    });
    expect(await storedDigests(engine, "s")).toEqual(snapshot.map(messageDigest));
  });

  it("stores only the new turn of an afterTurn snapshot, and a first snapshot whole", async () => {
    const engine = await engines.engine();
    const history = codingConversation(5);
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: history,
      prePromptMessageCount: 3,
    });
    const next = codingConversation(7);
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: next,
      prePromptMessageCount: history.length,
    });
    expect(await storedDigests(engine, "s")).toEqual(next.map(messageDigest));
  });

  it("stores a turn holding a message of the wrong shape, and the turns after it", async () => {
    const history = codingConversation(2);
    const engine = await engines.engineWithTurn(history);
    // An assistant message whose content is a string: the default counter used to throw on it,
    // which failed the whole write and had every later turn retry the whole snapshot.
    const odd = { role: "assistant", content: "plain text", timestamp: 5_000 } as unknown as AgentMessage;
    const turn = [userText("next", 4_000), odd];
    const later = [userText("and then", 6_000)];
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: [...history, ...turn],
      prePromptMessageCount: history.length,
    });
    const all = [...history, ...turn, ...later];
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: all,
      prePromptMessageCount: all.length - 1,
    });
    expect(await storedDigests(engine, "s")).toEqual(all.map(messageDigest));
  });

  it("stores a message an injected counter throws on, counted by chars/4", async () => {
    const tokenCounter = {
      id: "brittle",
      countText: (text: string) => Math.ceil(text.length / 4),
      countMessage: (message: AgentMessage) => {
        if (JSON.stringify(message).includes("tokenizer rejects")) throw new Error("tokenizer failure");
        return 10;
      },
    };
    const engine = await engines.engine({ tokenCounter });
    const turn = [userText("fine", 1_000), userText("text the tokenizer rejects", 2_000)];
    expect((await engine.ingestBatch({ sessionId: "s", messages: turn })).ingestedCount).toBe(2);
    expect(await storedDigests(engine, "s")).toEqual(turn.map(messageDigest));
    const store = (engine as unknown as { store: LosslessStore }).store;
    const view = await store.readContextView("s");
    expect(view.items.map((item) => item.tokens)).toEqual([
      10,
      charEstimateTokenCounter.countMessage(turn[1] as AgentMessage),
    ]);
  });

  it("keeps byte-identical messages of one list apart", async () => {
    const engine = await engines.engine();
    const same = userText("ok", 1_000);
    expect((await engine.ingestBatch({ sessionId: "s", messages: [same, same] })).ingestedCount).toBe(2);
    expect((await engine.ingestBatch({ sessionId: "s", messages: [same, same] })).ingestedCount).toBe(0);
  });

  it("keeps sessions apart", async () => {
    const engine = await engines.engine();
    const turn = codingConversation(2);
    await engine.ingestBatch({ sessionId: "a", messages: turn });
    expect((await engine.ingestBatch({ sessionId: "b", messages: turn })).ingestedCount).toBe(turn.length);
  });
});

describe("bootstrap", () => {
  async function writeTranscript(messages: ReturnType<typeof codingConversation>) {
    const home = await engines.directory();
    const store = new JsonlTranscriptStore({ home });
    const transcript = await store.create({ agentId: "main", sessionId: "boot" });
    await transcript.append(messages.map((message) => ({ type: "message" as const, message })));
    await transcript.close();
    return transcript.location;
  }

  it("imports a JSONL transcript once, however often it runs", async () => {
    const messages = codingConversation(6);
    const sessionFile = await writeTranscript(messages);
    const engine = await engines.engine();
    expect(await engine.bootstrap({ sessionId: "boot", sessionFile })).toEqual({
      bootstrapped: true,
      importedMessages: messages.length,
    });
    expect(await engine.bootstrap({ sessionId: "boot", sessionFile })).toEqual({
      bootstrapped: true,
      importedMessages: 0,
    });
    expect(await storedDigests(engine, "boot")).toEqual(messages.map(messageDigest));
  });

  it("after a crash halfway, a re-bootstrap stores the rest once and in order", async () => {
    const messages = codingConversation(10);
    const sessionFile = await writeTranscript(messages);
    const path = `${await engines.directory()}/lossless.db`;
    const first = await engines.engine({}, path);
    const half = Math.floor(messages.length / 2);
    await first.afterTurn({
      sessionId: "boot",
      sessionFile,
      messages: messages.slice(0, half),
      prePromptMessageCount: 0,
    });
    await first.dispose();
    const second = await engines.engine({}, path);
    const result = await second.bootstrap({ sessionId: "boot", sessionFile });
    expect(result.importedMessages).toBe(messages.length - half);
    expect(await storedDigests(second, "boot")).toEqual(messages.map(messageDigest));
    await second.afterTurn({ sessionId: "boot", sessionFile, messages, prePromptMessageCount: 0 });
    expect(await storedDigests(second, "boot")).toHaveLength(messages.length);
  });

  it("says why when the session file is not a JSONL transcript", async () => {
    const engine = await engines.engine();
    const result = await engine.bootstrap({ sessionId: "s", sessionFile: "memory:s" });
    expect(result.bootstrapped).toBe(false);
    expect(result.reason).toContain("not a JSONL transcript");
  });
});
