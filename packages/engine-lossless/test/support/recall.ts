import type { LosslessEngine } from "../../src/lossless-engine.js";
import type { RecallTool } from "../../src/tools/recall-tools.js";

/** The engine's three recall tools for a session, by name. */
export function recallToolsOf(
  engine: LosslessEngine,
  sessionId: string,
): { search: RecallTool; read: RecallTool; describe: RecallTool } {
  const [search, read, describe] = engine.tools({ sessionId });
  if (search === undefined || read === undefined || describe === undefined)
    throw new Error("missing recall tools");
  return { search, read, describe };
}
