import type { AgentMessage } from "@clew/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageDigest } from "../src/ingest/message-identity.js";
import type { LosslessEngine } from "../src/lossless-engine.js";
import { readBack, storeAndCompactFiveTimes } from "./support/compactions.js";
import {
  assistantText,
  codingConversation,
  fillerText,
  toolResult,
  userText,
} from "./support/conversations.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";

const NEEDLES = {
  user: "NDL-7K2M9QXA",
  assistant: "NDL-B4T8WZ3C",
  tool: "NDL-Q9D2H6LM",
  late: "NDL-X3V5R8NP",
} as const;

/** A coding conversation with needles planted at several depths and in three carriers. */
function conversationWithNeedles(): { messages: AgentMessage[]; ids: Record<keyof typeof NEEDLES, string> } {
  const messages = codingConversation(36, { toolOutputChars: 3_000 });
  const plant = (index: number, message: AgentMessage) => {
    messages.splice(index, 0, message);
  };
  const half = fillerText(10_000, 3);
  const toolCarrier = toolResult(
    "call_0",
    "read",
    `${half}\nthe deploy key for staging is ${NEEDLES.tool}\n${half}`,
    1_700_000_000_002,
  );
  // call_0 is the first turn's tool call: put the 20 KB result right after the fixture's own result.
  plant(3, toolCarrier);
  plant(10, userText(`Remember: the incident ticket is ${NEEDLES.user}.`, 1_700_000_000_500));
  plant(40, assistantText(`Noted, the rollback tag is ${NEEDLES.assistant}.`, 1_700_000_001_000));
  plant(90, userText(`Late fact: the build id is ${NEEDLES.late}.`, 1_700_000_002_000));
  const ids = Object.fromEntries(
    Object.entries(NEEDLES).map(([carrier, code]) => [
      carrier,
      `m${messages.findIndex((message) => JSON.stringify(message).includes(code)) + 1}`,
    ]),
  ) as Record<keyof typeof NEEDLES, string>;
  return { messages, ids };
}

const engines = new TempEngines();
const { messages, ids } = conversationWithNeedles();
let engine: LosslessEngine;

beforeAll(async () => {
  engine = await engines.engine();
  await storeAndCompactFiveTimes(engine, "needles", messages);
});
afterAll(() => engines.cleanup());

describe("needles after five compactions", () => {
  for (const [carrier, code] of Object.entries(NEEDLES) as Array<[keyof typeof NEEDLES, string]>) {
    it(`finds the ${carrier} needle with recall_search and reads it back byte-exact`, async () => {
      const { search } = recallToolsOf(engine, "needles");
      const result = await search.execute("search", { query: code, limit: 5 });
      const hitIds = (result.details.hits as Array<{ id: string }>).map((hit) => hit.id);
      expect(hitIds).toContain(ids[carrier]);
      const original = messages[Number(ids[carrier].slice(1)) - 1];
      expect(messageDigest(await readBack(engine, "needles", ids[carrier]))).toBe(messageDigest(original));
    });
  }

  it("has summarized every needle, with the code as an anchor linked to its message", async () => {
    const { describe } = recallToolsOf(engine, "needles");
    for (const [carrier, code] of Object.entries(NEEDLES) as Array<[keyof typeof NEEDLES, string]>) {
      const message = await describe.execute("describe", { id: ids[carrier] });
      const [leaf] = (message.details as { summarizedBy: string[] }).summarizedBy;
      expect(leaf, carrier).toBeDefined();
      const summary = await describe.execute("describe", { id: leaf ?? "" });
      const anchors = (summary.details as { anchors: Array<{ value: string; messages: string[] }> }).anchors;
      expect(anchors).toContainEqual({ value: code, messages: [ids[carrier]] });
    }
  });
});
