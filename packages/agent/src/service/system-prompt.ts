import type { AnyAgentTool } from "../tools/tool.js";

/**
 * The run's base system prompt: who the agent is, its tools, its workspace and the time. The full
 * builder (skills, injected workspace files, runtime metadata, per-section report) replaces this
 * with the inspection work; the engine's `systemPromptAddition` is put in front by the host.
 */
export function buildSystemPrompt(options: {
  tools: readonly AnyAgentTool[];
  workspaceDir: string;
  now: number;
}): string {
  const toolLines = options.tools.map((tool) => `- ${tool.name}: ${tool.description.split("\n")[0]}`);
  return [
    "You are a capable assistant running in Clew. Use the tools when they help; say what you did.",
    "",
    "## Tools",
    ...(toolLines.length > 0 ? toolLines : ["(none)"]),
    "",
    "## Workspace",
    `Your working directory is ${options.workspaceDir}. Relative paths resolve there.`,
    "",
    "## Date",
    // The date only: a prompt that changes every call breaks provider prompt caches and server threads.
    `Today is ${new Date(options.now).toISOString().slice(0, 10)} (UTC). Run \`date\` for the exact time.`,
  ].join("\n");
}
