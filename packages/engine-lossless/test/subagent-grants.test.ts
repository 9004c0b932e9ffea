import type { AgentMessage, SubagentSpawnParams } from "@clew/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { LosslessEngine } from "../src/lossless-engine.js";
import type { LosslessStore } from "../src/store/store.js";
import { ParentRecallError } from "../src/subagents/parent-recall-error.js";
import type { RecallTool } from "../src/tools/recall-tools.js";
import { assistantText, codingConversation, userText } from "./support/conversations.js";
import { TempEngines } from "./support/temp-engine.js";

const START = Date.UTC(2025, 3, 1, 9);
const PARENT = { sessionId: "parent-id", sessionKey: "agent:main:main" };
const CHILD = { sessionId: "child-id", sessionKey: "agent:main:main:sub:abc123" };
const NEEDLE = "The staging password rotates via vault path secret/stg/7Q2Z — keep it ✓";

const engines = new TempEngines();
let clock: number;
let engine: LosslessEngine;

function spawn(overrides: Partial<SubagentSpawnParams> = {}): SubagentSpawnParams {
  return {
    parentSessionKey: PARENT.sessionKey,
    childSessionKey: CHILD.sessionKey,
    contextMode: "fork",
    parentSessionId: PARENT.sessionId,
    childSessionId: CHILD.sessionId,
    ...overrides,
  };
}

function childTools(): { search: RecallTool; read: RecallTool; describe: RecallTool } {
  const [search, read, describe] = engine.tools(CHILD);
  if (search === undefined || read === undefined || describe === undefined) throw new Error("no tools");
  return { search, read, describe };
}

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((part) => part.text ?? "").join("");
}

async function store(sessionId: string, messages: AgentMessage[]): Promise<void> {
  await engine.ingestBatch({ sessionId, messages });
}

/** The session's summaries (found by their text, straight from the store), with the newest seq each covers. */
async function summariesOf(sessionId: string): Promise<Array<{ id: string; lastSeq: number }>> {
  const [, , describe] = engine.tools({ sessionId });
  if (describe === undefined) throw new Error("no tools");
  const store = (engine as unknown as { store: LosslessStore }).store;
  const found = await store.searchSummaries(
    sessionId,
    ["Module", "exports", "value", "staging"],
    "content",
    50,
  );
  const ids = found.map((hit) => hit.key);
  const summaries = [];
  for (const id of ids) {
    const description = (await describe.execute("d", { id })).details as { covers: string };
    const seqs = [...description.covers.matchAll(/m(\d+)/g)].map((match) => Number(match[1]));
    summaries.push({ id, lastSeq: Math.max(...seqs) });
  }
  return summaries;
}

const PARENT_MESSAGES: AgentMessage[] = [
  userText(NEEDLE, START),
  assistantText("Understood, I will use the vault path.", START + 1_000),
  ...codingConversation(6, { toolOutputChars: 2_000 }),
];

beforeEach(async () => {
  clock = START;
  engine = await engines.engine({ now: () => clock, subagentGrantTtlMs: 60_000 });
  await store(PARENT.sessionId, PARENT_MESSAGES);
  await store(CHILD.sessionId, [userText("Find the staging password path.", START + 5_000)]);
});
afterEach(() => engines.cleanup());

describe("fork subagents", () => {
  it("rank the parent's word match above a match by meaning alone here, at the same fused rank", async () => {
    await engine.prepareSubagentSpawn(spawn());
    const { search } = childTools();
    // The child's own message says "password", which stands in for "secret" by meaning; the
    // parent's message holds the word itself. Each leads its own conversation's list.
    const found = await search.execute("1", { query: "secret" });
    const hits = found.details.hits as Array<{
      id: string;
      session: string;
      matchedBy: string[];
      score: number;
    }>;
    const own = hits.find((hit) => hit.session === "current");
    expect(own).toMatchObject({ id: "m1", matchedBy: ["meaning"] });
    expect(hits[0]).toMatchObject({ id: "parent:m1", session: "parent" });
    expect(hits[0]?.score).toBe(own?.score);
  });

  it("search and read the parent's history, labelled as the parent's, byte-exact", async () => {
    await engine.prepareSubagentSpawn(spawn());
    const { search, read } = childTools();
    expect(search.description).toContain("parent:m12");
    const found = await search.execute("1", { query: "secret/stg/7Q2Z" });
    const hit = found.details.hits[0] as { id: string; session: string };
    expect(hit).toMatchObject({ id: "parent:m1", session: "parent" });
    expect(textOf(found)).toContain(`parent conversation ${PARENT.sessionKey}`);

    const page = await read.execute("2", { messageIds: ["parent:m1"] });
    expect(page.details.session).toBe("parent");
    const [message] = page.details.messages as Array<{ id: string; text: string; message: AgentMessage }>;
    expect(message?.id).toBe("parent:m1");
    expect(message?.message).toEqual(userText(NEEDLE, START));
    expect(textOf(page)).toContain(`From the parent conversation ${PARENT.sessionKey}`);
    expect(textOf(page)).toContain(`[parent:m1 user 2025-04-01T09:00Z]`);
    expect(textOf(page)).toContain(NEEDLE);
  });

  it("still reads their own history by bare ids", async () => {
    await engine.prepareSubagentSpawn(spawn());
    const page = await childTools().read.execute("1", { messageIds: ["m1"] });
    expect(page.details.session).toBe("current");
    expect(textOf(page)).toContain("Find the staging password path.");
  });

  it("cannot read parent messages stored after the spawn", async () => {
    await engine.prepareSubagentSpawn(spawn());
    const { search, read, describe } = childTools();
    await store(PARENT.sessionId, [
      userText("Post-spawn secret: the prod token is PROD-TOKEN-99", START + 90_000),
    ]);
    const newest = `parent:m${PARENT_MESSAGES.length + 1}`;

    expect((await search.execute("1", { query: "PROD-TOKEN-99" })).details.hits).toEqual([]);
    await expect(read.execute("2", { messageIds: [newest] })).rejects.toThrow(
      /beyond this subagent's access/,
    );
    await expect(describe.execute("3", { id: newest })).rejects.toBeInstanceOf(ParentRecallError);
    await expect(
      read.execute("4", { messageIds: [`parent:m${PARENT_MESSAGES.length}`] }),
    ).resolves.toBeDefined();
  });

  it("read parent summaries made before the spawn, by parent: or bare ids, but none covering later messages", async () => {
    expect(
      await engine.compact({ sessionId: PARENT.sessionId, tokenBudget: 1_000, force: true }),
    ).toMatchObject({
      compacted: true,
    });
    const before = await summariesOf(PARENT.sessionId);
    await engine.prepareSubagentSpawn(spawn());
    await store(
      PARENT.sessionId,
      codingConversation(12, { toolOutputChars: 2_000 }).map(
        (message, index) => ({ ...message, timestamp: START + 100_000 + index }) as AgentMessage,
      ),
    );
    expect(
      await engine.compact({ sessionId: PARENT.sessionId, tokenBudget: 1_000, force: true }),
    ).toMatchObject({
      compacted: true,
    });
    const after = (await summariesOf(PARENT.sessionId)).filter(
      (summary) => !before.some((old) => old.id === summary.id),
    );
    const { describe, read } = childTools();
    const [early] = before;
    if (early === undefined) throw new Error("the first compaction wrote no summary");
    expect(early.lastSeq).toBeLessThanOrEqual(PARENT_MESSAGES.length);
    expect((await describe.execute("1", { id: `parent:${early.id}` })).details).toMatchObject({
      id: `parent:${early.id}`,
    });
    const bare = await read.execute("2", { summaryId: early.id });
    expect(bare.details.session).toBe("parent");
    const late = after.filter((summary) => summary.lastSeq > PARENT_MESSAGES.length);
    expect(late.length).toBeGreaterThan(0);
    for (const summary of late) {
      await expect(describe.execute("3", { id: `parent:${summary.id}` })).rejects.toThrow(/No summary/);
      await expect(read.execute("4", { summaryId: `parent:${summary.id}` })).rejects.toThrow(/No summary/);
    }
  });

  it("lose access after onSubagentEnded, with an error naming the reason", async () => {
    await engine.prepareSubagentSpawn(spawn());
    await engine.onSubagentEnded({ childSessionKey: CHILD.sessionKey, reason: "completed" });
    const { search, read } = childTools();
    await expect(read.execute("1", { messageIds: ["parent:m1"] })).rejects.toThrow(
      /ended when this subagent ended \(completed\)/,
    );
    const found = await search.execute("2", { query: "secret/stg/7Q2Z" });
    expect(found.details.hits).toEqual([]);
    expect(found.details.parentRefusal).toMatch(/ended/);
  });

  it("lose access once the grant expires", async () => {
    await engine.prepareSubagentSpawn(spawn());
    const { read } = childTools();
    clock += 59_999;
    await expect(read.execute("1", { messageIds: ["parent:m1"] })).resolves.toBeDefined();
    clock += 1;
    const refused = await read.execute("2", { messageIds: ["parent:m1"] }).catch((error) => error);
    expect(refused).toBeInstanceOf(ParentRecallError);
    expect((refused as ParentRecallError).refusal).toBe("expired");
    expect((refused as Error).message).toContain(`${PARENT.sessionKey} expired at`);
  });

  it("expire at the spawn's ttlMs when it is shorter than the engine's", async () => {
    await engine.prepareSubagentSpawn(spawn({ ttlMs: 1_000 }));
    clock += 1_000;
    await expect(childTools().read.execute("1", { messageIds: ["parent:m1"] })).rejects.toThrow(/expired/);
  });

  it("lose the grant when the spawn is rolled back", async () => {
    const preparation = await engine.prepareSubagentSpawn(spawn());
    await preparation?.rollback();
    const refused = await childTools()
      .read.execute("1", { messageIds: ["parent:m1"] })
      .catch((error) => error);
    expect((refused as ParentRecallError).refusal).toBe("no-grant");
  });
});

describe("isolated subagents", () => {
  it("get no grant and cannot recall the parent", async () => {
    expect(await engine.prepareSubagentSpawn(spawn({ contextMode: "isolated" }))).toBeUndefined();
    const { search, read } = childTools();
    expect(search.description).not.toContain("parent:");
    const found = await search.execute("1", { query: "secret/stg/7Q2Z" });
    expect(found.details.hits).toEqual([]);
    expect(found.details.parentRefusal).toBeUndefined();
    const refused = await read.execute("2", { messageIds: ["parent:m1"] }).catch((error) => error);
    expect((refused as ParentRecallError).refusal).toBe("no-grant");
  });
});

describe("subagent grant options", () => {
  it("refuse a grant lifetime that is not a positive integer", async () => {
    await expect(engines.engine({ subagentGrantTtlMs: 0 })).rejects.toThrow(/lossless\.subagentGrantTtlMs/);
  });
});
