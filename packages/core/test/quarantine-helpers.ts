/**
 * Shared setup of the quarantine and guarded-engine tests: a registry whose legacy factory is
 * recorded, an "acme" engine made of the given parts, resolved through the guarded wrapper.
 */
import { expect, vi } from "vitest";
import {
  type ContextEngineFactory,
  createContextEngineRegistry,
  createLegacyContextEngine,
  GuardedContextEngine,
  type MaintainParams,
  MemoryLogger,
  type ResolvedContextEngine,
  resolveContextEngine,
} from "../src/index.js";
import { defineEngine, type EngineParts, registerEngine, slotConfig } from "./fixtures.js";

export const NOW = 1_700_000_000_000;

export function setup() {
  const registry = createContextEngineRegistry();
  const legacyFactory = vi.fn<ContextEngineFactory>(async () => createLegacyContextEngine());
  registry.registerContextEngine("legacy", legacyFactory, { owner: "core", allowSameOwnerRefresh: true });
  const logger = new MemoryLogger();
  const resolve = () =>
    resolveContextEngine(registry, { config: slotConfig("acme"), logger, now: () => NOW });
  return { registry, legacyFactory, logger, resolve };
}

export function guarded(resolved: ResolvedContextEngine): GuardedContextEngine {
  expect(resolved.engine).toBeInstanceOf(GuardedContextEngine);
  return resolved.engine as GuardedContextEngine;
}

export async function setupWith(parts: EngineParts) {
  const context = setup();
  const factory = vi.fn<ContextEngineFactory>(() => defineEngine("acme", parts));
  registerEngine(context.registry, "acme", factory);
  const engine = guarded(await context.resolve());
  return { ...context, factory, engine };
}

export const maintainParams = (abortSignal?: AbortSignal): MaintainParams => ({
  sessionId: "s1",
  sessionKey: "agent:main:s1",
  sessionFile: "memory:s1",
  ...(abortSignal === undefined ? {} : { abortSignal }),
});
