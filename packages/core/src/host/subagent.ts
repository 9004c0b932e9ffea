import { assertContextEngineHostSupport } from "../context-engine/host-requirements.js";
import type { SubagentEndedParams, SubagentSpawnParams } from "../context-engine/types.js";
import { describeError, SubagentPreparationError } from "../errors.js";
import type { ContextEngineHost } from "./context-engine-host.js";

/** A spawn as the runner asks for it: the engine's params plus the host-only `lightContext`. */
export interface SubagentSpawnRequest extends SubagentSpawnParams {
  /** The child starts from a light bootstrap context; isolated spawns then skip engine preparation. */
  lightContext?: boolean;
}

/**
 * Brackets a child run with the engine's subagent hooks. Preparation failure fails the spawn
 * closed (and quarantines the engine); a child that fails after preparation triggers the rollback.
 * Isolated spawns that ask for `lightContext` skip preparation so the child starts clean.
 */
export async function spawnSubagent<T>(
  host: ContextEngineHost,
  request: SubagentSpawnRequest,
  runChild: () => Promise<T>,
): Promise<T> {
  const { engine } = await host.engine();
  assertContextEngineHostSupport(engine.info, "subagent-spawn", host.hostDescriptor);
  const { lightContext, ...params } = request;
  const skip = lightContext === true && (params.contextMode ?? "isolated") === "isolated";
  let rollback: (() => void | Promise<void>) | undefined;
  if (!skip && engine.prepareSubagentSpawn !== undefined) {
    // Read before the call: a failure quarantines the engine and its info turns into the fallback's.
    const engineId = engine.info.id;
    try {
      rollback = (await engine.prepareSubagentSpawn(params))?.rollback;
    } catch (error) {
      throw new SubagentPreparationError(engineId, error);
    }
  }
  try {
    return await runChild();
  } catch (error) {
    if (rollback !== undefined) {
      try {
        await rollback();
      } catch (rollbackError) {
        host.logger.warn(`context engine subagent rollback failed: ${describeError(rollbackError)}`);
      }
    }
    throw error;
  }
}

/** Best effort: tells the engine a child session ended; never throws. */
export async function endSubagent(host: ContextEngineHost, params: SubagentEndedParams): Promise<void> {
  try {
    const { engine } = await host.engine();
    await engine.onSubagentEnded?.(params);
  } catch (error) {
    host.logger.warn(`context-engine onSubagentEnded failed (best-effort): ${describeError(error)}`);
  }
}
