import { randomUUID } from "node:crypto";
import { describeError, type SessionIndexEntry, TranscriptHostSession } from "@clew/core";
import { applyUsageCommand, formatCurrentSetting } from "../commands/apply-directives.js";
import type { ChatCommand } from "../commands/chat-input.js";
import { formatCompactionResult, summarizeCompactResult } from "../commands/format-compaction-result.js";
import { formatHelp } from "../commands/format-help.js";
import { formatStatusCard } from "../commands/format-status-card.js";
import type { SessionSettings } from "../commands/settings.js";
import { resolveModel } from "../providers/resolve-model.js";
import type { SendMessageOptions, SendMessageResult } from "./agent-service.js";
import { contextCommand } from "./context-command.js";
import { engineStatusSection } from "./engine-status-section.js";
import type { LocalAgentService, OpenSession } from "./local-agent-service.js";

const CLEW_VERSION = "0.1.0";

/** Runs a standalone chat command against a session. Never throws for a command's own failure. */
export async function runCommand(
  service: LocalAgentService,
  open: OpenSession,
  command: ChatCommand,
  options: SendMessageOptions,
): Promise<SendMessageResult> {
  const answer = (text: string, ok = true): SendMessageResult => ({ kind: "command", ok, text });
  if (command.error !== undefined) return answer(command.error, false);
  const entry = await open.runtime.index.get(open.key);
  const settings = (entry?.settings ?? {}) as SessionSettings;
  try {
    switch (command.name) {
      case "help":
      case "commands":
        return answer(formatHelp());
      case "status":
        return answer((await statusOf(service, open)).text);
      case "context": {
        const settings = ((await open.runtime.index.get(open.key))?.settings ?? {}) as SessionSettings;
        const format = /\bsvg\b/i.test(command.args) ? "svg" : "png";
        return answer(
          await contextCommand(service, open, command.mode, {
            window: windowOf(service, open, settings),
            format,
          }),
        );
      }
      case "compact":
        return answer(await compact(service, open, command.instructions, options.signal));
      case "usage": {
        const applied = applyUsageCommand(settings, command.mode);
        await open.runtime.index.upsert(open.key, { settings: { ...applied.settings } });
        return answer(applied.acknowledgement);
      }
      case "new":
      case "reset":
        return answer(
          await startOver(service, open, command.name, command.name === "new" ? command.model : undefined),
        );
      case "think":
      case "verbose":
      case "reasoning":
      case "model":
        return answer(formatCurrentSetting(command.name, settings, defaultsOf(service, open)));
    }
  } catch (error) {
    return answer(`⚠️ ${describeError(error)}`, false);
  }
}

/** The `/status` card of a session. */
export async function statusOf(
  service: LocalAgentService,
  open: OpenSession,
): Promise<{ text: string; data: unknown }> {
  const entry = await open.runtime.index.get(open.key);
  const settings = (entry?.settings ?? {}) as SessionSettings;
  const engine = await open.runtime.host.status();
  const engineSection = await engineStatusSection(open);
  const window = windowOf(service, open, settings);
  const pruning = service.options.config.agents?.defaults?.contextPruning as
    | { mode?: "off" | "cache-ttl" }
    | undefined;
  const data = {
    version: CLEW_VERSION,
    model:
      entry?.model?.id === undefined
        ? defaultsOf(service, open).model || "(none)"
        : `${entry.model.provider}/${entry.model.id}`,
    usage: {
      input: entry?.tokens?.input ?? 0,
      output: entry?.tokens?.output ?? 0,
      cacheRead: entry?.tokens?.cacheRead ?? 0,
      cacheWrite: entry?.tokens?.cacheWrite ?? 0,
      ...(entry?.cost === undefined ? {} : { cost: entry.cost }),
    },
    context: {
      window,
      compactions: entry?.compactionCount ?? 0,
      ...(entry?.tokens?.context === undefined ? {} : { used: entry.tokens.context }),
    },
    engine,
    ...(engineSection === undefined ? {} : { engineSection }),
    pruning: { mode: pruning?.mode ?? "off" },
    session: { key: open.key, ...(entry?.updatedAt === undefined ? {} : { updatedAt: entry.updatedAt }) },
    now: service.now(),
    runtime: {
      thinkingLevel: settings.thinkingLevel ?? "off",
      verbose: settings.verbose ?? "off",
      reasoning: settings.reasoning ?? "off",
      usageMode: settings.usageMode ?? "off",
    },
  } as const;
  return { text: formatStatusCard(data), data };
}

async function compact(
  service: LocalAgentService,
  open: OpenSession,
  instructions: string | undefined,
  signal?: AbortSignal,
) {
  const outcome = await open.runtime.host.compactManually(open.session, {
    ...(instructions ? { customInstructions: instructions } : {}),
    ...(signal === undefined ? {} : { signal }),
  });
  const result = outcome.result;
  if (result.compacted) {
    await open.runtime.index.upsert(open.key, (current) => ({
      ...current,
      sessionId: open.session.sessionId,
      compactionCount: (current?.compactionCount ?? 0) + 1,
      ...(result.result?.tokensAfter === undefined || current?.tokens === undefined
        ? {}
        : { tokens: { ...current.tokens, context: result.result.tokensAfter } }),
    }));
  }
  const settings = ((await open.runtime.index.get(open.key))?.settings ?? {}) as SessionSettings;
  return formatCompactionResult(summarizeCompactResult(result), {
    contextWindow: windowOf(service, open, settings),
  });
}

/** `/new` keeps the old transcript; `/reset` archives it. Both give the key a fresh session. */
async function startOver(
  service: LocalAgentService,
  open: OpenSession,
  kind: "new" | "reset",
  model?: string,
) {
  const agentId = open.runtime.agentId;
  const previous = open.session.sessionId;
  await service.closeSession(open.key, { fromOwnRun: true });
  if (kind === "reset") await service.store.archive(agentId, previous, "reset");
  const sessionId = randomUUID();
  const fresh = await TranscriptHostSession.openOrCreate(service.store, {
    agentId,
    sessionId,
    sessionKey: open.key,
    cwd: open.runtime.workspaceDir,
  });
  await fresh.close();
  await open.runtime.index.upsert(open.key, (current) => {
    const settings = { ...(current?.settings ?? {}), ...(model === undefined ? {} : { model }) };
    const next: Partial<SessionIndexEntry> = {
      ...current,
      sessionId,
      sessionFile: fresh.sessionFile,
      compactionCount: 0,
      settings,
    };
    delete next.tokens;
    delete next.cost;
    return next;
  });
  return kind === "new"
    ? `🆕 New session ${sessionId}${model ? ` with ${model}` : ""}.`
    : `🔄 Session reset (${sessionId}); the old transcript was archived.`;
}

function defaultsOf(service: LocalAgentService, open: OpenSession) {
  let model = "";
  try {
    model = resolveModel(service.options.config, {
      agentId: open.runtime.agentId,
      purpose: "chat",
      env: service.options.env,
    }).ref;
  } catch {
    model = "";
  }
  return { thinkingLevel: "off", verbose: "off", reasoning: "off", model };
}

export function windowOf(service: LocalAgentService, open: OpenSession, settings: SessionSettings): number {
  try {
    const resolved = resolveModel(service.options.config, {
      agentId: open.runtime.agentId,
      purpose: "chat",
      env: service.options.env,
      ...(settings.model === undefined ? {} : { sessionModel: settings.model }),
    });
    return open.runtime.host.contextWindow({ id: resolved.model.id, contextWindow: resolved.contextWindow });
  } catch {
    return 200_000;
  }
}
