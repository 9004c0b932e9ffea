/**
 * The memory slot's prompt section. The active memory plugin registers a builder; context engines
 * (and the host) turn it into a `systemPromptAddition` with `buildMemorySystemPromptAddition`,
 * OpenClaw's name and shape (`openclaw/plugin-sdk/core`), so engines written for OpenClaw work
 * unchanged.
 *
 * OpenClaw's function takes no registry argument, so there is one registry per process
 * (`memoryPromptRegistry`). It is owner-aware: a plugin's unload removes only its own section, never
 * the section a newer plugin registered. The host may scope per-run defaults (agent, session key,
 * citations, sandbox) with `runWithMemoryPromptContext`; explicit parameters always win.
 *
 * Builders should be fast and pure. A builder that throws (or, for the sync variant, returns a
 * promise) contributes nothing: a memory prompt must never fail an engine's `assemble`.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { AssembleParams } from "@clew/core";

export type MemoryCitationsMode = NonNullable<AssembleParams["citationsMode"]>;

export interface MemoryPromptSectionParams {
  /** Names of the tools the model has this run; a section mentions only tools that exist. */
  availableTools: ReadonlySet<string>;
  citationsMode?: MemoryCitationsMode;
  agentId?: string;
  agentSessionKey?: string;
  /** The run's tools work in a sandbox (paths and writes may differ). */
  sandboxed?: boolean;
}

/** Lines of the memory section (without a trailing newline each); empty for none. */
export type MemoryPromptSectionBuilder = (
  params: MemoryPromptSectionParams,
) => readonly string[] | Promise<readonly string[]>;

export interface RegisterMemoryPromptSectionOptions {
  /** Who registers, e.g. `plugin:memory-core`; default `"default"`. */
  owner?: string;
}

/** Per-run defaults for the builders' parameters; see `runWithMemoryPromptContext`. */
export type MemoryPromptContext = Omit<MemoryPromptSectionParams, "availableTools">;

/** Holds the active memory plugin's prompt builder. One instance per process is exported. */
export class MemoryPromptRegistry {
  private active: { owner: string; builder: MemoryPromptSectionBuilder } | undefined;

  /** Makes `builder` the active section (the memory slot is exclusive: the last one wins). */
  register(builder: MemoryPromptSectionBuilder, options: RegisterMemoryPromptSectionOptions = {}): void {
    this.active = { owner: options.owner ?? "default", builder };
  }

  /** Removes the section if `owner` registered it; returns whether it did. */
  unregister(owner: string): boolean {
    if (this.active?.owner !== owner) return false;
    this.active = undefined;
    return true;
  }

  /** Who registered the active section, if any. */
  owner(): string | undefined {
    return this.active?.owner;
  }

  clear(): void {
    this.active = undefined;
  }

  /** The active builder's lines, or [] (no builder, a throw, or a promise). */
  buildLines(params: MemoryPromptSectionParams): string[] {
    const result = this.invoke(params);
    // An async builder's promise is dropped here; its rejection must not go unhandled.
    if (result instanceof Promise) result.catch(() => {});
    return isLines(result) ? normalizeLines(result) : [];
  }

  /** As `buildLines`, awaiting an async builder. Never rejects. */
  async prepareLines(params: MemoryPromptSectionParams): Promise<string[]> {
    try {
      const result = await this.invoke(params);
      return isLines(result) ? normalizeLines(result) : [];
    } catch {
      return [];
    }
  }

  private invoke(params: MemoryPromptSectionParams): unknown {
    if (this.active === undefined) return [];
    try {
      return this.active.builder(withContext(params));
    } catch {
      return [];
    }
  }
}

/** The process's memory prompt registry (what the free functions below use). */
export const memoryPromptRegistry = new MemoryPromptRegistry();

const runContext = new AsyncLocalStorage<MemoryPromptContext>();

/**
 * Runs `work` with per-run defaults for memory prompt builders: parameters a caller of
 * `buildMemorySystemPromptAddition` leaves out are taken from `context` (OpenClaw fills them from
 * the run's memory snapshot the same way).
 */
export function runWithMemoryPromptContext<T>(context: MemoryPromptContext, work: () => T): T {
  return runContext.run(context, work);
}

/** Makes `builder` the active memory prompt section of this process. */
export function registerMemoryPromptSection(
  builder: MemoryPromptSectionBuilder,
  options: RegisterMemoryPromptSectionOptions = {},
): void {
  memoryPromptRegistry.register(builder, options);
}

/** Removes the active section if `owner` registered it. */
export function unregisterMemoryPromptSection(owner: string): boolean {
  return memoryPromptRegistry.unregister(owner);
}

/** The active memory plugin's raw lines (blank lines at the ends removed); [] when none. */
export function buildMemoryPromptLines(params: MemoryPromptSectionParams): string[] {
  return memoryPromptRegistry.buildLines(params);
}

/**
 * The active memory plugin's section as one string for `AssembleResult.systemPromptAddition`,
 * or `undefined` when there is none or it is empty. Synchronous: an async builder contributes
 * nothing here; use `prepareMemorySystemPromptAddition`.
 */
export function buildMemorySystemPromptAddition(params: MemoryPromptSectionParams): string | undefined {
  return joinLines(memoryPromptRegistry.buildLines(params));
}

/** As `buildMemorySystemPromptAddition`, awaiting an async builder. Never rejects. */
export async function prepareMemorySystemPromptAddition(
  params: MemoryPromptSectionParams,
): Promise<string | undefined> {
  return joinLines(await memoryPromptRegistry.prepareLines(params));
}

function withContext(params: MemoryPromptSectionParams): MemoryPromptSectionParams {
  const context = runContext.getStore();
  if (context === undefined) return params;
  const given = Object.entries(params).filter(([, value]) => value !== undefined);
  return { ...context, ...Object.fromEntries(given) } as MemoryPromptSectionParams;
}

function isLines(value: unknown): value is readonly string[] {
  return Array.isArray(value) && value.every((line) => typeof line === "string");
}

function normalizeLines(lines: readonly string[]): string[] {
  const trimmed = lines.map((line) => line.trimEnd());
  let start = 0;
  let end = trimmed.length;
  while (start < end && trimmed[start] === "") start++;
  while (end > start && trimmed[end - 1] === "") end--;
  return trimmed.slice(start, end);
}

function joinLines(lines: string[]): string | undefined {
  const text = lines.join("\n").trim();
  return text === "" ? undefined : text;
}
