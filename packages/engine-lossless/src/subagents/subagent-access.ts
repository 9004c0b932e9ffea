/**
 * The engine's subagent hooks and what a child's recall tools may read of its parent.
 *
 * - `prepare` (prepareSubagentSpawn): a `fork` child gets a grant on the parent session up to the
 *   parent's newest stored message, valid for `subagentGrantTtlMs` (or the spawn's shorter
 *   `ttlMs`); the rollback deletes it. `isolated` children (and spawns naming no mode) get
 *   nothing and start clean. Never throws: a throw would fail the spawn and quarantine the engine,
 *   while a fork without a grant can still run, so problems (no parent session id, no store, a
 *   store error) are logged and the child gets no grant.
 * - `end` (onSubagentEnded): ends the child's grant, whatever the reason.
 * - `parentFor(session)`: the parent history a session's recall tools may read now, or a
 *   `ParentRecallError` saying why not.
 *
 * Grants live in memory and do not survive a restart; that is safe because children do not either
 * (a child runs inside its parent's tool call).
 */
import {
  describeError,
  type Logger,
  type SubagentEndedParams,
  type SubagentSpawnParams,
  type SubagentSpawnPreparation,
} from "@clew/core";
import type { LosslessStore } from "../store/store.js";
import type { ParentHistory } from "../tools/recall-scope.js";
import { ParentRecallError } from "./parent-recall-error.js";
import { scopeStoreToGrant } from "./scoped-store.js";
import { type SubagentGrant, SubagentGrants } from "./subagent-grants.js";

export interface SubagentAccessOptions {
  /** The engine's store; undefined when unusable (or disposed). */
  store: () => LosslessStore | undefined;
  now: () => number;
  /** The longest a grant lasts. */
  grantTtlMs: number;
  logger: Logger;
}

export class SubagentAccess {
  private readonly grants: SubagentGrants;

  constructor(private readonly options: SubagentAccessOptions) {
    this.grants = new SubagentGrants(options.now, options.grantTtlMs);
  }

  async prepare(params: SubagentSpawnParams): Promise<SubagentSpawnPreparation | undefined> {
    if (params.contextMode !== "fork") return undefined;
    const store = this.options.store();
    const parentSessionId = params.parentSessionId;
    if (store === undefined || parentSessionId === undefined) {
      this.options.logger.warn("lossless: the forked subagent gets no access to its parent's history", {
        childSessionKey: params.childSessionKey,
        reason: store === undefined ? "the store is unavailable" : "the spawn names no parentSessionId",
      });
      return undefined;
    }
    let maxSeq: number;
    try {
      // Seqs count a session's messages from 1 and never change, so the count is the newest seq.
      maxSeq = (await store.sessionStats(parentSessionId)).messageCount;
    } catch (error) {
      this.options.logger.warn("lossless: could not read the parent session for a subagent grant", {
        childSessionKey: params.childSessionKey,
        error: describeError(error),
      });
      return undefined;
    }
    const now = this.options.now();
    const { revoke } = this.grants.add({
      parentSessionId,
      parentSessionKey: params.parentSessionKey,
      childSessionKey: params.childSessionKey,
      childSessionId: params.childSessionId,
      maxSeq,
      createdAt: now,
      expiresAt: now + this.ttlFor(params.ttlMs),
    });
    return { rollback: revoke };
  }

  end(params: SubagentEndedParams): void {
    this.grants.end(params.childSessionKey, params.reason);
  }

  /** @throws ParentRecallError when the session may not read a parent now. */
  parentFor(session: { sessionKey?: string; sessionId: string }): ParentHistory {
    const found = this.grants.lookup(session);
    if (found.status === "none") {
      throw new ParentRecallError(
        "no-grant",
        "This conversation has no access to a parent conversation: only forked subagents get one, while they run",
      );
    }
    const { grant } = found;
    if (found.status === "ended") {
      throw new ParentRecallError(
        "ended",
        `Access to the parent conversation ${grant.parentSessionKey} ended when this subagent ended (${grant.ended?.reason})`,
      );
    }
    if (found.status === "expired") {
      throw new ParentRecallError(
        "expired",
        `Access to the parent conversation ${grant.parentSessionKey} expired at ${new Date(grant.expiresAt).toISOString()}`,
      );
    }
    return this.historyOf(grant);
  }

  clear(): void {
    this.grants.clear();
  }

  private historyOf(grant: SubagentGrant): ParentHistory {
    const store = this.options.store();
    if (store === undefined) {
      throw new Error(
        "Lossless recall is unavailable: the engine's store could not be opened (see the logs)",
      );
    }
    return {
      sessionId: grant.parentSessionId,
      sessionKey: grant.parentSessionKey,
      maxSeq: grant.maxSeq,
      expiresAt: grant.expiresAt,
      store: scopeStoreToGrant(store, grant.parentSessionId, grant.maxSeq),
    };
  }

  private ttlFor(requested: number | undefined): number {
    const ttl = this.options.grantTtlMs;
    return requested !== undefined && Number.isFinite(requested) && requested > 0
      ? Math.min(ttl, requested)
      : ttl;
  }
}
