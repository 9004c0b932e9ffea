import { ContextEngineHostUnsupportedError } from "../errors.js";
import type { ContextEngineHostCapability, ContextEngineInfo, ContextEngineOperation } from "./types.js";

/** Who is running the engine and what it can do for it. */
export interface ContextEngineHostDescriptor {
  id: string;
  label: string;
  capabilities: readonly ContextEngineHostCapability[];
}

export const ALL_HOST_CAPABILITIES: readonly ContextEngineHostCapability[] = [
  "bootstrap",
  "assemble-before-prompt",
  "after-turn",
  "maintain",
  "compact",
  "runtime-llm-complete",
  "thread-bootstrap-projection",
];

/**
 * Clew's embedded runner. It has every lifecycle capability; it can offer a model call to engines
 * only when one is configured, and it has no persistent provider threads to project into.
 */
export function embeddedHostDescriptor(options: { llmComplete: boolean }): ContextEngineHostDescriptor {
  const capabilities: ContextEngineHostCapability[] = [
    "bootstrap",
    "assemble-before-prompt",
    "after-turn",
    "maintain",
    "compact",
  ];
  if (options.llmComplete) capabilities.push("runtime-llm-complete");
  return { id: "clew-embedded", label: "Clew embedded runner", capabilities };
}

export type ContextEngineHostSupport =
  | { ok: true }
  | {
      ok: false;
      missingCapabilities: ContextEngineHostCapability[];
      requiredCapabilities: ContextEngineHostCapability[];
      message: string;
    };

/** Whether `host` can run `operation` for an engine. Never throws; for doctor and status. */
export function evaluateContextEngineHostSupport(
  info: ContextEngineInfo,
  operation: ContextEngineOperation,
  host: ContextEngineHostDescriptor,
): ContextEngineHostSupport {
  const requirements = info.hostRequirements?.[operation];
  const required = requirements?.requiredCapabilities ?? [];
  if (required.length === 0) return { ok: true };
  const missing = required.filter((capability) => !host.capabilities.includes(capability));
  if (missing.length === 0) return { ok: true };
  const hostCapabilities = host.capabilities.length > 0 ? host.capabilities.join(", ") : "(none)";
  const extra = requirements?.unsupportedMessage ? ` ${requirements.unsupportedMessage}` : "";
  const message =
    `Context engine "${info.id}" cannot run operation "${operation}" on ${host.label}. ` +
    `Missing host capabilities: ${missing.join(", ")}. Required capabilities: ${required.join(", ")}. ` +
    `Host capabilities: ${hostCapabilities}.${extra}`;
  return { ok: false, missingCapabilities: missing, requiredCapabilities: [...required], message };
}

/** Fails closed before the operation starts: this is neither a quarantine nor a fallback. */
export function assertContextEngineHostSupport(
  info: ContextEngineInfo,
  operation: ContextEngineOperation,
  host: ContextEngineHostDescriptor,
): void {
  const support = evaluateContextEngineHostSupport(info, operation, host);
  if (!support.ok) {
    throw new ContextEngineHostUnsupportedError(support.message, {
      engineId: info.id,
      operation,
      missingCapabilities: support.missingCapabilities,
    });
  }
}
