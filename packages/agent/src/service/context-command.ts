import { join } from "node:path";
import {
  type ContextRunReport,
  describeRuntimeHost,
  estimateRunReport,
  resolvePromptSettings,
  type SessionIndexEntry,
} from "@clew/core";
import type { ContextMode } from "../commands/chat-input.js";
import { formatEngineSection } from "../commands/format-engine-section.js";
import { contextMapData } from "../context-report/context-map-data.js";
import { formatContextDetail } from "../context-report/format-context-detail.js";
import { formatContextHelp } from "../context-report/format-context-help.js";
import { formatContextJson } from "../context-report/format-context-json.js";
import { formatContextList } from "../context-report/format-context-list.js";
import {
  contextMapCaption,
  contextMapUnavailableText,
  writeContextMap,
} from "../context-report/write-context-map.js";
import { engineStatusSection } from "./engine-status-section.js";
import type { LocalAgentService, OpenSession } from "./local-agent-service.js";
import { toolsForSession } from "./session-tools.js";

export interface ContextCommandOptions {
  /** For `map`: `png` (default) or `svg`. */
  format?: "png" | "svg";
  /** For `map`: where the image goes; default `<home>/context-maps`. */
  outDir?: string;
  window: number;
}

/**
 * `/context list|detail|json|map|help` for a session. Uses the session's latest run report; without
 * one, list/detail/json answer from an estimate (labelled so) and map says none exists yet.
 */
export async function contextCommand(
  service: LocalAgentService,
  open: OpenSession,
  mode: ContextMode | "help",
  options: ContextCommandOptions,
): Promise<string> {
  if (mode === "help") return formatContextHelp();
  const entry = await open.runtime.index.get(open.key);
  const recorded = entry?.contextReport as ContextRunReport | undefined;
  if (mode === "map") {
    if (recorded === undefined || recorded.source !== "run") return contextMapUnavailableText();
    const outDir = options.outDir ?? join(service.options.home, "context-maps");
    const path = await writeContextMap(recorded, { format: options.format ?? "png", outDir });
    return `${contextMapCaption(contextMapData(recorded))}\nMap: ${path}`;
  }
  const report = recorded ?? (await estimate(service, open, options.window, entry));
  const textOptions = {
    window: options.window,
    workspaceDir: open.runtime.workspaceDir,
    sessionTokens: entry?.tokens?.context ?? null,
  };
  if (mode === "json") {
    return formatContextJson(report, {
      totalTokens: entry?.tokens?.context ?? null,
      inputTokens: entry?.tokens?.input ?? null,
      outputTokens: entry?.tokens?.output ?? null,
      contextTokens: options.window,
    });
  }
  const text =
    mode === "detail" ? formatContextDetail(report, textOptions) : formatContextList(report, textOptions);
  const section = await engineStatusSection(open);
  const sectionText = section === undefined ? "" : formatEngineSection(section);
  if (sectionText === "") return text;
  return `${text.trimEnd()}\n\n${sectionText}${text.endsWith("\n") ? "\n" : ""}`;
}

async function estimate(
  service: LocalAgentService,
  open: OpenSession,
  window: number,
  entry: SessionIndexEntry | undefined,
): Promise<ContextRunReport> {
  const status = await open.runtime.host.status();
  const messages = open.runtime.host.prepareHistory(await open.session.messages(), {
    id: "estimate",
    contextWindow: window,
  });
  return estimateRunReport({
    workspaceDir: open.runtime.workspaceDir,
    firstRun: messages.length === 0,
    home: service.options.home,
    tools: (await toolsForSession(service, open)).list(),
    settings: resolvePromptSettings(service.options.config),
    runtime: { ...describeRuntimeHost(), agentId: open.runtime.agentId },
    now: service.now(),
    messages,
    counter: service.options.counter,
    window,
    contextTokens: entry?.tokens?.context ?? null,
    compactions: entry?.compactionCount ?? 0,
    sessionId: open.session.sessionId,
    sessionKey: open.key,
    engine: { configured: status.configuredId ?? "legacy", effective: status.effectiveId },
  });
}
