import type { AgentMessage } from "@clew/core";
import { afterAll, describe, expect, it } from "vitest";
import { assistantText, fillerText, userText } from "./support/conversations.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());
const START = Date.UTC(2025, 5, 1, 8);

/** 40 turns, each stating one variant of the same fact, so summaries of old turns match as well. */
function repeatedFact(): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let turn = 0; turn < 40; turn++) {
    const at = START + turn * 60_000;
    messages.push(
      userText(
        `The quasar-7 relay key for region ${turn} is QK-${1000 + turn}. ${fillerText(400, turn + 1)}`,
        at,
      ),
      assistantText(`Noted the quasar-7 relay key for region ${turn}.`, at + 1),
    );
  }
  return messages;
}

describe("recall_search ranking", () => {
  it("lists a summary after the messages it covers, so it never pushes a matching message out", async () => {
    const engine = await engines.engine();
    const messages = repeatedFact();
    await engine.afterTurn({ sessionId: "s", sessionFile: "memory:s", messages, prePromptMessageCount: 0 });
    await engine.compact({ sessionId: "s", tokenBudget: 3_000, force: true });
    const { search } = recallToolsOf(engine, "s");
    const top = (await search.execute("1", { query: "quasar-7 relay key", limit: 10 })).details
      .hits as Array<{
      id: string;
      kind: string;
    }>;
    expect(top).toHaveLength(10);
    expect(top.every((hit) => hit.kind === "message")).toBe(true);

    const all = (await search.execute("1", { query: "quasar-7 relay key", limit: 200 })).details
      .hits as Array<{
      kind: string;
    }>;
    // Still found with room to spare: they only stop crowding out the messages they cover.
    expect(all.some((hit) => hit.kind === "summary")).toBe(true);
  });
});
