/**
 * The behaviour every wire protocol must show through pi-ai and `callModel`, run once per
 * protocol against its fake server.
 */

import { type FakeProtocol, type FakeProvider, type FakeReply, startFakeProvider } from "@clew/agent/testing";
import type { AssistantMessageEvent } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it } from "vitest";
import { callModel, isOverflowMessage } from "../../src/providers/call-model.js";
import { FAKE_CONTEXT_WINDOW, READ_TOOL, resolveFake, userMessage } from "./helpers.js";

export interface ProtocolExpectations {
  /** The tool call id pi-ai reports for the fake's call id `call_7` (and item id, if any). */
  toolCallId: string;
  /** A fragment of the overflow error message pi-ai reports. */
  overflowText: string;
}

export function describeProtocol(protocol: FakeProtocol, expectations: ProtocolExpectations): void {
  describe(`${protocol} through pi-ai`, () => {
    const fakes: FakeProvider[] = [];
    afterEach(async () => {
      await Promise.all(fakes.splice(0).map((fake) => fake.close()));
    });
    async function fakeAnswering(reply: FakeReply): Promise<FakeProvider> {
      const fake = await startFakeProvider({ protocol, script: () => reply });
      fakes.push(fake);
      return fake;
    }
    const request = {
      systemPrompt: "You are Clew.",
      messages: [userMessage("Say hello")],
      tools: [READ_TOOL],
    };

    it("streams a text reply as deltas and returns usage and the cost of the configured prices", async () => {
      const fake = await fakeAnswering({
        text: "Hello from the fake",
        usage: { input: 1000, output: 200, cacheRead: 400 },
      });
      const events: AssistantMessageEvent[] = [];
      const message = await callModel(resolveFake(fake), request, { onEvent: (event) => events.push(event) });

      expect(message.stopReason).toBe("stop");
      expect(message.content).toEqual([
        expect.objectContaining({ type: "text", text: "Hello from the fake" }),
      ]);
      const deltas = events.flatMap((event) => (event.type === "text_delta" ? [event.delta] : []));
      expect(deltas).toEqual(["Hello ", "from ", "the ", "fake"]);
      expect(events[0]?.type).toBe("start");
      expect(events.at(-1)?.type).toBe("done");
      expect(message.usage).toMatchObject({ input: 1000, output: 200, cacheRead: 400, totalTokens: 1600 });
      // $2/M input, $10/M output, $0.50/M cache reads.
      expect(message.usage.cost.input).toBeCloseTo(0.002, 10);
      expect(message.usage.cost.output).toBeCloseTo(0.002, 10);
      expect(message.usage.cost.cacheRead).toBeCloseTo(0.0002, 10);
      expect(message.usage.cost.total).toBeCloseTo(0.0042, 10);
    });

    it("returns tool calls with parsed arguments and stopReason toolUse", async () => {
      const fake = await fakeAnswering({
        toolCalls: [{ id: "call_7", name: "read_file", arguments: { path: "src/main.ts", lines: [1, 20] } }],
      });
      const message = await callModel(resolveFake(fake), request);

      expect(message.stopReason).toBe("toolUse");
      expect(message.content).toEqual([
        {
          type: "toolCall",
          id: expectations.toolCallId,
          name: "read_file",
          arguments: { path: "src/main.ts", lines: [1, 20] },
        },
      ]);
    });

    it("resolves a context-overflow error as a message that isOverflowMessage recognises", async () => {
      const fake = await fakeAnswering({ overflow: true });
      const message = await callModel(resolveFake(fake), request);

      expect(message.stopReason).toBe("error");
      expect(message.errorMessage).toContain(expectations.overflowText);
      expect(isOverflowMessage(message, FAKE_CONTEXT_WINDOW)).toBe(true);
      expect(fake.requests).toHaveLength(1);
    });

    it("resolves a server error as an error message that is not an overflow", async () => {
      const fake = await fakeAnswering({ status: 503, error: "upstream unavailable" });
      const message = await callModel(resolveFake(fake), request, { maxRetries: 0 });

      expect(message.stopReason).toBe("error");
      expect(message.errorMessage).toContain("upstream unavailable");
      expect(isOverflowMessage(message, FAKE_CONTEXT_WINDOW)).toBe(false);
    });

    it("resolves with stopReason aborted when the signal fires mid-stream", async () => {
      const words = Array.from({ length: 20 }, (_, index) => `word${index}`);
      const fake = await fakeAnswering({ text: words.join(" "), chunkDelayMs: 100 });
      const controller = new AbortController();
      const started = Date.now();
      const message = await callModel(resolveFake(fake), request, {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === "text_delta") controller.abort();
        },
      });

      expect(message.stopReason).toBe("aborted");
      expect(message.errorMessage).toBeDefined();
      const received = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      expect(received.length).toBeLessThan(words.join(" ").length);
      // Streaming the whole reply takes over two seconds; the abort ends the call at once.
      expect(Date.now() - started).toBeLessThan(1_500);
    });
  });
}
