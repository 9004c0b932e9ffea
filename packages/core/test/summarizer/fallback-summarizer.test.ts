import { describe, expect, it } from "vitest";
import {
  createExtractiveSummarizer,
  createFallbackSummarizer,
  MemoryLogger,
  type SummarizeInput,
  type Summarizer,
  summarizeWithFallback,
} from "../../src/index.js";
import { userMessage } from "../support.js";

const INPUT: SummarizeInput = {
  messages: [userMessage("Ship the release notes for v2.1.0")],
  maxTokens: 500,
};

/** A primary summarizer whose behaviour each test chooses; records the inputs it was given. */
function primary(
  summarize: (input: SummarizeInput) => Promise<string>,
): Summarizer & { inputs: SummarizeInput[] } {
  const inputs: SummarizeInput[] = [];
  return {
    id: "model:test/primary",
    inputs,
    summarize: (input) => {
      inputs.push(input);
      return summarize(input);
    },
  };
}

const fallback = createExtractiveSummarizer();

describe("summarizeWithFallback", () => {
  it("returns the primary's summary and id when it succeeds", async () => {
    const result = await summarizeWithFallback(
      { primary: primary(async () => "## Goal\n- ship"), fallback, timeoutMs: 1_000 },
      INPUT,
    );
    expect(result).toEqual({ summary: "## Goal\n- ship", summarizerId: "model:test/primary" });
  });

  it("falls back when the primary throws, and logs one warning", async () => {
    const logger = new MemoryLogger();
    const result = await summarizeWithFallback(
      {
        primary: primary(() => Promise.reject(new Error("rate limited"))),
        fallback,
        timeoutMs: 1_000,
        logger,
      },
      INPUT,
    );
    expect(result.summarizerId).toBe("extractive");
    expect(result.summary).toBe(await fallback.summarize(INPUT));
    expect(logger.records).toHaveLength(1);
    expect(logger.records[0]?.level).toBe("warn");
    expect(logger.records[0]?.fields).toMatchObject({ primary: "model:test/primary", error: "rate limited" });
  });

  it("falls back when the primary answers only whitespace", async () => {
    const result = await summarizeWithFallback(
      { primary: primary(async () => "  \n"), fallback, timeoutMs: 1_000 },
      INPUT,
    );
    expect(result.summarizerId).toBe("extractive");
  });

  it("falls back on timeout even when the primary ignores its signal, and aborts the primary's signal", async () => {
    const slow = primary(() => new Promise<string>(() => {}));
    const started = Date.now();
    const result = await summarizeWithFallback({ primary: slow, fallback, timeoutMs: 30 }, INPUT);
    expect(result.summarizerId).toBe("extractive");
    expect(Date.now() - started).toBeLessThan(2_000);
    const signal = slow.inputs[0]?.signal;
    if (signal === undefined) throw new Error("the primary got no signal");
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).name).toBe("TimeoutError");
  });

  it("rethrows a caller abort during the primary instead of falling back", async () => {
    const controller = new AbortController();
    const reason = new Error("user pressed escape");
    const fallbackCalls: SummarizeInput[] = [];
    const recordingFallback: Summarizer = {
      id: "recording",
      summarize: async (input) => {
        fallbackCalls.push(input);
        return "fallback";
      },
    };
    const slow = primary(() => new Promise<string>(() => {}));
    const pending = summarizeWithFallback(
      { primary: slow, fallback: recordingFallback, timeoutMs: 10_000 },
      { ...INPUT, signal: controller.signal },
    );
    await Promise.resolve();
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(fallbackCalls).toEqual([]);
  });

  it("rethrows a caller abort that the primary turned into its own error", async () => {
    const controller = new AbortController();
    const reason = new Error("cancelled");
    const wrapping = primary(async () => {
      controller.abort(reason);
      throw new Error("request aborted by provider");
    });
    await expect(
      summarizeWithFallback(
        { primary: wrapping, fallback, timeoutMs: 1_000 },
        { ...INPUT, signal: controller.signal },
      ),
    ).rejects.toBe(reason);
  });

  it("rejects before calling anything when the caller already aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    const untouched = primary(async () => "never");
    await expect(
      summarizeWithFallback(
        { primary: untouched, fallback, timeoutMs: 1_000 },
        { ...INPUT, signal: controller.signal },
      ),
    ).rejects.toThrow("gone");
    expect(untouched.inputs).toEqual([]);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])(
    "rejects timeoutMs %s with a RangeError",
    async (timeoutMs) => {
      const options = { primary: primary(async () => "x"), fallback, timeoutMs };
      await expect(summarizeWithFallback(options, INPUT)).rejects.toThrow(RangeError);
      expect(() => createFallbackSummarizer(options)).toThrow(/timeoutMs must be a positive finite number/);
    },
  );
});

describe("createFallbackSummarizer", () => {
  it("is a Summarizer naming both ids, with summarizeWithSource reporting the producer", async () => {
    const summarizer = createFallbackSummarizer({
      primary: primary(() => Promise.reject(new Error("down"))),
      fallback,
      timeoutMs: 1_000,
    });
    expect(summarizer.id).toBe("model:test/primary|extractive");
    expect(await summarizer.summarize(INPUT)).toContain("## Goal\n- Ship the release notes for v2.1.0");
    expect((await summarizer.summarizeWithSource(INPUT)).summarizerId).toBe("extractive");
  });
});
