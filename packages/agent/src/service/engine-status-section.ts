import type { ContextEngineHost, ContextEngineStatusSection } from "@clew/core";
import type { OpenSession } from "./local-agent-service.js";

/**
 * The session's section from its engine's optional `describeStatus` (a Clew extension), or
 * undefined when the engine has none, answers none, or fails: a status report never fails
 * because of it.
 */
export function engineStatusSection(open: OpenSession): Promise<ContextEngineStatusSection | undefined> {
  return engineStatusOf(open.runtime.host, open.session.sessionId, open.key);
}

/** `engineStatusSection` for a host and session id (a replay has no open session). */
export async function engineStatusOf(
  host: ContextEngineHost,
  sessionId: string,
  sessionKey?: string,
): Promise<ContextEngineStatusSection | undefined> {
  try {
    const { engine } = await host.engine();
    return await engine.describeStatus?.({ sessionId, ...(sessionKey === undefined ? {} : { sessionKey }) });
  } catch {
    return undefined;
  }
}
