export { type ConfigCheckResult, checkConfig } from "./check-config.js";
export { type ContextEngineChecksInput, checkContextEngine } from "./check-context-engine.js";
export {
  checkLosslessStores,
  LOSSLESS_ENGINE_ID,
  LOSSLESS_STORE_FILE,
  type LosslessStoreCheckOptions,
  type LosslessStoreReader,
  type LosslessStoreTotals,
} from "./check-lossless-store.js";
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
