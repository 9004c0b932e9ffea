import { arch, hostname, platform, release } from "node:os";
import { InvalidOptionError } from "../errors.js";
import type { SkillEntry } from "./load-skills.js";
import type { InjectedWorkspaceFile } from "./truncate-workspace-files.js";

/**
 * Renderers of the system prompt's sections. Each returns the section's whole text, heading
 * included; `buildSystemPrompt` puts them in order. They are pure: time, host facts and files come
 * in as arguments.
 */

/** What the tool list and the run report read from a tool (pi's `AgentTool` fits). */
export interface PromptTool {
  name: string;
  description?: string;
  label?: string;
  /** JSON schema of the arguments, sent to the provider beside the prompt. */
  parameters?: unknown;
}

/** Facts about the run for the Runtime line; absent ones are left out. */
export interface RuntimeInfo {
  agentId?: string;
  host?: string;
  /** Platform and release, e.g. `linux 6.8.0`. */
  os?: string;
  arch?: string;
  node?: string;
  /** `provider/id`. */
  model?: string;
  thinkingLevel?: string;
}

export const DEFAULT_IDENTITY_LINE =
  "You are a personal assistant running inside Clew. Use the tools when they help, and say what you did.";

export function renderIdentitySection(line: string): string | undefined {
  const trimmed = line.trim();
  return trimmed === "" ? undefined : trimmed;
}

/** The one-line summary of a tool in the list: the first line of its description (or label). */
export function toolSummary(tool: PromptTool): string {
  const text = (tool.description ?? "").trim() || (tool.label ?? "").trim();
  return (text.split("\n")[0] ?? "").trim();
}

export function renderToolingSection(tools: readonly PromptTool[]): string {
  const lines = [
    "## Tooling",
    "Tools available in this run (names are case-sensitive; call them exactly as listed):",
  ];
  if (tools.length === 0) lines.push("(no tools are available in this run)");
  for (const tool of tools) {
    const summary = toolSummary(tool);
    lines.push(summary === "" ? `- ${tool.name}` : `- ${tool.name}: ${summary}`);
  }
  lines.push("TOOLS.md holds local notes about tools; it does not change which tools exist.");
  return lines.join("\n");
}

/** One skill's entry in `<available_skills>`, XML-escaped. */
export function renderSkillEntry(skill: SkillEntry): string {
  return (
    `<skill><name>${escapeXml(skill.name)}</name>` +
    `<description>${escapeXml(skill.description)}</description>` +
    `<location>${escapeXml(skill.location)}</location></skill>`
  );
}

/** Omitted (undefined) when there are no skills. */
export function renderSkillsSection(skills: readonly SkillEntry[]): string | undefined {
  if (skills.length === 0) return undefined;
  return [
    "## Skills",
    "Skills hold instructions for particular tasks. When a skill's description matches the task, read its SKILL.md at <location> with the read tool before using the skill, and resolve relative paths in it against the skill's folder. Read only the skill that applies; never load skills up front.",
    "<available_skills>",
    ...skills.map(renderSkillEntry),
    "</available_skills>",
  ].join("\n");
}

export function renderWorkspaceSection(workspaceDir: string): string {
  return [
    "## Workspace",
    `Your working directory is: ${workspaceDir}`,
    "Relative paths resolve against it.",
  ].join("\n");
}

/**
 * The current time in UTC, and in the user's IANA time zone when one is configured, to the hour.
 * The hour, not the second: a system prompt that changes on every call breaks the provider's
 * prompt cache and server threads; the model is told to run `date` for the exact time. Throws
 * `InvalidOptionError` (option `agents.defaults.userTimezone`) for a zone `Intl` does not know.
 */
export function renderTimeSection(now: number, userTimezone?: string): string {
  const hour = Math.floor(now / 3_600_000) * 3_600_000;
  const lines = [
    "## Current Date & Time",
    `UTC: ${new Date(hour).toISOString().slice(0, 13)}:00Z (to the hour; run \`date\` for the exact time)`,
  ];
  if (userTimezone !== undefined && userTimezone !== "") {
    lines.push(`Local (${userTimezone}): ${formatLocalTime(hour, userTimezone)}`);
  }
  return lines.join("\n");
}

/** `YYYY-MM-DD HH:mm Weekday (GMT+h)` in `timeZone`. */
export function formatLocalTime(now: number, timeZone: string): string {
  assertTimeZone(timeZone);
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    weekday: "long",
    timeZoneName: "shortOffset",
  }).formatToParts(new Date(now));
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((entry) => entry.type === type)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")} ${part("hour")}:${part("minute")} ${part("weekday")} (${part("timeZoneName")})`;
}

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

export function assertTimeZone(timeZone: string): void {
  if (!isValidTimeZone(timeZone)) {
    throw new InvalidOptionError(
      "agents.defaults.userTimezone",
      timeZone,
      "an IANA time zone such as Europe/Madrid",
    );
  }
}

export function renderRuntimeSection(runtime: RuntimeInfo): string {
  const fields: Array<[string, string | undefined]> = [
    ["agent", runtime.agentId],
    ["host", runtime.host],
    ["os", runtime.os === undefined ? undefined : `${runtime.os}${runtime.arch ? ` (${runtime.arch})` : ""}`],
    ["node", runtime.node],
    ["model", runtime.model],
    ["thinking", runtime.thinkingLevel],
  ];
  const present = fields.filter(
    (field): field is [string, string] => field[1] !== undefined && field[1] !== "",
  );
  const line = present.map(([key, value]) => `${key}=${value}`).join(" | ");
  return ["## Runtime", `Runtime: ${line === "" ? "unknown" : line}`].join("\n");
}

/** The host facts of this process, for `RuntimeInfo`. */
export function describeRuntimeHost(): Required<Pick<RuntimeInfo, "host" | "os" | "arch" | "node">> {
  return { host: hostname(), os: `${platform()} ${release()}`, arch: arch(), node: process.version };
}

export const PROJECT_CONTEXT_HEADING = "# Project Context";

/**
 * `# Project Context`: a preface, the truncation warning when given, then each file as
 * `## <name>` and its injected content (the `[MISSING] Expected at:` line for a missing file).
 */
export function renderProjectContextSection(
  files: readonly InjectedWorkspaceFile[],
  truncationWarning: string | undefined,
): string {
  const preface = ["The following workspace files have been loaded:"];
  if (files.some((file) => file.name === "SOUL.md" && file.status !== "MISSING")) {
    preface.push("Embody the persona and tone SOUL.md describes.");
  }
  const blocks = [PROJECT_CONTEXT_HEADING, preface.join("\n")];
  if (truncationWarning !== undefined) blocks.push(truncationWarning);
  for (const file of files) blocks.push(`## ${file.name}\n${file.content}`);
  return blocks.join("\n\n");
}

const XML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
};

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => XML_ESCAPES[character] ?? character);
}
