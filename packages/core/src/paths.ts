import { homedir } from "node:os";
import { join } from "node:path";

/** Clew's home folder: `CLEW_HOME` when set, else `~/.clew`. */
export function resolveClewHome(env: Record<string, string | undefined> = process.env): string {
  const override = env.CLEW_HOME?.trim();
  return override ? override : join(homedir(), ".clew");
}

/** `<home>/agents/<agentId>`. */
export function agentDir(home: string, agentId: string): string {
  return join(home, "agents", agentId);
}

/** `<home>/agents/<agentId>/sessions`: transcripts and the sessions index. */
export function agentSessionsDir(home: string, agentId: string): string {
  return join(agentDir(home, agentId), "sessions");
}

/** `<home>/clew.json`. */
export function configPath(home: string): string {
  return join(home, "clew.json");
}
