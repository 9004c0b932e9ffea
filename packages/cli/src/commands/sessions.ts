import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  exportTranscript,
  formatBytes,
  importTranscript,
  isTranscriptExportFormat,
  type NewTranscriptEntry,
  TRANSCRIPT_EXPORT_FORMATS,
} from "@clew/core";
import type { Command } from "commander";
import { type CliContext, defaultSessionKey, openCliContext } from "../context.js";
import { type CliIo, CliUsageError } from "../io.js";
import { describeSession, resolveSessionId } from "./session-lookup.js";

interface AgentOption {
  agent: string;
  json?: boolean;
}

/** `clew sessions import|list|show|export`. */
export function registerSessionsCommands(program: Command, io: CliIo): void {
  const sessions = program
    .command("sessions")
    .description("import, list, show and export session transcripts");

  sessions
    .command("import")
    .description("import a pi, OpenClaw, Claude Code or Clew JSONL transcript")
    .argument("<file>", "transcript file")
    .option("--agent <id>", "agent that owns the session", "main")
    .option("--session-id <id>", "id for the imported session (default: the transcript's own)")
    .option("--key <sessionKey>", "session key in the sessions index (default agent:<agent>:<id>)")
    .option("--json", "print the result as JSON")
    .action(async (file: string, options: AgentOption & { sessionId?: string; key?: string }) => {
      await importSession(await openCliContext(io), io, resolve(io.cwd, file), options);
    });

  sessions
    .command("list")
    .description("list the sessions of an agent")
    .option("--agent <id>", "agent", "main")
    .option("--json", "print as JSON")
    .action(async (options: AgentOption) => listSessions(await openCliContext(io), io, options));

  sessions
    .command("show")
    .description("show a session: header, counts, problems and its latest messages")
    .argument("<session>", "session id or session key")
    .option("--agent <id>", "agent", "main")
    .option("--limit <n>", "latest messages to show", "10")
    .option("--json", "print as JSON")
    .action(async (session: string, options: AgentOption & { limit: string }) => {
      const context = await openCliContext(io);
      const sessionId = await resolveSessionId(context, options.agent, session);
      const description = await describeSession(context, options.agent, sessionId, Number(options.limit));
      io.stdout(options.json ? `${JSON.stringify(description.json, null, 2)}\n` : description.text);
    });

  sessions
    .command("export")
    .description(`export a session (${TRANSCRIPT_EXPORT_FORMATS.join(", ")})`)
    .argument("<session>", "session id or session key")
    .option("--agent <id>", "agent", "main")
    .option("--format <format>", "output format", "clew")
    .option("--out <file>", "write to a file instead of stdout")
    .action(async (session: string, options: { agent: string; format: string; out?: string }) => {
      if (!isTranscriptExportFormat(options.format)) {
        throw new CliUsageError(
          `unknown format "${options.format}"; use ${TRANSCRIPT_EXPORT_FORMATS.join(", ")}`,
        );
      }
      const context = await openCliContext(io);
      const sessionId = await resolveSessionId(context, options.agent, session);
      const transcript = await context.store.openReadOnly(options.agent, sessionId);
      const text = exportTranscript(transcript.header, transcript.entries(), options.format);
      if (options.out === undefined) io.stdout(text);
      else await writeFile(resolve(io.cwd, options.out), text);
    });
}

async function importSession(
  context: CliContext,
  io: CliIo,
  file: string,
  options: AgentOption & { sessionId?: string; key?: string },
): Promise<void> {
  const text = await readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new CliUsageError(
      `cannot read ${file}: ${error.code === "ENOENT" ? "no such file" : error.message}`,
    );
  });
  const imported = importTranscript(text, {
    sourceName: file,
    ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
  });
  const sessionId = imported.header.id;
  if (await context.store.exists(options.agent, sessionId)) {
    throw new CliUsageError(
      `session ${sessionId} already exists for agent ${options.agent}; pass --session-id to import a copy`,
    );
  }
  const {
    type: _type,
    id: _id,
    timestamp: _timestamp,
    version: _version,
    cwd,
    parentSession,
    ...headerFields
  } = imported.header;
  const transcript = await context.store.create({
    agentId: options.agent,
    sessionId,
    headerFields: { ...headerFields, importedFrom: file, importedFormat: imported.format },
    timestamp: imported.header.timestamp,
    ...(typeof cwd === "string" ? { cwd } : {}),
    ...(typeof parentSession === "string" ? { parentSession } : {}),
  });
  try {
    await transcript.append(imported.entries as unknown as NewTranscriptEntry[]);
    await transcript.flush();
  } finally {
    await transcript.close();
  }
  const compactionCount = imported.entries.filter((entry) => entry.type === "compaction").length;
  const sessionKey = options.key ?? defaultSessionKey(options.agent, sessionId);
  await context
    .index(options.agent)
    .upsert(sessionKey, { sessionId, sessionFile: transcript.location, compactionCount });
  const summary = {
    sessionId,
    sessionKey,
    file: transcript.location,
    format: imported.format,
    entries: imported.entries.length,
    ...imported.stats,
  };
  if (options.json) {
    io.stdout(`${JSON.stringify(summary, null, 2)}\n`);
    return;
  }
  const skipped = Object.entries(imported.stats.skipped).map(([reason, count]) => `${count} ${reason}`);
  io.stdout(
    `Imported ${imported.format} transcript as session ${sessionId} (${sessionKey})\n` +
      `  ${imported.stats.messages} messages, ${imported.stats.toolCalls} tool calls, ${imported.stats.toolResults} tool results, ${compactionCount} compactions\n` +
      (skipped.length > 0 ? `  skipped: ${skipped.join(", ")}\n` : "") +
      imported.stats.issues.map((issue) => `  warning: ${file}:${issue.line}: ${issue.reason}\n`).join("") +
      `  stored at ${transcript.location}\n`,
  );
}

async function listSessions(context: CliContext, io: CliIo, options: AgentOption): Promise<void> {
  const [infos, indexed] = await Promise.all([
    context.store.list(options.agent),
    context.index(options.agent).list(),
  ]);
  const keyOf = new Map(indexed.map((entry) => [entry.sessionId, entry]));
  const rows = infos
    .sort((left, right) => right.modifiedAt - left.modifiedAt)
    .map((info) => ({
      sessionId: info.sessionId,
      sessionKey: keyOf.get(info.sessionId)?.sessionKey ?? null,
      updatedAt: new Date(keyOf.get(info.sessionId)?.updatedAt ?? info.modifiedAt).toISOString(),
      bytes: info.bytes,
      compactions: keyOf.get(info.sessionId)?.compactionCount ?? 0,
      file: info.location,
    }));
  if (options.json) {
    io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  if (rows.length === 0) {
    io.stdout(`No sessions for agent ${options.agent}.\n`);
    return;
  }
  for (const row of rows) {
    io.stdout(
      `${row.sessionId}  ${row.updatedAt}  ${formatBytes(row.bytes)}  ${row.compactions} compactions  ${row.sessionKey ?? ""}\n`,
    );
  }
}
