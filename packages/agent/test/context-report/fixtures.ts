/**
 * Realistic run reports for the `/context` tests: the sizes of a coding agent with a workspace of
 * bootstrap files (one cut at max/file, one at max/total, one missing), a dozen skills and 36
 * tools, after a long session with one compaction. Built so the report agrees with itself:
 * sections add up to the prompt, Project Context holds the files and their frame.
 */
import { createHash } from "node:crypto";
import type { ContextRunReport } from "@clew/core";

type InjectedFile = ContextRunReport["injectedWorkspaceFiles"][number];
type ToolEntry = ContextRunReport["tools"]["entries"][number];

const WORKSPACE_FILES: InjectedFile[] = [
  file("AGENTS.md", "OK", 1742, 1742),
  file("SOUL.md", "OK", 912, 912),
  file("TOOLS.md", "TRUNCATED", 54_210, 12_000, ["per-file-limit"]),
  file("IDENTITY.md", "OK", 211, 211),
  file("USER.md", "OK", 388, 388),
  file("MEMORY.md", "TRUNCATED", 9_804, 6_417),
  file("HEARTBEAT.md", "MISSING", 0, 0),
  file("BOOTSTRAP.md", "OK", 0, 0),
];

const SKILLS: Array<[name: string, blockChars: number]> = [
  ["frontend-design", 412],
  ["oracle", 401],
  ["pdf-forms", 388],
  ["spreadsheet", 352],
  ["release-notes", 331],
  ["git-bisect", 298],
  ["sql-migrations", 284],
  ["weather", 201],
  ["summarize", 187],
  ["translate", 176],
  ["calendar-sync", 166],
  ["haiku", 102],
];

/** name, summary chars, schema chars, property count (null: no `properties`). */
const TOOLS: Array<[string, number, number, number | null]> = [
  ["read", 118, 612, 3],
  ["edit", 164, 1_284, 4],
  ["write", 96, 488, 2],
  ["exec", 212, 6_240, 9],
  ["process", 140, 2_318, 6],
  ["browser", 266, 9_812, 14],
  ["message", 150, 3_104, 8],
  ["sessions_send", 122, 1_062, 4],
  ["sessions_list", 88, 540, 3],
  ["sessions_history", 104, 702, 4],
  ["sessions_spawn", 180, 1_734, 7],
  ["session_status", 72, 196, 1],
  ["web_search", 134, 1_006, 5],
  ["web_fetch", 120, 824, 3],
  ["image", 98, 1_118, 5],
  ["canvas", 156, 2_904, 10],
  ["cron", 142, 2_210, 8],
  ["gateway", 110, 1_486, 6],
  ["nodes", 128, 2_460, 9],
  ["memory_search", 116, 668, 3],
  ["memory_get", 84, 402, 2],
  ["apply_patch", 190, 512, 1],
  ["grep", 102, 934, 6],
  ["find", 90, 610, 4],
  ["ls", 60, 288, 2],
  ["tts", 80, 366, 2],
  ["agents_list", 70, 152, null],
  ["subagents", 146, 1_210, 5],
  ["todo_write", 132, 1_640, 2],
  ["notebook_edit", 124, 1_092, 5],
  ["calendar", 112, 1_380, 6],
  ["email_send", 100, 1_044, 5],
  ["github_pr", 138, 1_962, 8],
  ["github_issue", 126, 1_706, 7],
  ["jira", 118, 1_534, 7],
  ["slack_post", 94, 872, 4],
];

export interface SampleReportOptions {
  source?: ContextRunReport["source"];
  /** Number of tools from the list above to keep; default all 36. */
  toolCount?: number;
  engineAdditionChars?: number;
  files?: InjectedFile[];
  history?: ContextRunReport["history"];
  contextTokens?: number | null;
}

/** A run report of a long session; options change one aspect at a time. */
export function sampleRunReport(options: SampleReportOptions = {}): ContextRunReport {
  const files = options.files ?? WORKSPACE_FILES;
  const tools: ToolEntry[] = TOOLS.slice(0, options.toolCount ?? TOOLS.length).map(
    ([name, summaryChars, schemaChars, propertiesCount]) => ({
      name,
      summaryChars,
      schemaChars,
      propertiesCount,
    }),
  );
  const skillEntries = SKILLS.map(([name, blockChars]) => ({
    name,
    description: `Use when the task involves ${name.replace("-", " ")}.`,
    location: `/home/dev/.clew/skills/${name}/SKILL.md`,
    blockChars,
  }));
  const listChars = tools.reduce((total, tool) => total + tool.summaryChars + tool.name.length + 4, 0);
  const skillsPromptChars = skillEntries.reduce((total, entry) => total + entry.blockChars, 0) + 214;
  const injected = files.reduce((total, entry) => total + entry.injectedChars, 0);
  const projectContextChars = injected + 38 + files.length * 24 + 640;
  const engineAdditionChars = options.engineAdditionChars ?? 0;
  const sections = [
    { name: "Engine addition", chars: engineAdditionChars },
    { name: "Identity", chars: 1_204 },
    { name: "Tooling", chars: listChars + 96 },
    { name: "Skills", chars: skillsPromptChars },
    { name: "Workspace", chars: 412 },
    { name: "Runtime", chars: 338 },
    { name: "Project Context", chars: projectContextChars },
    { name: "Silent Replies", chars: 702 },
  ].filter((section) => section.chars > 0);
  const chars = sections.reduce((total, section) => total + section.chars, 0);
  const source = options.source ?? "run";
  return {
    schemaVersion: 1,
    source,
    generatedAt: Date.UTC(2026, 4, 11, 20, 30, 3),
    sessionId: "3f2b9c1e-5d7a-4c1b-9e2f-8a6d4b2c1f00",
    sessionKey: "agent:main:main",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    workspaceDir: "/home/dev/projects/atlas",
    engine: { configured: "legacy", effective: "legacy" },
    bootstrap: {
      maxChars: 12_000,
      totalMaxChars: 32_000,
      warningMode: "once",
      warningShown: true,
      truncatedFiles: files.filter((entry) => entry.status === "TRUNCATED").length,
    },
    systemPrompt: {
      chars,
      projectContextChars,
      nonProjectContextChars: chars - projectContextChars,
      sections,
      engineAdditionChars,
      hash: createHash("sha256").update(`prompt:${chars}`).digest("hex"),
    },
    injectedWorkspaceFiles: files,
    skills: { promptChars: skillsPromptChars, entries: skillEntries },
    tools: {
      listChars,
      schemaChars: tools.reduce((total, tool) => total + tool.schemaChars, 0),
      entries: tools,
    },
    history: options.history ?? {
      messages: 48,
      chars: { user: 8_420, assistant: 21_760, toolResults: 64_310, summaries: 3_950, other: 0 },
      tokens: { user: 2_190, assistant: 5_602, toolResults: 17_944, summaries: 1_011, other: 0 },
      counter: "o200k",
    },
    session: {
      contextTokens: options.contextTokens === undefined ? 52_418 : options.contextTokens,
      window: 200_000,
      compactions: 1,
    },
  };
}

/** What `/context` computes for a session that has not run yet: no history, no provider figure. */
export function sampleEstimateReport(): ContextRunReport {
  const report = sampleRunReport({
    source: "estimate",
    toolCount: 8,
    files: [
      file("AGENTS.md", "OK", 1742, 1742),
      file("SOUL.md", "OK", 912, 912),
      file("HEARTBEAT.md", "MISSING", 0, 0),
    ],
    history: {
      messages: 0,
      chars: { user: 0, assistant: 0, toolResults: 0, summaries: 0, other: 0 },
      tokens: { user: 0, assistant: 0, toolResults: 0, summaries: 0, other: 0 },
    },
    contextTokens: null,
  });
  const { engine: _engine, workspaceDir: _workspaceDir, ...rest } = report;
  return { ...rest, session: { ...rest.session, compactions: 0 } };
}

/** `causes` left out on purpose for some files: reports written before causes existed. */
export function file(
  name: string,
  status: InjectedFile["status"],
  rawChars: number,
  injectedChars: number,
  causes?: InjectedFile["causes"],
): InjectedFile {
  const path = `/home/dev/projects/atlas/${name}`;
  return causes === undefined
    ? { name, path, status, rawChars, injectedChars }
    : { name, path, status, rawChars, injectedChars, causes };
}
