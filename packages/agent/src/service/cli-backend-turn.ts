import type { AssistantMessage, ClewConfig } from "@clew/core";
import { emptyUsage } from "@clew/core";
import { type CliBackend, type CliBackendConfig, runCliBackendTurn } from "../hosts/cli-backend.js";
import type { TurnEvent } from "../runner/events.js";
import type { SendMessageOptions, SendMessageResult } from "./agent-service.js";
import type { LocalAgentService, OpenSession } from "./local-agent-service.js";

/**
 * The CLI backend a model reference names: `cli/<id>` with `cliBackends.<id>` in config. Such a
 * backend is a host of its own that cannot assemble before the prompt, so engines that need that
 * are refused before the command starts.
 */
export function cliBackendFor(config: ClewConfig, modelRef: string | undefined): CliBackend | undefined {
  if (modelRef === undefined || !modelRef.startsWith("cli/")) return undefined;
  const id = modelRef.slice("cli/".length);
  const settings = (config.cliBackends as Record<string, CliBackendConfig> | undefined)?.[id];
  return settings === undefined ? undefined : { ...settings, id };
}

/** The model reference a session uses, before provider resolution. */
export function configuredModelRef(
  config: ClewConfig,
  agentId: string,
  sessionModel: string | undefined,
): string | undefined {
  return sessionModel ?? config.agents?.list?.[agentId]?.model ?? config.agents?.defaults?.model;
}

/** One turn on a CLI backend: the prompt goes to the command, its output is the reply. */
export async function runCliBackendMessage(
  service: LocalAgentService,
  open: OpenSession,
  backend: CliBackend,
  prompt: string,
  options: SendMessageOptions,
  emit: (event: TurnEvent) => void,
): Promise<SendMessageResult> {
  const { engine } = await open.runtime.host.engine();
  emit({
    type: "run-start",
    sessionKey: open.key,
    sessionId: open.session.sessionId,
    model: `cli/${backend.id}`,
  });
  const reply = await runCliBackendTurn({
    backend,
    engineInfo: engine.info,
    prompt,
    cwd: open.runtime.workspaceDir,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const assistant: AssistantMessage = {
    role: "assistant",
    content: [{ type: "text", text: reply.text }],
    api: "cli",
    provider: "cli",
    model: backend.id,
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: service.now(),
  };
  const messages = [{ role: "user" as const, content: prompt, timestamp: service.now() }, assistant];
  await open.session.append(messages);
  await open.session.flush();
  emit({ type: "text-delta", delta: reply.text });
  emit({ type: "run-end", messages, usage: assistant.usage, text: reply.text });
  return { kind: "reply", ok: true, text: reply.text };
}
