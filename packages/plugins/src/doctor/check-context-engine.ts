import {
  type ClewConfig,
  type ContextEngineHostDescriptor,
  type ContextEngineInfo,
  type ContextEngineOperation,
  ContextEngineRegistry,
  DEFAULT_CONTEXT_ENGINE_ID,
  evaluateContextEngineHostSupport,
  selectContextEngine,
} from "@clew/core";
import type { PluginLoadReport } from "../plugin-loader.js";
import { check, type DoctorCheck } from "./doctor-check.js";
import type { EngineProbe } from "./probe-engine.js";
import type { GatewayQuarantineState } from "./quarantine-mirror.js";

export interface ContextEngineChecksInput {
  config: ClewConfig;
  configFile: string;
  registry: ContextEngineRegistry;
  report: PluginLoadReport;
  /** Resolves one engine id (cached by the caller, so each factory runs once). */
  probe: (engineId: string) => Promise<EngineProbe>;
  /** The host the agent runs engines on. */
  host: ContextEngineHostDescriptor;
  gateway: GatewayQuarantineState;
}

const ON_LEGACY = "the agent will run on legacy";

/**
 * The selected context engine: whether it resolves (registered, factory, contract validation)
 * without falling back to `legacy`, whether this host meets its host requirements, and what a
 * running gateway quarantined. Never throws.
 */
export async function checkContextEngine(input: ContextEngineChecksInput): Promise<DoctorCheck[]> {
  const selection = selectContextEngine(input.config, input.registry);
  const checks: DoctorCheck[] = [];
  if (selection.reason === "plugin-disabled") {
    const owner = input.registry.get(selection.configuredId ?? "")?.owner;
    const pluginId = ContextEngineRegistry.ownerPluginId(owner) ?? selection.configuredId;
    checks.push(
      check(
        "context-engine",
        "warning",
        `context engine "${selection.configuredId}" is selected but plugin ${pluginId} is disabled; ${ON_LEGACY}`,
        `clew plugins enable ${pluginId}, or remove plugins.slots.contextEngine from ${input.configFile}`,
      ),
    );
  } else if (selection.selectedId === DEFAULT_CONTEXT_ENGINE_ID) {
    const how = selection.configuredId === undefined ? " (the default)" : "";
    checks.push(check("context-engine", "ok", `context engine: legacy${how}`));
  } else {
    const probe = await input.probe(selection.selectedId);
    checks.push(describeSelected(selection.selectedId, probe, input));
    if (probe.info !== undefined) checks.push(...checkHostRequirements(probe.info, input.host));
  }
  checks.push(checkGatewayQuarantine(input.gateway, selection.configuredId));
  return checks;
}

function describeSelected(
  engineId: string,
  probe: EngineProbe,
  input: ContextEngineChecksInput,
): DoctorCheck {
  if (probe.ok && probe.info !== undefined) {
    const version = probe.info.version === undefined ? "" : ` ${probe.info.version}`;
    const compaction = probe.info.ownsCompaction === true ? "owns compaction" : "delegates compaction";
    return check(
      "context-engine",
      "ok",
      `context engine "${engineId}" (${probe.info.name}${version}) resolves and passes contract validation; ${compaction}`,
    );
  }
  const registration = input.registry.get(engineId);
  if (registration === undefined) return describeUnregistered(engineId, input);
  const failure = probe.failure ?? { operation: "resolve", reason: "did not resolve" };
  return check(
    "context-engine",
    "error",
    `context engine "${engineId}" ${failure.operation} failed: ${failure.reason}; ${ON_LEGACY}`,
    `fix the engine's plugin, or set plugins.slots.contextEngine to legacy in ${input.configFile}`,
  );
}

function describeUnregistered(engineId: string, input: ContextEngineChecksInput): DoctorCheck {
  const plugin = input.report.plugins.find((candidate) => candidate.id === engineId);
  const fallbackFix = `install the plugin that provides it, or set plugins.slots.contextEngine to legacy in ${input.configFile}`;
  if (plugin?.error !== undefined) {
    return check(
      "context-engine",
      "error",
      `context engine "${engineId}" is not registered: plugin ${plugin.id} ${plugin.error.stage} failed; ${ON_LEGACY}`,
      `fix plugin ${plugin.id} (see its line above), or set plugins.slots.contextEngine to legacy in ${input.configFile}`,
    );
  }
  if (plugin?.loaded) {
    const registered = plugin.contextEngineIds.length > 0 ? plugin.contextEngineIds.join(", ") : "none";
    return check(
      "context-engine",
      "error",
      `context engine "${engineId}" is not registered: plugin ${plugin.id} loaded but registered engines: ${registered}; ${ON_LEGACY}`,
      `set plugins.slots.contextEngine to one of the registered engine ids in ${input.configFile}`,
    );
  }
  return check(
    "context-engine",
    "error",
    `context engine "${engineId}" is not registered: no installed or linked plugin registers it; ${ON_LEGACY}`,
    fallbackFix,
  );
}

const OPERATIONS: Array<{ operation: ContextEngineOperation; what: string; status: "error" | "warning" }> = [
  { operation: "agent-run", what: "every run fails before it starts", status: "error" },
  { operation: "manual-compact", what: "/compact fails", status: "warning" },
  { operation: "subagent-spawn", what: "subagents cannot be spawned", status: "warning" },
];

function checkHostRequirements(info: ContextEngineInfo, host: ContextEngineHostDescriptor): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  for (const { operation, what, status } of OPERATIONS) {
    const support = evaluateContextEngineHostSupport(info, operation, host);
    if (support.ok) continue;
    const needsModel = support.missingCapabilities.includes("runtime-llm-complete");
    checks.push(
      check(
        "context-engine.host",
        status,
        `${support.message} (${operation}: ${what})`,
        needsModel
          ? "configure a model (agents.defaults.model) so the host can offer runtime-llm-complete, or select another engine"
          : "select an engine this host supports (plugins.slots.contextEngine), e.g. legacy",
      ),
    );
  }
  if (checks.length === 0) {
    checks.push(
      check("context-engine.host", "ok", `host requirements of "${info.id}" are met by ${host.label}`),
    );
  }
  return checks;
}

function checkGatewayQuarantine(
  state: GatewayQuarantineState,
  configuredId: string | undefined,
): DoctorCheck {
  const id = "context-engine.quarantine";
  switch (state.kind) {
    case "none":
      return check(id, "ok", "quarantine: no running gateway state (quarantine is kept per process)");
    case "stale":
      return check(
        id,
        "ok",
        `quarantine: no running gateway state (${state.path} was written by pid ${state.pid} on ${state.hostname}, which is not running here)`,
      );
    case "unreadable":
      return check(
        id,
        "warning",
        `quarantine: cannot read the gateway's state: ${state.message}`,
        `remove ${state.path}`,
      );
    case "running":
      return describeRunningQuarantine(state, configuredId);
  }
}

function describeRunningQuarantine(
  state: Extract<GatewayQuarantineState, { kind: "running" }>,
  configuredId: string | undefined,
): DoctorCheck {
  const id = "context-engine.quarantine";
  if (state.records.length === 0) {
    return check(id, "ok", `quarantine: the running gateway (pid ${state.pid}) has quarantined no engine`);
  }
  const described = state.records
    .map((record) => `"${record.engineId}" during ${record.operation}: ${record.reason}`)
    .join("; ");
  const selectedIsQuarantined = state.records.some((record) => record.engineId === configuredId);
  return check(
    id,
    selectedIsQuarantined ? "error" : "warning",
    `quarantine: the running gateway (pid ${state.pid}) quarantined ${described}${selectedIsQuarantined ? "; it runs on legacy" : ""}`,
    `fix the engine, then restart the gateway or reload it (kill -HUP ${state.pid})`,
  );
}
