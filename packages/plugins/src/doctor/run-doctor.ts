import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ClewConfig,
  type ContextEngineHostDescriptor,
  type ContextEngineRegistry,
  configPath,
  createContextEngineRegistry,
  embeddedHostDescriptor,
  selectContextEngine,
  silentLogger,
} from "@clew/core";
import { loadPlugins, type PluginLoadReport } from "../plugin-loader.js";
import { checkConfig } from "./check-config.js";
import { checkContextEngine } from "./check-context-engine.js";
import { checkEngineStores, type EngineStoreProbe } from "./check-engine-store.js";
import { checkMemorySlot } from "./check-memory-slot.js";
import { checkPlugins } from "./check-plugins.js";
import { checkSessionStores } from "./check-session-stores.js";
import { type DoctorCheck, type DoctorStatus, doctorExitCode, overallStatus } from "./doctor-check.js";
import { type EngineProbe, probeContextEngine } from "./probe-engine.js";
import { readGatewayQuarantineState } from "./quarantine-mirror.js";

export interface RunDoctorOptions {
  home: string;
  /**
   * The host engines will run on, from the loaded config (whether a model resolves decides
   * `runtime-llm-complete`). Default: the embedded runner without a model call.
   */
  hostFor?: (config: ClewConfig) => ContextEngineHostDescriptor;
  /** Per plugin `register(api)`; default 10 s. */
  registerTimeoutMs?: number;
  /** Per engine factory; default 10 s. */
  factoryTimeoutMs?: number;
  hostName?: string;
  isProcessAlive?: (pid: number) => boolean;
  /** An engine that keeps a store per agent (the lossless engine, from the CLI), for its doctor lines. */
  engineStore?: EngineStoreProbe;
}

export interface DoctorReport {
  home: string;
  status: DoctorStatus;
  exitCode: 0 | 1 | 2;
  checks: DoctorCheck[];
}

/**
 * Everything `clew doctor` checks, in order: the config; every plugin, loaded in runtime mode
 * into a fresh registry (nothing reaches a running agent: no tool or command sink), with every
 * engine it registered resolved once through core's resolution and disposed again; the selected
 * context engine (resolution without fallback, host requirements, a running gateway's
 * quarantine); the memory slot; the session stores. An invalid config skips the plugin, engine
 * and memory checks, since the agent would not start. Never throws.
 */
export async function runDoctor(options: RunDoctorOptions): Promise<DoctorReport> {
  const configFile = configPath(options.home);
  const configResult = await checkConfig(options.home, configFile);
  const checks = [...configResult.checks];
  if (configResult.config !== undefined) {
    checks.push(...(await checkPluginsAndSlots(configResult.config, configFile, options)));
  }
  checks.push(
    ...(await checkSessionStores({
      home: options.home,
      ...(options.hostName === undefined ? {} : { hostName: options.hostName }),
      ...(options.isProcessAlive === undefined ? {} : { isProcessAlive: options.isProcessAlive }),
    })),
  );
  return { home: options.home, status: overallStatus(checks), exitCode: doctorExitCode(checks), checks };
}

async function checkPluginsAndSlots(
  config: ClewConfig,
  configFile: string,
  options: RunDoctorOptions,
): Promise<DoctorCheck[]> {
  const registry = createContextEngineRegistry();
  const report = await loadPlugins({
    home: options.home,
    config,
    registry,
    logger: silentLogger,
    mode: "runtime",
    ...(options.registerTimeoutMs === undefined ? {} : { registerTimeoutMs: options.registerTimeoutMs }),
  });
  const probes = new Map<string, EngineProbe>();
  // Engines that keep state in their agent folder get a scratch one: a probe must not create or
  // migrate anything in the agents' real folders.
  const scratchAgentDir = await mkdtemp(join(tmpdir(), "clew-doctor-agent-"));
  const probe = async (engineId: string): Promise<EngineProbe> => {
    const known = probes.get(engineId);
    if (known !== undefined) return known;
    const result = await probeContextEngine(registry, engineId, {
      config,
      agentDir: scratchAgentDir,
      ...(options.factoryTimeoutMs === undefined ? {} : { timeoutMs: options.factoryTimeoutMs }),
    });
    probes.set(engineId, result);
    return result;
  };
  try {
    return await engineAndStoreChecks({ config, configFile, options, registry, report, probe, probes });
  } finally {
    await rm(scratchAgentDir, { recursive: true, force: true });
  }
}

interface EngineCheckInput {
  config: ClewConfig;
  configFile: string;
  options: RunDoctorOptions;
  registry: ContextEngineRegistry;
  report: PluginLoadReport;
  probe: (engineId: string) => Promise<EngineProbe>;
  probes: Map<string, EngineProbe>;
}

async function engineAndStoreChecks(input: EngineCheckInput): Promise<DoctorCheck[]> {
  const { config, configFile, options, registry, report, probe, probes } = input;
  for (const plugin of report.plugins) {
    for (const engineId of plugin.contextEngineIds) await probe(engineId);
  }
  const host = options.hostFor?.(config) ?? embeddedHostDescriptor({ llmComplete: false });
  const gateway = await readGatewayQuarantineState(options.home, {
    ...(options.hostName === undefined ? {} : { hostName: options.hostName }),
    ...(options.isProcessAlive === undefined ? {} : { isProcessAlive: options.isProcessAlive }),
  });
  return [
    ...checkPlugins({ home: options.home, report, probes, configFile }),
    ...(await checkContextEngine({ config, configFile, registry, report, probe, host, gateway })),
    checkMemorySlot(config, report, configFile),
    ...(options.engineStore === undefined
      ? []
      : await checkEngineStores({
          home: options.home,
          selectedEngineId: selectContextEngine(config, registry).selectedId,
          store: options.engineStore,
        })),
  ];
}
