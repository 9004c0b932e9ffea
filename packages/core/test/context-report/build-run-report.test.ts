import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentMessage,
  type BuildRunReportInput,
  buildRunReport,
  buildSystemPrompt,
  charEstimateTokenCounter,
  compactionSummaryText,
  estimateRunReport,
  historyKindOf,
  messageChars,
  resolvePromptSettings,
  type TokenCounter,
  truncateWorkspaceFiles,
} from "../../src/index.js";
import { assistant, call, result, text, user } from "../pipeline/builders.js";
import {
  makeTempDir,
  NOW,
  promptInput,
  runtime,
  skills,
  tools,
  writeTree,
} from "../prompt/prompt-fixtures.js";

/** Counts one token per message, so token figures in the report are message counts. */
const perMessageCounter: TokenCounter = { id: "per-message", countText: () => 1, countMessage: () => 1 };

const messages: AgentMessage[] = [
  user(compactionSummaryText("Earlier we fixed the build.")),
  user("Please read a.txt"),
  assistant([text("Reading."), call("call-1")]),
  result("call-1", "file body"),
  assistant([text("Done.")]),
  { role: "branchSummary", summary: "left branch", fromId: "x", timestamp: 1 } as unknown as AgentMessage,
  { role: "bashExecution", command: "ls", output: "a.txt", timestamp: 1 } as unknown as AgentMessage,
];

function reportInput(overrides: Partial<BuildRunReportInput> = {}): BuildRunReportInput {
  const workspaceFiles = truncateWorkspaceFiles(
    [
      { name: "AGENTS.md", path: "/w/AGENTS.md", missing: false, content: "x".repeat(3_000) },
      { name: "SOUL.md", path: "/w/SOUL.md", missing: true },
      { name: "USER.md", path: "/w/USER.md", missing: false, content: "Ana.\n" },
    ],
    { maxChars: 1_000, totalMaxChars: 60_000 },
  );
  const prompt = buildSystemPrompt(
    promptInput({ files: workspaceFiles.files, truncationWarning: { mode: "once" } }),
  );
  return {
    source: "run",
    now: NOW,
    prompt,
    workspaceFiles,
    skills,
    tools,
    messages,
    counter: perMessageCounter,
    window: 200_000,
    contextTokens: 12_345,
    compactions: 2,
    sessionId: "s-1",
    sessionKey: "agent:main:main",
    provider: "anthropic",
    model: "claude-test",
    workspaceDir: "/w",
    engine: { configured: "lossless", effective: "legacy" },
    ...overrides,
  };
}

describe("buildRunReport", () => {
  it("records identity, bootstrap limits, warning and session figures", () => {
    const report = buildRunReport(reportInput());
    expect(report).toMatchObject({
      schemaVersion: 1,
      source: "run",
      generatedAt: NOW,
      sessionId: "s-1",
      sessionKey: "agent:main:main",
      provider: "anthropic",
      model: "claude-test",
      workspaceDir: "/w",
      engine: { configured: "lossless", effective: "legacy" },
      bootstrap: {
        maxChars: 1_000,
        totalMaxChars: 60_000,
        warningMode: "once",
        warningShown: true,
        truncatedFiles: 1,
      },
      session: { contextTokens: 12_345, window: 200_000, compactions: 2 },
    });
  });

  it("reports each injected file with status, raw and injected size, and the cause of a cut", () => {
    const report = buildRunReport(reportInput());
    expect(report.injectedWorkspaceFiles).toEqual([
      {
        name: "AGENTS.md",
        path: "/w/AGENTS.md",
        status: "TRUNCATED",
        rawChars: 3_000,
        injectedChars: expect.any(Number),
        causes: ["per-file-limit"],
      },
      { name: "SOUL.md", path: "/w/SOUL.md", status: "MISSING", rawChars: 0, injectedChars: 0 },
      { name: "USER.md", path: "/w/USER.md", status: "OK", rawChars: 4, injectedChars: 4 },
    ]);
    expect(report.injectedWorkspaceFiles[0]?.injectedChars).toBeLessThanOrEqual(1_000);
  });

  it("measures the prompt by section, the engine addition included, and Project Context to its end", () => {
    const input = reportInput({ engineAddition: "Engine memory: likes tea." });
    const report = buildRunReport(input);
    const finalText = `Engine memory: likes tea.\n\n${input.prompt.text}`;
    const projectSection = input.prompt.sections.at(-1)?.text ?? "";
    expect(report.systemPrompt).toEqual({
      chars: finalText.length,
      projectContextChars: projectSection.length + 1,
      nonProjectContextChars: finalText.length - projectSection.length - 1,
      sections: [
        { name: "Engine addition", chars: "Engine memory: likes tea.".length },
        ...input.prompt.sections.map((section) => ({ name: section.name, chars: section.text.length })),
      ],
      engineAdditionChars: "Engine memory: likes tea.".length,
      hash: createHash("sha256").update(finalText).digest("hex"),
    });
    expect(
      finalText.slice(-report.systemPrompt.projectContextChars).startsWith("\n# Project Context\n"),
    ).toBe(true);
  });

  it("finds Project Context even when an injected file repeats its heading", () => {
    const workspaceFiles = truncateWorkspaceFiles(
      [
        {
          name: "AGENTS.md",
          path: "/w/AGENTS.md",
          missing: false,
          content: "intro\n# Project Context\nfake",
        },
      ],
      { maxChars: 1_000, totalMaxChars: 1_000 },
    );
    const prompt = buildSystemPrompt(promptInput({ files: workspaceFiles.files }));
    const report = buildRunReport(reportInput({ prompt, workspaceFiles }));
    expect(report.systemPrompt.projectContextChars).toBe((prompt.sections.at(-1)?.text.length ?? 0) + 1);
  });

  it("reports the skills list size and each skill's entry size", () => {
    const input = reportInput();
    const report = buildRunReport(input);
    const skillsSection = input.prompt.sections.find((section) => section.name === "Skills")?.text ?? "";
    const entry =
      "<skill><name>pdf</name><description>Work with &lt;PDF&gt; files &amp; forms.</description><location>/skills/pdf/SKILL.md</location></skill>";
    expect(report.skills).toEqual({
      promptChars: skillsSection.length,
      entries: [
        {
          name: "pdf",
          description: "Work with <PDF> files & forms.",
          location: "/skills/pdf/SKILL.md",
          blockChars: entry.length,
        },
      ],
    });
  });

  it("reports the tool list text and each tool's summary and schema size", () => {
    const input = reportInput();
    const report = buildRunReport(input);
    const readSchema = JSON.stringify(tools[0]?.parameters);
    const execSchema = JSON.stringify(tools[1]?.parameters);
    expect(report.tools).toEqual({
      listChars: input.prompt.sections.find((section) => section.name === "Tooling")?.text.length,
      schemaChars: readSchema.length + execSchema.length,
      entries: [
        {
          name: "read",
          summaryChars: "Read a file from the workspace.\nLonger explanation the list leaves out.".length,
          schemaChars: readSchema.length,
          propertiesCount: 2,
        },
        {
          name: "exec",
          summaryChars: "Run a shell command.".length,
          schemaChars: execSchema.length,
          propertiesCount: 0,
        },
        { name: "noop", summaryChars: "No-op".length, schemaChars: 0, propertiesCount: null },
      ],
    });
  });

  it("splits the history by kind, summaries included, in chars and counted tokens", () => {
    const report = buildRunReport(reportInput());
    expect(report.history.messages).toBe(7);
    expect(report.history.counter).toBe("per-message");
    expect(report.history.tokens).toEqual({ user: 1, assistant: 2, toolResults: 1, summaries: 2, other: 1 });
    expect(report.history.chars).toEqual({
      user: messageChars(messages[1] as AgentMessage),
      assistant: messageChars(messages[2] as AgentMessage) + messageChars(messages[4] as AgentMessage),
      toolResults: messageChars(messages[3] as AgentMessage),
      summaries: messageChars(messages[0] as AgentMessage) + messageChars(messages[5] as AgentMessage),
      other: messageChars(messages[6] as AgentMessage),
    });
  });

  it("classifies a branch summary the pipeline turned into user text as a summary", () => {
    const converted = user(
      "Summary of a branch of this conversation that was left:\n<summary>\nx\n</summary>",
    );
    expect(historyKindOf(converted)).toBe("summaries");
    expect(historyKindOf(user("A summary of my day, please"))).toBe("user");
  });

  it("is deterministic and defaults unknown session figures", () => {
    const input = reportInput({ contextTokens: undefined, compactions: undefined, engine: undefined });
    const report = buildRunReport(input);
    expect(buildRunReport(input)).toEqual(report);
    expect(report.session).toEqual({ contextTokens: null, window: 200_000, compactions: 0 });
    expect("engine" in report).toBe(false);
  });

  it("hashes the prompt the model got when the caller passes it", () => {
    const input = reportInput();
    const plain = buildRunReport(input);
    const changed = buildRunReport({ ...input, finalPromptText: `${input.prompt.text}\nprovider suffix` });
    expect(changed.systemPrompt.hash).not.toBe(plain.systemPrompt.hash);
    expect(changed.systemPrompt.chars).toBe(plain.systemPrompt.chars + "\nprovider suffix".length);
  });
});

describe("estimateRunReport", () => {
  let root: { path: string; dispose: () => Promise<void> };
  beforeEach(async () => {
    root = await makeTempDir("clew-estimate-");
  });
  afterEach(async () => {
    await root.dispose();
  });

  it("builds the next run's prompt from disk and labels the report as an estimate", async () => {
    const workspaceDir = join(root.path, "ws");
    await writeTree(workspaceDir, { "AGENTS.md": "Estimate me." });
    const report = await estimateRunReport({
      workspaceDir,
      firstRun: false,
      home: join(root.path, "home"),
      tools,
      settings: resolvePromptSettings({}),
      runtime,
      now: NOW,
      messages: [user("hi")],
      counter: charEstimateTokenCounter,
      window: 32_000,
      sessionKey: "agent:main:main",
    });
    expect(report.source).toBe("estimate");
    expect(report.workspaceDir).toBe(workspaceDir);
    expect(report.sessionKey).toBe("agent:main:main");
    expect(report.injectedWorkspaceFiles[0]).toMatchObject({ name: "AGENTS.md", status: "OK", rawChars: 12 });
    expect(report.history.tokens.user).toBe(1);
    expect(buildRunReport(reportInput()).source).toBe("run");
  });
});
