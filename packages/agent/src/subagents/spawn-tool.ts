import { randomUUID } from "node:crypto";
import { Type } from "typebox";
import type { LocalAgentService, OpenSession } from "../service/local-agent-service.js";
import type { AgentTool } from "../tools/tool.js";

export const SPAWN_SUBAGENT_TOOL = "spawn_subagent";

const parameters = Type.Object({
  task: Type.String({ description: "What the subagent should do; it answers with its final message." }),
  context: Type.Optional(
    Type.Union([Type.Literal("isolated"), Type.Literal("fork")], {
      description: "isolated (default): a clean session; fork: starts from this conversation.",
    }),
  ),
  lightContext: Type.Optional(
    Type.Boolean({ description: "Start an isolated child with a minimal context." }),
  ),
});

/** A session key is a subagent's when it was spawned by this tool; subagents do not spawn again. */
export function isSubagentSessionKey(sessionKey: string): boolean {
  return sessionKey.includes(":sub:");
}

/**
 * `spawn_subagent`: runs a task in a child session and returns the child's answer. The context
 * engine brackets it: `prepareSubagentSpawn` before the child starts (skipped for isolated,
 * light-context spawns), its rollback when the child fails, `onSubagentEnded` when it is done.
 * Children cannot run commands or spawn children of their own.
 */
export function createSpawnSubagentTool(
  service: LocalAgentService,
  parent: OpenSession,
  options: { ttlMs?: number } = {},
): AgentTool<typeof parameters, { childSessionKey: string; contextMode: string }> {
  return {
    name: SPAWN_SUBAGENT_TOOL,
    label: "Spawn subagent",
    description: "Run a task in a separate subagent session and get its final answer.",
    parameters,
    async execute(_toolCallId, params, signal) {
      const contextMode = params.context ?? "isolated";
      const childSessionKey = `${parent.key}:sub:${randomUUID().slice(0, 8)}`;
      signal?.throwIfAborted();
      await service.createSession({ sessionKey: childSessionKey });
      let child: OpenSession;
      try {
        child = await service.openSession(childSessionKey);
        if (contextMode === "fork") {
          // The child starts from what the parent's model saw, the current request included.
          await child.session.append(parent.lastRequestMessages ?? (await parent.session.messages()));
        }
        signal?.throwIfAborted();
      } catch (error) {
        // A run stopped meanwhile (its session deleted, say) must not leave a copy of it behind: a
        // stopped run does not wait for its tools, so the deletion may have listed the children
        // before this one existed.
        if (signal?.aborted) await service.deleteSession(childSessionKey).catch(() => undefined);
        throw error;
      }
      const host = parent.runtime.host;
      const answer = await host.spawnSubagent(
        {
          parentSessionKey: parent.key,
          childSessionKey,
          contextMode,
          parentSessionId: parent.session.sessionId,
          parentSessionFile: parent.session.sessionFile,
          childSessionId: child.session.sessionId,
          childSessionFile: child.session.sessionFile,
          ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
          ...(params.lightContext === undefined ? {} : { lightContext: params.lightContext }),
        },
        async () => {
          const reply = await service.sendMessage(childSessionKey, params.task, {
            authorized: false,
            ...(signal === undefined ? {} : { signal }),
          });
          if (!reply.ok) throw new Error(`The subagent failed: ${reply.text}`);
          return reply.text;
        },
      );
      await host.endSubagent({ childSessionKey, reason: "completed" });
      // Done with: its transcript and lock are not held for the life of the service (a gateway
      // spawning all day kept every child open). It opens again if it is ever messaged.
      await service.closeSession(childSessionKey).catch(() => undefined);
      return { content: [{ type: "text", text: answer }], details: { childSessionKey, contextMode } };
    },
  };
}
