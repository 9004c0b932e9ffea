import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageDigest } from "../src/ingest/message-identity.js";
import type { LosslessEngine } from "../src/lossless-engine.js";
import { readBack, storeAndCompactFiveTimes } from "./support/compactions.js";
import { longConversation } from "./support/conversations.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
const messages = longConversation(40);
let engine: LosslessEngine;

beforeAll(async () => {
  engine = await engines.engine();
  await storeAndCompactFiveTimes(engine, "trip", messages);
});
afterAll(() => engines.cleanup());

describe("lossless round trip after five compactions", () => {
  it("returns every message byte for byte (sha256 of canonical JSON) through recall_read", async () => {
    const digests = await Promise.all(messages.map((_, index) => readBack(engine, "trip", `m${index + 1}`)));
    expect(digests.map(messageDigest)).toEqual(messages.map(messageDigest));
  });

  it("reads the sources of the root summary in pages, in order, without gaps", async () => {
    const first = (await engine.assemble({ sessionId: "trip", messages, tokenBudget: 4_000 })).messages[0];
    const rootId = /id="(sum_[0-9a-f]+)"/.exec(String((first as { content?: unknown }).content))?.[1];
    expect(rootId).toBeDefined();
    const { read } = recallToolsOf(engine, "trip");
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 100; page++) {
      const result = await read.execute("read", {
        summaryId: rootId,
        maxTokens: 2_000,
        ...(cursor ? { cursor } : {}),
      });
      for (const entry of result.details.messages) if (seen.at(-1) !== entry.id) seen.push(entry.id);
      expect(result.details.tokens).toBeLessThanOrEqual(2_000);
      cursor = result.details.nextCursor;
      if (cursor === undefined) break;
    }
    const numbers = seen.map((id) => Number(id.slice(1)));
    expect(numbers[0]).toBe(1);
    expect(numbers).toEqual(numbers.map((_, index) => index + 1));
  });
});
