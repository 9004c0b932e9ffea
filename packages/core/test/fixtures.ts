/**
 * Small building blocks for the conformance tests: plain test engines, slot configs, gates and
 * call inspection. Everything here is real code; nothing is mocked at module level.
 */
import type {
  AgentMessage,
  AssistantMessage,
  ClewConfig,
  ContextEngine,
  ContextEngineFactory,
  ContextEngineInfo,
  ContextEngineRegistry,
  PluginsConfig,
  RegisterContextEngineOptions,
  ToolResultMessage,
} from "../src/index.js";
import { assistantMessage } from "./support.js";

export type EngineParts = Partial<Omit<ContextEngine, "info">> & { info?: Partial<ContextEngineInfo> };

/**
 * A minimal valid engine: `ingest` stores nothing new, `assemble` passes the messages through,
 * `compact` reports it did not compact. `parts` replaces any method and extends `info`.
 */
export function defineEngine(id: string, parts: EngineParts = {}): ContextEngine {
  const { info, ...methods } = parts;
  return {
    info: { id, name: `${id} test engine`, ...info },
    ingest: async () => ({ ingested: true }),
    assemble: async (params) => ({ messages: params.messages, estimatedTokens: 0 }),
    compact: async () => ({ ok: true, compacted: false, reason: "test engine does not compact" }),
    ...methods,
  };
}

/** Registers `engine` (an instance or a factory) as a runtime engine owned by `plugin:<id>`. */
export function registerEngine(
  registry: ContextEngineRegistry,
  id: string,
  engine: ContextEngine | ContextEngineFactory,
  options: Partial<RegisterContextEngineOptions> = {},
): void {
  const factory: ContextEngineFactory = typeof engine === "function" ? engine : () => engine;
  const result = registry.registerContextEngine(id, factory, { owner: `plugin:${id}`, ...options });
  if (!result.ok) throw new Error(`test setup: could not register ${id} (owned by ${result.existingOwner})`);
}

/** A config whose context-engine slot is `slot`, with extra `plugins` and top-level sections. */
export function slotConfig(
  slot: string | undefined,
  plugins: Omit<PluginsConfig, "slots"> = {},
  extra: Omit<ClewConfig, "plugins"> = {},
): ClewConfig {
  return { ...extra, plugins: { ...plugins, slots: slot === undefined ? {} : { contextEngine: slot } } };
}

/** The first argument of call `index` of a vi.fn, failing loudly when there was no such call. */
export function paramsOf<A extends unknown[]>(fn: { mock: { calls: A[] } }, index = 0): A[0] {
  const call = fn.mock.calls.at(index);
  if (call === undefined) throw new Error(`expected call #${index}, but there were ${fn.mock.calls.length}`);
  return call[0];
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/** A promise settled from outside: gates for ordering concurrent work in tests. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets already-queued promise callbacks run. */
export async function flushMicrotasks(rounds = 5): Promise<void> {
  for (let round = 0; round < rounds; round++) await Promise.resolve();
}

/** An assistant message that asks for one tool call. */
export function toolCallMessage(callId: string, toolName: string, timestamp = 3): AssistantMessage {
  return {
    ...assistantMessage(""),
    content: [{ type: "toolCall", id: callId, name: toolName, arguments: { query: "x" } }],
    stopReason: "toolUse",
    timestamp,
  };
}

export function toolResultMessage(
  callId: string,
  toolName: string,
  text: string,
  timestamp = 4,
): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: callId,
    toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp,
  };
}

/** An error carrying `name`, optionally caused by `cause`. */
export function namedError(name: string, message: string, cause?: unknown): Error {
  const error = new Error(message, cause === undefined ? undefined : { cause });
  error.name = name;
  return error;
}

export function roles(messages: readonly AgentMessage[]): string[] {
  return messages.map((message) =>
    typeof message === "object" && message !== null && "role" in message ? String(message.role) : "?",
  );
}
