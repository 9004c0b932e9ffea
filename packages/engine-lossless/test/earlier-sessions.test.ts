import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type AgentMessage, MemoryLogger } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { LosslessEngine } from "../src/lossless-engine.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { assistantText, codingConversation, userText } from "./support/conversations.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterEach(() => engines.cleanup());

const KEY = "agent:main:main";
const START = Date.UTC(2026, 10, 30, 9);

/** The three recall tools of a session, by name. */
function toolsOf(engine: Awaited<ReturnType<TempEngines["engine"]>>, sessionId: string, sessionKey?: string) {
  const [search, read, describe] = engine.tools({
    sessionId,
    ...(sessionKey === undefined ? {} : { sessionKey }),
  });
  if (search === undefined || read === undefined || describe === undefined)
    throw new Error("no recall tools");
  return { search, read, describe };
}

function hitIds(result: { details: { hits: Array<{ id: string }> } }): string[] {
  return result.details.hits.map((hit) => hit.id);
}

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((part) => part.text ?? "").join("");
}

async function storeTurn(
  engine: Awaited<ReturnType<TempEngines["engine"]>>,
  sessionId: string,
  messages: AgentMessage[],
  sessionKey = KEY,
): Promise<void> {
  await engine.afterTurn({
    sessionId,
    sessionKey,
    sessionFile: `memory:${sessionId}`,
    messages,
    prePromptMessageCount: 0,
  });
}

describe("recall across a conversation's sessions (after /new or /reset)", () => {
  it("finds, reads and describes the earlier sessions of the same session key, and no other", async () => {
    const engine = await engines.engine();
    await storeTurn(engine, "monday", [
      userText("Set the staging port to 8443 in deploy/staging.env.", START),
      assistantText("Done: deploy/staging.env now sets PORT=8443.", START + 1_000),
      ...codingConversation(10, { toolOutputChars: 1_500 }).map(
        (message, index) => ({ ...message, timestamp: START + 2_000 + index }) as AgentMessage,
      ),
    ]);
    await engine.compact({ sessionId: "monday", sessionKey: KEY, tokenBudget: 2_000, force: true });
    await storeTurn(engine, "tuesday", [
      userText("Rename the cron job to nightly-rollup.", START + 86_400_000),
      assistantText("Renamed it to nightly-rollup.", START + 86_401_000),
    ]);
    // Another conversation of the same agent, never reachable from this one.
    await storeTurn(
      engine,
      "telegram",
      [userText("My staging port is secret-7777.", START + 2_000), assistantText("Noted.", START + 3_000)],
      "agent:main:telegram:42",
    );

    // The first turn of a new session: nothing of it is stored yet.
    const { search, read, describe } = toolsOf(engine, "wednesday", KEY);
    expect(search.description).toContain("prev1:m12");

    const found = await search.execute("1", { query: "staging port" });
    const hits = found.details.hits as Array<{ id: string; session: string }>;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((hit) => hit.id.startsWith("prev2:"))).toBe(true);
    expect(hits.every((hit) => hit.session === "earlier")).toBe(true);
    expect(textOf(found)).toContain("earlier session prev2 (2026-11-30T09:00:00.000Z");
    expect(textOf(found)).not.toContain("secret-7777");

    const page = await read.execute("2", { messageIds: ["prev2:m1", "prev2:m2"] });
    expect(textOf(page)).toMatch(/^From an earlier session of this conversation \(prev2, /);
    expect(textOf(page)).toContain("Set the staging port to 8443 in deploy/staging.env.");
    expect(textOf(page)).toContain("[prev2:m2 ");
    expect(page.details.session).toBe("earlier");
    expect(page.details.messages.map((message: { id: string }) => message.id)).toEqual([
      "prev2:m1",
      "prev2:m2",
    ]);

    // The status section says what recall reaches, when the session's key is known: given by
    // the host, or seen in a write.
    const line =
      "Earlier sessions: 2 sessions of this conversation before a /new or /reset, searched by recall (prev1–prev2)";
    expect((await engine.describeStatus({ sessionId: "wednesday" })).lines).not.toContain(line);
    expect((await engine.describeStatus({ sessionId: "wednesday", sessionKey: KEY })).lines).toContain(line);
    await storeTurn(engine, "wednesday", [userText("hello", START + 172_800_000)]);
    expect((await engine.describeStatus({ sessionId: "wednesday" })).lines).toContain(line);

    const newer = await read.execute("3", { messageIds: ["prev1:m1"] });
    expect(textOf(newer)).toContain("nightly-rollup");

    // The compaction's summary, by its prefixed id and by its bare one.
    const summary = hits.find((hit) => hit.id.startsWith("prev2:sum_"))?.id;
    expect(summary).toBeDefined();
    const described = await describe.execute("4", { id: ` ${summary} ` });
    expect((described.details as { id: string }).id).toBe(summary);
    // The messages it covers are named as they are read from here.
    expect((described.details as { covers: string }).covers).toMatch(/^prev2:m1–prev2:m\d+$/);
    expect(textOf(described)).toContain("Message ids in the text below are its own: write m12 as prev2:m12.");
    expect(textOf((await describe.execute("4b", { id: "prev2: m1" })) as never)).toContain(
      "prev2:m1: user message",
    );
    const bare = await read.execute("5", { summaryId: (summary as string).slice("prev2:".length) });
    expect(textOf(bare)).toContain("PORT=8443");

    await expect(describe.execute("5b", { id: "prev2:sum_0000000000000000" })).rejects.toThrow(
      /^earlier session prev2 \(.*\): No summary "prev2:sum_0000000000000000"/,
    );
    await expect(read.execute("6", { messageIds: ["prev3:m1"] })).rejects.toThrow(
      "earlier sessions are prev1 to prev2",
    );
    await expect(read.execute("7", { messageIds: ["prev1:m1", "prev2:m1"] })).rejects.toThrow(
      "one session at a time",
    );
    await expect(read.execute("8", { messageIds: ["prev1:m1", "m1"] })).rejects.toThrow(
      "one session at a time",
    );
  });

  it("forgets a deleted conversation: its sessions are no earlier ones of a new session under the key", async () => {
    const engine = await engines.engine();
    await storeTurn(engine, "first", [userText("alpha-one", START), assistantText("ok", START + 1)]);
    await storeTurn(engine, "second", [userText("beta-two", START + 10), assistantText("ok", START + 11)]);
    await engine.onSessionDeleted({ sessionId: "second", sessionKey: KEY });
    // A host writing to the deleted id again does not attach it anew.
    await storeTurn(engine, "second", [userText("beta-again", START + 15), assistantText("ok", START + 16)]);
    await storeTurn(engine, "recreated", [
      userText("gamma-three", START + 20),
      assistantText("ok", START + 21),
    ]);
    const { search } = toolsOf(engine, "recreated", KEY);
    expect(hitIds(await search.execute("1", { query: "alpha-one beta-two beta-again gamma-three" }))).toEqual(
      ["m1"],
    );
  });

  it("ranks this session's hits first, earlier sessions' in a quarter of the places and any left", async () => {
    const engine = await engines.engine();
    for (let session = 0; session < 8; session++) {
      const at = START + session * 1_000;
      await storeTurn(engine, `old-${session}`, [
        userText(`Which port is free on box ${session}? Ticket qzbox.`, at),
        assistantText("Nothing else here.", at + 1),
      ]);
    }
    const current: AgentMessage[] = [];
    for (let turn = 0; turn < 6; turn++) {
      const at = START + 100_000 + turn * 10;
      current.push(
        userText(`The staging port for service ${turn} is 84${turn}3.`, at),
        assistantText(`Noted the staging port of service ${turn}.`, at + 1),
      );
    }
    await storeTurn(engine, "now", current);
    const { search } = toolsOf(engine, "now", KEY);
    const ids = hitIds(await search.execute("1", { query: "staging port", limit: 8 }));
    expect(ids).toHaveLength(8);
    expect(ids.slice(0, 6).every((id) => /^m\d+$/.test(id))).toBe(true);
    expect(ids.slice(6).every((id) => id.startsWith("prev"))).toBe(true);
    // With few hits here, earlier sessions fill the places left.
    const few = hitIds(await search.execute("2", { query: "qzbox", limit: 8 }));
    expect(few.filter((id) => id.startsWith("prev"))).toHaveLength(8);
    // Below four places, this session's hits take them all.
    for (const limit of [1, 2, 3]) {
      const top = hitIds(await search.execute("3", { query: "staging port", limit }));
      expect(
        top.every((id) => /^m\d+$/.test(id)),
        `limit ${limit}`,
      ).toBe(true);
      expect(top).toHaveLength(limit);
    }
  });

  it("still searches the session itself when its earlier sessions cannot be listed", async () => {
    const logger = new MemoryLogger();
    const path = join(await mkdtemp(join(tmpdir(), "clew-earlier-")), "lossless.db");
    const store = openSqliteStore(path);
    const engine = new LosslessEngine(store, { logger });
    try {
      await storeTurn(engine, "first", [userText("alpha-one", START), assistantText("ok", START + 1)]);
      await storeTurn(engine, "second", [userText("alpha-two", START + 10), assistantText("ok", START + 11)]);
      store.earlierSessions = async () => {
        throw new Error("disk gone");
      };
      const { search } = toolsOf(engine, "second", KEY);
      expect(hitIds(await search.execute("1", { query: "alpha-one alpha-two" }))).toEqual(["m1"]);
      expect(JSON.stringify(logger.records)).toContain("disk gone");
    } finally {
      await engine.dispose();
      await rm(dirname(path), { recursive: true, force: true });
    }
  });

  it("counts back from the session itself once it is stored, and needs the session key", async () => {
    const engine = await engines.engine();
    await storeTurn(engine, "first", [userText("alpha-one", START), assistantText("ok", START + 1)]);
    await storeTurn(engine, "second", [userText("beta-two", START + 10), assistantText("ok", START + 11)]);
    await storeTurn(engine, "third", [userText("gamma-three", START + 20), assistantText("ok", START + 21)]);

    // The session after it is not an earlier one.
    const fromSecond = toolsOf(engine, "second", KEY).search;
    expect(hitIds(await fromSecond.execute("1", { query: "alpha-one gamma-three" }))).toEqual(["prev1:m1"]);

    const withoutKey = toolsOf(engine, "third");
    expect(withoutKey.search.description).not.toContain("prev1:");
    expect(hitIds(await withoutKey.search.execute("2", { query: "alpha-one" }))).toEqual([]);
    await expect(withoutKey.read.execute("3", { messageIds: ["prev1:m1"] })).rejects.toThrow(
      "this run did not say which conversation it is",
    );
  });
});
