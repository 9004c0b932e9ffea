export { type ConfigCheckResult, checkConfig } from "./check-config.js";
export { type ContextEngineChecksInput, checkContextEngine } from "./check-context-engine.js";
export {
  checkEngineStores,
  type EngineStoreCheckOptions,
  type EngineStoreProbe,
  type EngineStoreTotals,
} from "./check-engine-store.js";
export { checkMemorySlot, DEFAULT_MEMORY_PLUGIN_ID, MEMORY_KIND } from "./check-memory-slot.js";
export { checkPlugins, type PluginChecksInput } from "./check-plugins.js";
export { checkSessionStores, type SessionStoreCheckOptions } from "./check-session-stores.js";
export {
  type DoctorCheck,
  type DoctorStatus,
  doctorExitCode,
  formatDoctorChecks,
  overallStatus,
} from "./doctor-check.js";
export { type EngineProbe, type ProbeEngineOptions, probeContextEngine } from "./probe-engine.js";
export {
  createQuarantineMirror,
  type GatewayQuarantineState,
  type QuarantineMirrorFile,
  type QuarantineMirrorOptions,
  quarantineMirrorPath,
  readGatewayQuarantineState,
} from "./quarantine-mirror.js";
export { type DoctorReport, type RunDoctorOptions, runDoctor } from "./run-doctor.js";
