import { createInterface } from "node:readline";
import type { AgentService, TurnEvent } from "@clew/agent";
import type { Command } from "commander";
import { openLocalAgentService } from "../agent-service.js";
import type { CliIo } from "../io.js";
import { RemoteAgentService } from "../remote-agent-service.js";

/** `clew chat`: an interactive chat with the agent, in this process or through a gateway. */
export function registerChatCommand(program: Command, io: CliIo): void {
  program
    .command("chat")
    .description("chat with the agent in the terminal (commands like /status and /compact work here)")
    .option("--session <key>", "session key", "agent:main:main")
    .option("--url <url>", "talk to a running gateway instead of running the agent here")
    .option("--token <token>", "the gateway's bearer token (or CLEW_GATEWAY_TOKEN)")
    .action(async (options: { session: string; url?: string; token?: string }) => {
      const token = options.token ?? io.env.CLEW_GATEWAY_TOKEN;
      const service: AgentService =
        options.url === undefined
          ? await openLocalAgentService(io)
          : new RemoteAgentService(options.url.replace(/\/+$/, ""), token === "" ? undefined : token);
      try {
        await chatLoop(service, io, options.session);
      } finally {
        await service.close();
      }
    });
}

async function chatLoop(service: AgentService, io: CliIo, sessionKey: string): Promise<void> {
  await service.createSession({ sessionKey });
  io.stdout(`Clew chat · session ${sessionKey} · /help for commands, /exit or Ctrl-D to leave\n`);
  const lines = createInterface({ input: io.stdin ?? process.stdin, terminal: false });
  for await (const line of lines) {
    const text = line.trim();
    if (text === "") continue;
    if (text === "/exit" || text === "/quit") break;
    await sendOne(service, io, sessionKey, text);
  }
}

async function sendOne(service: AgentService, io: CliIo, sessionKey: string, text: string): Promise<void> {
  let streamed = "";
  const onEvent = (event: TurnEvent) => {
    if (event.type === "text-delta") {
      streamed += event.delta;
      io.stdout(event.delta);
    } else if (event.type === "tool-start") {
      io.stdout(
        `${streamed.endsWith("\n") || streamed === "" ? "" : "\n"}→ ${event.name}(${briefArguments(event.arguments)})\n`,
      );
      streamed = "";
    } else if (event.type === "tool-end" && event.isError) {
      io.stdout(
        `  ✗ ${firstLine(event.result.content.map((block) => (block.type === "text" ? block.text : "")).join(""))}\n`,
      );
    } else if (event.type === "compaction-start") {
      io.stdout(`🧹 Compacting context (${event.trigger})...\n`);
    }
  };
  const result = await service.sendMessage(sessionKey, text, { onEvent });
  if (result.kind === "command" || !result.ok) {
    io.stdout(`${streamed === "" ? "" : "\n"}${result.text}\n`);
    return;
  }
  const rest = result.text.startsWith(streamed) ? result.text.slice(streamed.length) : `\n${result.text}`;
  io.stdout(`${rest}\n`);
}

function briefArguments(value: unknown): string {
  const text = JSON.stringify(value) ?? "";
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 200);
}
