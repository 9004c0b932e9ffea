import type { ContextEngineStatusSection } from "@clew/core";
import type { OpenSession } from "./local-agent-service.js";

/**
 * The session's section from its engine's optional `describeStatus` (a Clew extension), or
 * undefined when the engine has none, answers none, or fails: a status report never fails
 * because of it.
 */
export async function engineStatusSection(
  open: OpenSession,
): Promise<ContextEngineStatusSection | undefined> {
  try {
    const { engine } = await open.runtime.host.engine();
    return await engine.describeStatus?.({ sessionId: open.session.sessionId });
  } catch {
    return undefined;
  }
}
