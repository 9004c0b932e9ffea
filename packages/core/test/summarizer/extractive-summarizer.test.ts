import { describe, expect, it } from "vitest";
import {
  type AgentMessage,
  containsVerbatim,
  createExtractiveSummarizer,
  extractIdentifiersFromMessages,
  MAX_SUMMARY_IDENTIFIERS,
  parseSummary,
  renderSummary,
  SUMMARY_SECTIONS,
} from "../../src/index.js";
import { assistantMessage, userMessage } from "../support.js";
import {
  bashExecutionMessage,
  loadPiSessionMessages,
  PI_SESSION_NAMES,
  toolCallMessage,
  toolResultMessage,
} from "./session-fixtures.js";

const summarizer = createExtractiveSummarizer();

const SPAN: AgentMessage[] = [
  userMessage("/mode"),
  userMessage("Migrate the store to SQLite. You must keep the JSONL export. Never delete user data."),
  toolCallMessage("read", { path: "src/store/jsonl.ts" }),
  toolResultMessage("read", "export function load() {} // TODO: this comment is file content, not a task"),
  toolCallMessage("edit", { path: "src/store/sqlite.ts", oldText: "a", newText: "b" }),
  toolResultMessage("edit", "Could not find the exact text in src/store/sqlite.ts.\nSecond line", {
    isError: true,
  }),
  toolCallMessage("read", { path: "src/store/index.ts" }),
  toolResultMessage("read", "ok"),
  bashExecutionMessage("npm test", "1 failed", 1),
  assistantMessage(
    "We decided to keep WAL mode on. TODO: add an index on session_id\n- [ ] benchmark 10k messages\n- [x] done thing\nNext I will run the tests. Then I will update the docs.",
  ),
  userMessage("Also, can you check the port 127.0.0.1:5432 config?"),
];

describe("extractive summarizer", () => {
  it("fills each section by its rule", async () => {
    const summary = await summarizer.summarize({ messages: SPAN, maxTokens: 4_000 });
    const { sections } = parseSummary(summary);
    expect(sections.Goal).toEqual([
      "Migrate the store to SQLite. You must keep the JSONL export. Never delete user data.",
    ]);
    expect(sections["Constraints & Rules"]).toEqual([
      "You must keep the JSONL export.",
      "Never delete user data.",
    ]);
    expect(sections.Progress).toEqual([
      "Tool calls: read ×2, edit ×1",
      "Files read: src/store/jsonl.ts, src/store/index.ts",
      "Files modified: src/store/sqlite.ts",
    ]);
    expect(sections["Key Decisions"]).toEqual(["We decided to keep WAL mode on."]);
    expect(sections["Open TODOs"]).toEqual([
      "We decided to keep WAL mode on. TODO: add an index on session_id",
      "- [ ] benchmark 10k messages",
    ]);
    expect(sections["Pending User Asks"]).toEqual(["Also, can you check the port 127.0.0.1:5432 config?"]);
    expect(sections["Next Steps"]).toEqual(["Next I will run the tests.", "Then I will update the docs."]);
    expect(sections["Critical Context"]).toEqual([
      "edit failed: Could not find the exact text in src/store/sqlite.ts.",
      "$ npm test exited with 1",
    ]);
    for (const identifier of ["src/store/jsonl.ts", "src/store/sqlite.ts", "127.0.0.1:5432", "npm test"]) {
      expect(containsVerbatim(summary, identifier), identifier).toBe(true);
    }
  });

  it("renders every section heading in order, even when empty", async () => {
    const summary = await summarizer.summarize({ messages: [userMessage("hi")], maxTokens: 1_000 });
    const headings = summary.split("\n").filter((line) => line.startsWith("## "));
    expect(headings).toEqual(SUMMARY_SECTIONS.map((section) => `## ${section}`));
    expect(parseSummary(summary).sections["Pending User Asks"]).toEqual(["hi"]);
  });

  it("merges with the previous summary: keeps its goal and items, appends new ones without duplicates", async () => {
    const previousSummary = renderSummary({
      Goal: ["Build the context runtime"],
      "Key Decisions": ["We decided to keep WAL mode on.", "Use o200k for budgets."],
      "Exact Identifiers": ["~/.clew/state.db", "…and 3 more identifiers"],
    });
    const summary = await summarizer.summarize({ messages: SPAN, previousSummary, maxTokens: 4_000 });
    const { sections } = parseSummary(summary);
    expect(sections.Goal).toEqual(["Build the context runtime"]);
    expect(sections["Key Decisions"]).toEqual(["We decided to keep WAL mode on.", "Use o200k for budgets."]);
    expect(sections["Exact Identifiers"]?.[0]).toBe("~/.clew/state.db");
    expect(summary).not.toContain("…and 3 more identifiers");
  });

  it("is deterministic", async () => {
    const messages = loadPiSessionMessages("large-session").slice(0, 300);
    const first = await summarizer.summarize({ messages, maxTokens: 3_000 });
    const second = await summarizer.summarize({ messages, maxTokens: 3_000 });
    expect(second).toBe(first);
  });

  it("trims the longest sections first and identifiers last to fit maxTokens", async () => {
    const chatter = Array.from({ length: 40 }, (_, index) =>
      assistantMessage(`We decided to try approach number ${index} for the long migration plan, carefully.`),
    );
    const messages = [
      userMessage(`Goal: ${"make it fast ".repeat(50)}`),
      ...chatter,
      userMessage("see NDL-7K2M9QXA"),
    ];
    const summary = await summarizer.summarize({ messages, maxTokens: 300 });
    expect(summary.length).toBeLessThanOrEqual(300 * 4);
    expect(containsVerbatim(summary, "NDL-7K2M9QXA")).toBe(true);
    const { sections } = parseSummary(summary);
    expect(sections["Key Decisions"]?.length).toBeLessThan(40);
    expect(sections["Key Decisions"]?.at(-1)).toContain("approach number 39");
  });

  it("drops identifiers only when nothing else can shrink, and counts them", async () => {
    const identifiers = Array.from({ length: 60 }, (_, index) => `/srv/data/file-${index}.bin`);
    const summary = await summarizer.summarize({
      messages: [userMessage(identifiers.join(" "))],
      maxTokens: 200,
    });
    expect(summary).toMatch(/- …and \d+ more identifiers/);
    expect(containsVerbatim(summary, identifiers[0] ?? "")).toBe(true);
  });

  it("rejects with the reason when the signal already fired", async () => {
    const controller = new AbortController();
    const reason = new Error("cancelled");
    controller.abort(reason);
    await expect(
      summarizer.summarize({ messages: SPAN, maxTokens: 500, signal: controller.signal }),
    ).rejects.toBe(reason);
  });
});

describe.each(PI_SESSION_NAMES)("extractive summarizer on the real pi session %s", (name) => {
  const messages = loadPiSessionMessages(name);
  let wholeSession: Promise<string> | undefined;
  // Both tests read the summary of the whole session; summarize it once.
  const summarizeWholeSession = () => {
    wholeSession ??= summarizer.summarize({ messages, maxTokens: 20_000 });
    return wholeSession;
  };

  it("keeps every identifier of the span verbatim, within the bound", async () => {
    const summary = await summarizeWholeSession();
    const identifiers = extractIdentifiersFromMessages(messages);
    expect(identifiers.length).toBeGreaterThan(MAX_SUMMARY_IDENTIFIERS);
    const missing = identifiers
      .slice(0, MAX_SUMMARY_IDENTIFIERS)
      .filter((identifier) => !containsVerbatim(summary, identifier));
    expect(missing).toEqual([]);
    expect(summary).toContain(`- …and ${identifiers.length - MAX_SUMMARY_IDENTIFIERS} more identifiers`);
    expect(summary.length).toBeLessThanOrEqual(20_000 * 4);
  });

  it("keeps every identifier of a smaller span verbatim", async () => {
    const span = messages.slice(0, 20);
    const summary = await summarizer.summarize({ messages: span, maxTokens: 20_000 });
    const identifiers = extractIdentifiersFromMessages(span);
    expect(identifiers.length).toBeGreaterThan(0);
    expect(identifiers.length).toBeLessThanOrEqual(MAX_SUMMARY_IDENTIFIERS);
    expect(identifiers.filter((identifier) => !containsVerbatim(summary, identifier))).toEqual([]);
  });

  it("covers the goal, progress, decisions, next steps and tool failures", async () => {
    const { sections } = parseSummary(await summarizeWholeSession());
    expect(sections.Goal?.[0]?.length).toBeGreaterThan(20);
    expect(sections.Progress?.[0]).toMatch(/^Tool calls: \w+ ×\d+/);
    expect(sections["Key Decisions"]?.length).toBeGreaterThan(0);
    expect(sections["Next Steps"]?.length).toBeGreaterThan(0);
    expect(sections["Critical Context"]?.some((item) => / failed: /.test(item))).toBe(true);
  });
});
