import { createHash } from "node:crypto";
import { compactionSummaryText } from "../compaction/session-context.js";
import type { AgentMessage } from "../messages.js";
import {
  type BuiltSystemPrompt,
  PROMPT_SECTION_NAMES,
  withEngineAddition,
} from "../prompt/build-system-prompt.js";
import type { SkillEntry } from "../prompt/load-skills.js";
import { type PrepareSystemPromptOptions, prepareSystemPrompt } from "../prompt/prepare-system-prompt.js";
import { type PromptTool, renderSkillEntry } from "../prompt/prompt-sections.js";
import type { TruncatedWorkspaceFiles } from "../prompt/truncate-workspace-files.js";
import { messageChars } from "../tokens/estimate.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { ContextRunReport, HistoryBreakdown } from "./run-report.js";

/** Who the report is about; every field is optional and left out of the report when unset. */
export interface RunReportIdentity {
  sessionId?: string;
  sessionKey?: string;
  provider?: string;
  model?: string;
  workspaceDir?: string;
  engine?: { configured: string; effective: string };
}

/** What the model got and what the session looks like, shared by runs and estimates. */
export interface RunReportContext extends RunReportIdentity {
  /** The messages sent to the model (after the engine's assembly and pruning). */
  messages: readonly AgentMessage[];
  counter: TokenCounter;
  window: number;
  /** Prompt tokens the provider reported for the run's last call; null when unknown. */
  contextTokens?: number | null;
  compactions?: number;
}

export interface BuildRunReportInput extends RunReportContext {
  source: "run" | "estimate";
  /** Epoch milliseconds, recorded as `generatedAt`. */
  now: number;
  prompt: BuiltSystemPrompt;
  /** The engine's `systemPromptAddition`, when the host put it in front after building. */
  engineAddition?: string;
  /** The system prompt text the model got; defaults to the prompt with the addition in front. */
  finalPromptText?: string;
  workspaceFiles: TruncatedWorkspaceFiles;
  skills: readonly SkillEntry[];
  /** The tools whose schemas were sent with the request. */
  tools: readonly PromptTool[];
}

const PROJECT_CONTEXT_MARKER = "\n# Project Context\n";

// User text that opens with one of these is a summary the history pipeline turned into a user
// message (compaction summaries, and branch summaries as the pipeline and the session context word them).
const SUMMARY_HEADINGS = [
  compactionSummaryText("").split("\n")[0] ?? "",
  "Summary of a branch of this conversation that was left:",
  "The following is a summary of a branch that this conversation came back from:",
];

/**
 * Builds the run report of one model run (or an estimate, per `source`) from what the run was made
 * of. Deterministic for the same input: no clock or randomness is read. Sizes are string lengths
 * of the text as sent; `history.tokens` uses `counter`. Never throws for odd messages or tool
 * schemas (an unserializable schema counts 0 chars); never mutates its input.
 */
export function buildRunReport(input: BuildRunReportInput): ContextRunReport {
  const prompt = withEngineAddition(input.prompt, input.engineAddition);
  const finalText = input.finalPromptText ?? prompt.text;
  const sectionText = (name: string) => prompt.sections.find((section) => section.name === name)?.text;
  const projectContextChars = measureProjectContext(
    finalText,
    sectionText(PROMPT_SECTION_NAMES.projectContext),
  );
  const analysis = input.workspaceFiles.analysis;
  const report: ContextRunReport = {
    schemaVersion: 1,
    source: input.source,
    generatedAt: input.now,
    ...identityOf(input),
    bootstrap: {
      maxChars: analysis.maxChars,
      totalMaxChars: analysis.totalMaxChars,
      warningMode: prompt.truncationWarning.mode,
      warningShown: prompt.truncationWarning.shown,
      truncatedFiles: analysis.truncatedFiles,
    },
    systemPrompt: {
      chars: finalText.length,
      projectContextChars,
      nonProjectContextChars: Math.max(0, finalText.length - projectContextChars),
      sections: prompt.sections.map((section) => ({ name: section.name, chars: section.text.length })),
      engineAdditionChars: sectionText(PROMPT_SECTION_NAMES.engineAddition)?.length ?? 0,
      hash: createHash("sha256").update(finalText).digest("hex"),
    },
    injectedWorkspaceFiles: input.workspaceFiles.files.map((file) => ({
      name: file.name,
      path: file.path,
      status: file.status,
      rawChars: file.rawChars,
      injectedChars: file.injectedChars,
      ...(file.causes.length > 0 ? { causes: [...file.causes] } : {}),
    })),
    skills: {
      promptChars: sectionText(PROMPT_SECTION_NAMES.skills)?.length ?? 0,
      entries: input.skills.map((skill) => ({
        name: skill.name,
        description: skill.description,
        location: skill.location,
        blockChars: renderSkillEntry(skill).length,
      })),
    },
    tools: toolsReport(input.tools, sectionText(PROMPT_SECTION_NAMES.tooling)?.length ?? 0),
    history: historyReport(input.messages, input.counter),
    session: {
      contextTokens: input.contextTokens ?? null,
      window: input.window,
      compactions: input.compactions ?? 0,
    },
  };
  return report;
}

/**
 * Estimates the report of a session that has no run yet: builds the prompt the next run would get
 * (fresh warning memory) and reports it with `source: "estimate"`. Throws only what
 * `prepareSystemPrompt` throws (invalid settings).
 */
export async function estimateRunReport(
  options: PrepareSystemPromptOptions & RunReportContext,
): Promise<ContextRunReport> {
  const prepared = await prepareSystemPrompt({ ...options, warningState: undefined });
  return buildRunReport({
    ...options,
    source: "estimate",
    prompt: prepared.prompt,
    workspaceFiles: prepared.workspaceFiles,
    skills: prepared.skills.skills,
  });
}

/**
 * Chars from "\n# Project Context\n" to the end of that section. Found through the section's own
 * text, because injected files may contain the same heading; falls back to the first heading to
 * the end of the prompt when the text was changed after building. 0 without the heading.
 */
function measureProjectContext(finalText: string, section: string | undefined): number {
  if (section !== undefined) {
    const start = finalText.lastIndexOf(`\n${section}`);
    if (start >= 0) return section.length + 1;
    if (finalText.startsWith(section)) return section.length;
  }
  const start = finalText.indexOf(PROJECT_CONTEXT_MARKER);
  return start < 0 ? 0 : finalText.length - start;
}

function identityOf(input: RunReportIdentity): RunReportIdentity {
  const identity: RunReportIdentity = {};
  for (const key of ["sessionId", "sessionKey", "provider", "model", "workspaceDir"] as const) {
    const value = input[key];
    if (value !== undefined) identity[key] = value;
  }
  if (input.engine !== undefined) {
    identity.engine = { configured: input.engine.configured, effective: input.engine.effective };
  }
  return identity;
}

function toolsReport(tools: readonly PromptTool[], listChars: number): ContextRunReport["tools"] {
  const entries = tools.map((tool) => ({
    name: tool.name,
    summaryChars: ((tool.description ?? "").trim() || (tool.label ?? "").trim()).length,
    schemaChars: schemaLength(tool.parameters),
    propertiesCount: propertiesCountOf(tool.parameters),
  }));
  return { listChars, schemaChars: entries.reduce((sum, entry) => sum + entry.schemaChars, 0), entries };
}

function schemaLength(parameters: unknown): number {
  if (parameters === undefined) return 0;
  try {
    return JSON.stringify(parameters)?.length ?? 0;
  } catch {
    return 0;
  }
}

function propertiesCountOf(parameters: unknown): number | null {
  if (typeof parameters !== "object" || parameters === null) return null;
  const properties = (parameters as { properties?: unknown }).properties;
  if (typeof properties !== "object" || properties === null) return null;
  return Object.keys(properties).length;
}

function historyReport(
  messages: readonly AgentMessage[],
  counter: TokenCounter,
): ContextRunReport["history"] {
  const chars = emptyBreakdown();
  const tokens = emptyBreakdown();
  for (const message of messages) {
    const kind = historyKindOf(message);
    chars[kind] += messageChars(message);
    tokens[kind] += counter.countMessage(message);
  }
  return { messages: messages.length, chars, tokens, counter: counter.id };
}

/** The report bucket of one message sent to the model. */
export function historyKindOf(message: AgentMessage): keyof HistoryBreakdown {
  const role: unknown =
    typeof message === "object" && message !== null ? (message as { role?: unknown }).role : undefined;
  switch (role) {
    case "user":
      return isSummaryText(firstText(message)) ? "summaries" : "user";
    case "assistant":
      return "assistant";
    case "toolResult":
      return "toolResults";
    case "compactionSummary":
    case "branchSummary":
      return "summaries";
    default:
      return "other";
  }
}

function firstText(message: AgentMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const block = content.find((part) => typeof part === "object" && part !== null && part.type === "text");
  return typeof block?.text === "string" ? block.text : "";
}

function isSummaryText(text: string): boolean {
  const start = text.trimStart();
  return SUMMARY_HEADINGS.some((heading) => heading !== "" && start.startsWith(heading));
}

function emptyBreakdown(): HistoryBreakdown {
  return { user: 0, assistant: 0, toolResults: 0, summaries: 0, other: 0 };
}
