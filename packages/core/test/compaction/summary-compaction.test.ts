import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentMessage,
  buildSessionContext,
  type CompactionEntry,
  charEstimateTokenCounter,
  compactTranscript,
  createModelSummarizer,
  createRuntimeCompaction,
  type SummarizeInput,
  type Transcript,
  TranscriptHostSession,
} from "../../src/index.js";
import { JsonlTranscriptStore } from "../../src/transcript/jsonl/jsonl-transcript-store.js";
import { createTestHost } from "../support.js";
import { toolCallTurn } from "./entry-builders.js";

let home: string;
let store: JsonlTranscriptStore;
/** Transcripts the test opened: closed after it, so no file handle is left for GC to close. */
let opened: Transcript[];
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-compaction-"));
  store = new JsonlTranscriptStore({ home });
  opened = [];
});
afterEach(async () => {
  await Promise.all(opened.map((transcript) => transcript.close()));
  await rm(home, { recursive: true, force: true });
});

async function transcriptWith(messages: AgentMessage[]): Promise<Transcript> {
  const transcript = await store.create({ agentId: "main", sessionId: "s1" });
  opened.push(transcript);
  await transcript.append(messages.map((message) => ({ type: "message" as const, message })));
  return transcript;
}

function conversation(turns: number, resultChars = 2_000): AgentMessage[] {
  return Array.from({ length: turns }, (_, turn) => toolCallTurn(turn, 1, resultChars)).flat();
}

const fixedSummary = (summary: string) => {
  const inputs: SummarizeInput[] = [];
  return {
    inputs,
    options: {
      summarize: async (input: SummarizeInput) => {
        inputs.push(input);
        return { summary, summarizerId: "fixed" };
      },
      preserveIdentifiers: (text: string) => text,
      counter: charEstimateTokenCounter,
      keepRecentTokens: 1_000,
    },
  };
};

describe("compactTranscript", () => {
  it("appends one compaction entry and keeps every stored message", async () => {
    const transcript = await transcriptWith(conversation(20));
    const { options } = fixedSummary("## Goal\nread the modules");
    const result = await compactTranscript(transcript, {}, options);
    expect(result.ok && result.compacted).toBe(true);
    const entries = transcript.entries();
    expect(entries.filter((entry) => entry.type === "message")).toHaveLength(80);
    const compaction = entries.at(-1) as CompactionEntry;
    expect(compaction).toMatchObject({ type: "compaction", summarizer: "fixed" });
    expect(compaction.summary.startsWith("## Goal\nread the modules")).toBe(true);
    expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
    expect(result.result?.firstKeptEntryId).toBe(compaction.firstKeptEntryId);
    const context = buildSessionContext(transcript.branch());
    expect((context.messages[0] as unknown as { role: string }).role).toBe("compactionSummary");
    expect(context.entryIds[1]).toBe(compaction.firstKeptEntryId);
  });

  it("reports nothing to compact, and writes nothing, when history fits the recent window", async () => {
    const transcript = await transcriptWith(conversation(2, 100));
    const { options, inputs } = fixedSummary("x");
    const result = await compactTranscript(transcript, {}, { ...options, keepRecentTokens: 50_000 });
    expect(result).toMatchObject({ ok: true, compacted: false });
    expect(inputs).toEqual([]);
    expect(transcript.entries().some((entry) => entry.type === "compaction")).toBe(false);
  });

  it("does not compact when the summary would not shrink the context", async () => {
    const transcript = await transcriptWith(conversation(4, 10));
    const { options } = fixedSummary("s".repeat(50_000));
    const result = await compactTranscript(transcript, {}, { ...options, keepRecentTokens: 10 });
    expect(result.compacted).toBe(false);
    expect(result.reason).toContain("would not shrink");
    expect(transcript.entries().some((entry) => entry.type === "compaction")).toBe(false);
  });

  it("updates the previous summary instead of summarizing it as conversation", async () => {
    const transcript = await transcriptWith(conversation(20));
    const first = fixedSummary("first summary");
    await compactTranscript(transcript, {}, first.options);
    await transcript.append(conversation(20).map((message) => ({ type: "message" as const, message })));
    const second = fixedSummary("second summary");
    await compactTranscript(transcript, { customInstructions: "focus on module 3" }, second.options);
    const input = second.inputs.find((candidate) => candidate.kind === "history");
    expect(input?.previousSummary?.startsWith("first summary")).toBe(true);
    expect(input?.customInstructions).toBe("focus on module 3");
    expect(
      input?.messages.some((message) => (message as { role: string }).role === "compactionSummary"),
    ).toBe(false);
    const compactions = transcript.entries().filter((entry) => entry.type === "compaction");
    expect(compactions).toHaveLength(2);
  });

  it("restores identifiers the summarizer dropped, by code", async () => {
    const messages = conversation(12);
    messages.splice(0, 1, {
      role: "user",
      content: "Deploy build 9f3c2ab1 to https://staging.example.com/v2 and check /var/log/app/error.log",
      timestamp: 1,
    });
    const transcript = await transcriptWith(messages);
    const compactor = createRuntimeCompaction({
      counter: charEstimateTokenCounter,
      keepRecentTokens: 1_000,
      modelSummarizer: createModelSummarizer({
        id: "model:test/forgetful",
        complete: async () => "## Goal\nDeploy it.",
      }),
    });
    const session = new TranscriptHostSession(transcript, store, {
      sessionKey: "agent:main:s1",
      existedBefore: true,
    });
    const result = await compactor({ sessionId: "s1", workspaceDir: home }, session);
    const summary = result.result?.summary ?? "";
    for (const identifier of ["9f3c2ab1", "https://staging.example.com/v2", "/var/log/app/error.log"]) {
      expect(summary).toContain(identifier);
    }
    expect((transcript.entries().at(-1) as CompactionEntry).summarizer).toBe("model:test/forgetful");
  });

  it("falls back to the extractive summarizer when the model summarizer fails", async () => {
    const transcript = await transcriptWith(conversation(12));
    const compactor = createRuntimeCompaction({
      counter: charEstimateTokenCounter,
      keepRecentTokens: 1_000,
      modelSummarizer: createModelSummarizer({
        id: "model:test/broken",
        complete: async () => {
          throw new Error("503 overloaded");
        },
      }),
    });
    const session = new TranscriptHostSession(transcript, store, {
      sessionKey: "agent:main:s1",
      existedBefore: true,
    });
    const result = await compactor({ sessionId: "s1", workspaceDir: home }, session);
    expect(result.compacted).toBe(true);
    const entry = transcript.entries().at(-1) as CompactionEntry;
    expect(entry.summarizer).toBe("extractive");
    expect(entry.summary).toContain("## Goal");
  });

  it("writes nothing when aborted while summarizing", async () => {
    const transcript = await transcriptWith(conversation(12));
    const controller = new AbortController();
    const options = {
      ...fixedSummary("x").options,
      summarize: async () => {
        controller.abort(new Error("user cancelled"));
        return { summary: "late", summarizerId: "fixed" };
      },
    };
    await expect(compactTranscript(transcript, { signal: controller.signal }, options)).rejects.toThrow(
      "user cancelled",
    );
    expect(transcript.entries().some((entry) => entry.type === "compaction")).toBe(false);
  });

  it("reaches the summarizer from /compact on the legacy engine, with the instructions", async () => {
    const transcript = await transcriptWith(conversation(12));
    const summarized: SummarizeInput[] = [];
    const runtimeCompaction = createRuntimeCompaction({
      counter: charEstimateTokenCounter,
      keepRecentTokens: 1_000,
      modelSummarizer: {
        id: "model:test/recording",
        summarize: async (input) => {
          summarized.push(input);
          return "## Goal\nrecorded";
        },
      },
    });
    const { host } = createTestHost({ runtimeCompaction });
    const session = new TranscriptHostSession(transcript, store, {
      sessionKey: "agent:main:s1",
      existedBefore: true,
    });
    const outcome = await host.compactManually(session, { customInstructions: "keep the module list" });
    expect(outcome.result.compacted).toBe(true);
    expect(summarized[0]?.customInstructions).toBe("keep the module list");
    const messages = await session.messages();
    expect((messages[0] as unknown as { summary: string }).summary).toContain("recorded");
  });
});
