import type { AgentMessage } from "@clew/core";
import { afterAll, describe, expect, it } from "vitest";
import type { LosslessStore } from "../src/store/store.js";
import { userText } from "./support/conversations.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());

describe("a long list written in parts", () => {
  it("numbers identical messages across the parts as the whole list would, so none is lost", async () => {
    // 1,002 messages: the 1,000th and the 1,001st are identical and fall in different parts.
    const messages: AgentMessage[] = Array.from({ length: 1_002 }, (_, index) =>
      userText(`line ${index}`, 1_000 + index),
    );
    messages[1_000] = messages[999] as AgentMessage;
    const engine = await engines.engine();
    await engine.ingestBatch({ sessionId: "s", messages });
    const store = (engine as unknown as { store: LosslessStore }).store;
    expect((await store.sessionStats("s")).messageCount).toBe(1_002);
    // The same list again stores nothing: both copies are known by identity.
    await engine.ingestBatch({ sessionId: "s", messages });
    expect((await store.sessionStats("s")).messageCount).toBe(1_002);
  });

  it("lets the event loop run between parts, and stores them in order", async () => {
    const messages: AgentMessage[] = Array.from({ length: 2_500 }, (_, index) =>
      userText(`line ${index}`, 1_000 + index),
    );
    const engine = await engines.engine();
    const store = (engine as unknown as { store: LosslessStore }).store;
    const ingested = engine.ingestBatch({ sessionId: "s", messages });
    // Promise callbacks alone (another session's turn awaiting its store) never run a second part.
    for (let tick = 0; tick < 500; tick++) await Promise.resolve();
    expect((await store.sessionStats("s")).messageCount).toBe(1_000);
    expect((await ingested).ingestedCount).toBe(2_500);
    const stored = await store.readMessageRange("s", { limit: 3_000 });
    expect(stored.map((message) => JSON.parse(message.json).content)).toEqual(
      messages.map((message) => (message as { content: unknown }).content),
    );
  });

  it("keeps another write to the same session out of a long list's parts", async () => {
    const long: AgentMessage[] = Array.from({ length: 2_500 }, (_, index) =>
      userText(`line ${index}`, 1_000 + index),
    );
    const late = userText("written while the import was going on", 9_000);
    const engine = await engines.engine();
    const store = (engine as unknown as { store: LosslessStore }).store;
    const imported = engine.ingestBatch({ sessionId: "s", messages: long });
    await Promise.resolve();
    const other = engine.ingestBatch({ sessionId: "other", messages: [late] });
    const sameSession = engine.ingestBatch({ sessionId: "s", messages: [late] });
    // Another session's write is not held up by the import.
    expect((await other).ingestedCount).toBe(1);
    expect((await store.sessionStats("s")).messageCount).toBeLessThan(2_500);
    await Promise.all([imported, sameSession]);
    const stored = await store.readMessageRange("s", { limit: 3_000 });
    expect(stored).toHaveLength(2_501);
    expect(JSON.parse(stored.at(-1)?.json ?? "{}").content).toEqual((late as { content: unknown }).content);
  });
});
