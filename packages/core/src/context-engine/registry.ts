import { QuarantineLedger } from "./quarantine.js";
import type { ContextEngineFactory } from "./types.js";

export const DEFAULT_CONTEXT_ENGINE_ID = "legacy";
export const CORE_OWNER = "core";

/**
 * `runtime` registrations may run turns. `readOnlyDiscovery` ones exist so inspection commands can
 * list an engine whose plugin was loaded without running its runtime; they never run a turn and
 * never replace a runtime registration.
 */
export type ContextEngineRegistrationLifecycle = "runtime" | "readOnlyDiscovery";

export interface ContextEngineRegistration {
  id: string;
  factory: ContextEngineFactory;
  /** `core`, `plugin:<pluginId>`, or `test:<name>`. */
  owner: string;
  lifecycle: ContextEngineRegistrationLifecycle;
}

export interface RegisterContextEngineOptions {
  owner: string;
  /** Lets an owner replace its own registration (plugin hot reload). */
  allowSameOwnerRefresh?: boolean;
  lifecycle?: ContextEngineRegistrationLifecycle;
}

export type RegisterContextEngineResult = { ok: true } | { ok: false; existingOwner: string };

/**
 * The engines a process can select, who registered each, and which ones are quarantined.
 * An instance is passed to whatever needs it (host, plugin loader, commands); there is no global.
 */
export class ContextEngineRegistry {
  readonly quarantine = new QuarantineLedger();
  private readonly registrations = new Map<string, ContextEngineRegistration>();

  /**
   * Registers `factory` under `id`. Refused, with the current owner reported, when another owner
   * holds the id, when a non-core owner asks for `legacy`, or when the same owner re-registers
   * without `allowSameOwnerRefresh`. A runtime registration lifts the id's quarantine.
   */
  registerContextEngine(
    id: string,
    factory: ContextEngineFactory,
    options: RegisterContextEngineOptions,
  ): RegisterContextEngineResult {
    const owner = typeof options.owner === "string" ? options.owner.trim() : "";
    if (owner.length === 0) {
      throw new TypeError(
        `registerContextEngine: owner must be a non-empty string, got "${String(options.owner)}"`,
      );
    }
    if (id === DEFAULT_CONTEXT_ENGINE_ID && owner !== CORE_OWNER)
      return { ok: false, existingOwner: CORE_OWNER };
    const lifecycle = options.lifecycle ?? "runtime";
    const existing = this.registrations.get(id);
    if (existing !== undefined) {
      if (existing.owner !== owner) return { ok: false, existingOwner: existing.owner };
      if (existing.lifecycle === "runtime" && lifecycle === "readOnlyDiscovery") return { ok: true };
      if (options.allowSameOwnerRefresh !== true) return { ok: false, existingOwner: existing.owner };
    }
    this.registrations.set(id, { id, factory, owner, lifecycle });
    if (lifecycle === "runtime") this.quarantine.clear(id);
    return { ok: true };
  }

  get(id: string): ContextEngineRegistration | undefined {
    return this.registrations.get(id);
  }

  ids(): string[] {
    return [...this.registrations.keys()];
  }

  list(): ContextEngineRegistration[] {
    return [...this.registrations.values()];
  }

  /** Drops every registration of an owner (plugin unload). Returns the ids removed. */
  unregisterOwner(owner: string): string[] {
    const removed: string[] = [];
    for (const [id, registration] of this.registrations) {
      if (registration.owner === owner && id !== DEFAULT_CONTEXT_ENGINE_ID) {
        this.registrations.delete(id);
        removed.push(id);
      }
    }
    return removed;
  }

  /** The plugin id behind an owner string, or undefined for core and test owners. */
  static ownerPluginId(owner: string | undefined): string | undefined {
    return owner?.startsWith("plugin:") ? owner.slice("plugin:".length) : undefined;
  }
}
