export {
  applyInstalledPlugin,
  CONTEXT_ENGINE_KIND,
  type PluginRemoval,
  type PluginSelection,
  removeLoadPaths,
  removePluginFromConfig,
  setPluginEnabled,
} from "./config-changes.js";
export { type ConfigEditResult, editClewConfig } from "./config-editor.js";
export {
  type CreatePluginApiOptions,
  createPluginApi,
  type PluginCommandSink,
  type PluginDiagnostic,
  type PluginRegistrations,
  type PluginTool,
  type PluginToolSink,
  pluginOwner,
  pluginStateDir,
} from "./create-plugin-api.js";
export { type DiscoveredPlugins, discoverPlugins, type PluginCandidate } from "./discover-plugins.js";
export * from "./doctor/index.js";
export {
  type ManifestProblem,
  PluginInstallError,
  PluginManifestError,
  UnknownPluginError,
} from "./errors.js";
export {
  installRecordsPath,
  PLUGIN_SOURCES,
  type PluginInstallRecord,
  type PluginInstallRecords,
  type PluginSource,
  pluginsDir,
  readInstallRecords,
  writeInstallRecords,
} from "./install-records.js";
export {
  CLEW_MANIFEST_FILE,
  hasKind,
  type ManifestFormat,
  OPENCLAW_MANIFEST_FILE,
  PLUGIN_ID_PATTERN,
  type PluginManifest,
  readPluginManifest,
} from "./manifest.js";
export {
  createNpmRunner,
  installDependencies,
  type NpmResult,
  type NpmRunner,
  type NpmRunnerOptions,
  packToTarball,
} from "./npm-runner.js";
export {
  clewPluginSdkUrl,
  ensureOpenClawSdkResolution,
  OPENCLAW_SDK_SPECIFIERS,
} from "./openclaw-sdk-resolution.js";
export {
  compilePluginConfigSchema,
  type PluginConfigValidation,
  validatePluginConfig,
} from "./plugin-config.js";
export {
  type LoadedPlugin,
  type LoadPluginsOptions,
  loadPlugins,
  type PluginLoadFailure,
  type PluginLoadReport,
  type PluginLoadStage,
  unregisterPlugin,
} from "./plugin-loader.js";
export { type PluginReloadResult, reloadPlugins } from "./plugin-reload.js";
export { inspectPlugins, type PluginStatus } from "./plugin-status.js";
export {
  type PluginInstallResult,
  PluginStore,
  type PluginStoreOptions,
  type PluginUninstallResult,
} from "./plugin-store.js";
export { extractPackageTarball, tarballIntegrity } from "./tarball.js";
