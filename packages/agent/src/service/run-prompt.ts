import {
  type AgentMessage,
  buildRunReport,
  type ContextRunReport,
  describeRuntimeHost,
  type PreparedContext,
  type PreparedSystemPrompt,
  prepareSystemPrompt,
  resolvePromptSettings,
  type TruncationWarningState,
} from "@clew/core";
import { buildMemorySystemPromptAddition } from "@clew/plugin-sdk";
import type { SessionSettings } from "../commands/settings.js";
import type { ToolRegistry } from "../tools/tool.js";
import type { LocalAgentService, OpenSession } from "./local-agent-service.js";

/** The base system prompt of one run: tools, skills, workspace files under their caps, time, runtime. */
export async function prepareRunPrompt(
  service: LocalAgentService,
  open: OpenSession,
  tools: ToolRegistry,
  modelRef: string,
  settings: SessionSettings,
): Promise<PreparedSystemPrompt> {
  const entry = await open.runtime.index.get(open.key);
  const firstRun = (await open.session.messages()).length === 0;
  const prepared = await prepareSystemPrompt({
    workspaceDir: open.runtime.workspaceDir,
    firstRun,
    home: service.options.home,
    tools: tools.list(),
    settings: resolvePromptSettings(service.options.config),
    runtime: {
      ...describeRuntimeHost(),
      agentId: open.runtime.agentId,
      model: modelRef,
      thinkingLevel: settings.thinkingLevel ?? "off",
    },
    now: service.now(),
    ...(entry?.promptWarning === undefined
      ? {}
      : { warningState: entry.promptWarning as TruncationWarningState }),
  });
  // The active memory plugin's lines (memory-core by default) close the prompt as their own section.
  const memory = buildMemorySystemPromptAddition({
    availableTools: tools.names(),
    agentId: open.runtime.agentId,
    agentSessionKey: open.key,
  });
  if (memory === undefined) return prepared;
  return {
    ...prepared,
    prompt: {
      ...prepared.prompt,
      text: `${prepared.prompt.text}\n\n${memory}`,
      sections: [...prepared.prompt.sections, { name: "Memory", text: memory }],
    },
  };
}

/** Builds the run report of the run that just ended and stores it with the session. */
export async function recordRunReport(
  service: LocalAgentService,
  open: OpenSession,
  details: {
    prepared: PreparedSystemPrompt;
    lastContext: PreparedContext;
    sent: readonly AgentMessage[];
    tools: ToolRegistry;
    provider: string;
    model: string;
    window: number;
    contextTokens: number | null;
  },
): Promise<ContextRunReport> {
  const status = await open.runtime.host.status();
  const entry = await open.runtime.index.get(open.key);
  const report = buildRunReport({
    source: "run",
    now: service.now(),
    prompt: details.prepared.prompt,
    finalPromptText: details.lastContext.systemPrompt,
    ...(details.lastContext.assembled.systemPromptAddition?.trim()
      ? { engineAddition: details.lastContext.assembled.systemPromptAddition.trim() }
      : {}),
    workspaceFiles: details.prepared.workspaceFiles,
    skills: details.prepared.skills.skills,
    tools: details.tools.list(),
    messages: details.sent,
    counter: service.options.counter,
    window: details.window,
    contextTokens: details.contextTokens,
    compactions: entry?.compactionCount ?? 0,
    sessionId: open.session.sessionId,
    sessionKey: open.key,
    provider: details.provider,
    model: details.model,
    workspaceDir: open.runtime.workspaceDir,
    engine: { configured: status.configuredId ?? "legacy", effective: status.effectiveId },
  });
  await open.runtime.index.upsert(open.key, {
    contextReport: report,
    promptWarning: details.prepared.prompt.truncationWarning.state,
  });
  return report;
}
