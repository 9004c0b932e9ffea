/**
 * The host's lifecycle calls around turns: `bootstrap` of a session whose transcript existed
 * before, then `maintain` (after bootstrap, after each turn, after a compaction), inline or after
 * the reply as the engine's `turnMaintenanceMode` says. Both get the session's context budget in
 * `runtimeContext.tokenBudget` when the model is known. Failures are logged; the run goes on.
 */
import type { ContextEngine, ContextEngineMaintenanceResult } from "../context-engine/types.js";
import { describeError } from "../errors.js";
import type { ContextEngineHost, HostModel } from "./context-engine-host.js";
import { type HostSession, sessionTargetOf } from "./host-session.js";
import type { MaintenanceReason } from "./maintenance.js";

/**
 * Bootstrap runs once per session per host, and only for a transcript that existed before this
 * process opened it; `maintain` (reason `bootstrap`) follows it.
 */
export async function bootstrapSession(
  host: ContextEngineHost,
  engine: ContextEngine,
  session: HostSession,
  model?: HostModel,
): Promise<void> {
  if (!session.existedBefore || !host.claimBootstrap(session.sessionId)) return;
  if (engine.bootstrap === undefined && engine.maintain === undefined) return;
  if (engine.bootstrap !== undefined) {
    const bootstrap = engine.bootstrap.bind(engine);
    try {
      await host.withRuntime(session, () =>
        bootstrap({
          sessionId: session.sessionId,
          sessionKey: session.sessionKey,
          sessionTarget: sessionTargetOf(session),
          sessionFile: session.sessionFile,
          runtimeSettings: host.runtimeSettings(engine, model),
          runtimeContext: host.runtimeContext(session, budgetOf(host, model)),
        }),
      );
    } catch (error) {
      host.logger.warn(`context engine bootstrap failed: ${describeError(error)}`);
    }
  }
  await maintainSession(host, engine, session, "bootstrap", model);
}

/**
 * Offers `maintain`, inline or after the reply as the engine's `turnMaintenanceMode` says.
 * Returns false when nothing was run or scheduled (no `maintain`, or the host is closing).
 */
export async function maintainSession(
  host: ContextEngineHost,
  engine: ContextEngine,
  session: HostSession,
  reason: MaintenanceReason,
  model?: HostModel,
): Promise<boolean> {
  if (engine.maintain === undefined) return false;
  const maintain = engine.maintain.bind(engine);
  const mode = engine.info.turnMaintenanceMode === "background" ? "background" : "foreground";
  return host.maintenance.run(session.sessionKey, mode, async (signal) => {
    const runtimeContext = host.runtimeContext(session, {
      maintenanceReason: reason,
      rewriteTranscriptEntries: (request) => session.rewriteTranscriptEntries(request),
      ...budgetOf(host, model),
    });
    if (mode === "background") runtimeContext.allowDeferredCompactionExecution = true;
    const result = await host.withRuntime(session, () =>
      maintain({
        sessionId: session.sessionId,
        sessionKey: session.sessionKey,
        sessionTarget: sessionTargetOf(session),
        sessionFile: session.sessionFile,
        runtimeSettings: host.runtimeSettings(engine, model),
        runtimeContext,
        abortSignal: signal,
      }),
    );
    if (result?.changed) {
      host.logger.info(
        `context engine maintenance (${reason}) rewrote ${result.rewrittenEntries} entries, freed ${result.bytesFreed} bytes`,
      );
    }
    reportMaintenanceCompaction(host, engine, session, result?.compaction);
  });
}

/** `runtimeContext.tokenBudget` for a known model: the session's whole-context budget. */
function budgetOf(host: ContextEngineHost, model: HostModel | undefined): { tokenBudget?: number } {
  return model === undefined ? {} : { tokenBudget: host.contextBudget(model) };
}

/** An engine's own compaction in `maintain`, told to the hooks as the host's compactions are. */
function reportMaintenanceCompaction(
  host: ContextEngineHost,
  engine: ContextEngine,
  session: HostSession,
  compaction: ContextEngineMaintenanceResult["compaction"],
): void {
  if (compaction === undefined || !(compaction.tokensAfter < compaction.tokensBefore)) return;
  host.hooks?.afterCompaction?.({
    sessionId: session.sessionId,
    sessionKey: session.sessionKey,
    engineId: engine.info.id,
    trigger: "maintain",
    ownsCompaction: engine.info.ownsCompaction === true,
    result: { ok: true, compacted: true, result: { ...compaction } },
  });
}
