import { type TranscriptEntry, UnknownSessionError } from "@clew/core";
import type { CliContext } from "../context.js";

/** Accepts a session id or a session key from the index. */
export async function resolveSessionId(
  context: CliContext,
  agentId: string,
  reference: string,
): Promise<string> {
  const entry = await context.index(agentId).get(reference);
  if (entry !== undefined) return entry.sessionId;
  if (await context.store.exists(agentId, reference)) return reference;
  throw new UnknownSessionError(agentId, reference);
}

export async function describeSession(
  context: CliContext,
  agentId: string,
  sessionId: string,
  limit: number,
): Promise<{ text: string; json: unknown }> {
  const transcript = await context.store.openReadOnly(agentId, sessionId);
  const entries = transcript.entries();
  const counts: Record<string, number> = {};
  for (const entry of entries) {
    const kind = entry.type === "message" ? `message:${roleOf(entry)}` : entry.type;
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  const latest = transcript
    .branch()
    .filter((entry) => entry.type === "message")
    .slice(-Math.max(0, limit))
    .map((entry) => ({ id: entry.id, role: roleOf(entry), text: preview(entry) }));
  const json = {
    header: transcript.header,
    location: transcript.location,
    counts,
    loadIssues: transcript.loadIssues,
    latest,
  };
  const lines = [
    `Session ${sessionId} (${transcript.location})`,
    `  started ${transcript.header.timestamp}${transcript.header.cwd ? ` in ${transcript.header.cwd}` : ""}`,
    `  ${Object.entries(counts)
      .map(([kind, count]) => `${count} ${kind}`)
      .join(", ")}`,
    ...transcript.loadIssues.map(
      (issue) => `  problem: ${issue.location}:${issue.line}: ${issue.kind}: ${issue.reason}`,
    ),
    "",
    ...latest.map((message) => `[${message.role}] ${message.text}`),
  ];
  return { text: `${lines.join("\n")}\n`, json };
}

function roleOf(entry: TranscriptEntry): string {
  const message = entry.message as { role?: unknown } | undefined;
  return typeof message?.role === "string" ? message.role : "unknown";
}

/** One line a person can read: text as text, tool calls as calls, bash runs as commands. */
function preview(entry: TranscriptEntry): string {
  const message = entry.message as Record<string, unknown>;
  const parts: string[] = [];
  if (message.role === "bashExecution") parts.push(`$ ${String(message.command)}`);
  const content = message.content;
  if (typeof content === "string") parts.push(content);
  else if (Array.isArray(content)) {
    for (const block of content as Array<Record<string, unknown>>) {
      if (block.type === "text") parts.push(String(block.text));
      else if (block.type === "thinking") parts.push(`(thinking) ${String(block.thinking)}`);
      else if (block.type === "toolCall")
        parts.push(`→ ${String(block.name)}(${JSON.stringify(block.arguments)})`);
      else parts.push(`[${String(block.type)}]`);
    }
  }
  const flat = parts.join(" ").replace(/\s+/g, " ").trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}
