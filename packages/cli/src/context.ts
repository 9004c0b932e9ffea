import {
  type ClewConfig,
  type FsyncPolicy,
  JsonlTranscriptStore,
  loadConfig,
  resolveClewHome,
  SessionIndex,
} from "@clew/core";
import type { CliIo } from "./io.js";

export interface CliContext {
  home: string;
  config: ClewConfig;
  store: JsonlTranscriptStore;
  index(agentId: string): SessionIndex;
}

/** Home folder, config and stores for one command run. Loading never writes anything. */
export async function openCliContext(io: CliIo): Promise<CliContext> {
  const home = resolveClewHome(io.env);
  const { config } = await loadConfig(home);
  const fsync = (config.session as { fsync?: FsyncPolicy } | undefined)?.fsync;
  const store = new JsonlTranscriptStore(fsync === undefined ? { home } : { home, fsync });
  return { home, config, store, index: (agentId) => new SessionIndex({ home, agentId }) };
}

/** The session key Clew uses when none is given: `agent:<agentId>:<sessionId>`. */
export function defaultSessionKey(agentId: string, sessionId: string): string {
  return `agent:${agentId}:${sessionId}`;
}
