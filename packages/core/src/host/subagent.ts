import type { SubagentSpawnParams } from "../context-engine/types.js";

/** A spawn as the runner asks for it: the engine's params plus the host-only `lightContext`. */
export interface SubagentSpawnRequest extends SubagentSpawnParams {
  /** The child starts from a light bootstrap context; isolated spawns then skip engine preparation. */
  lightContext?: boolean;
}
