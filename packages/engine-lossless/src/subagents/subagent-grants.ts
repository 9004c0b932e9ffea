/**
 * Grants that let a forked subagent read its parent's history: one per child session, scoped to
 * the parent session up to its newest message at spawn time, and valid until it expires or the
 * child ends. Grants live in memory (see `SubagentAccess`).
 */
import type { SubagentEndReason } from "@clew/core";

export interface SubagentGrant {
  /** Tells this grant from a later one for the same child, so a late rollback removes only its own. */
  grantId: number;
  parentSessionId: string;
  parentSessionKey: string;
  childSessionKey: string;
  childSessionId: string | undefined;
  /** The parent's newest stored message at spawn (its seq); the child reads nothing newer. */
  maxSeq: number;
  createdAt: number;
  expiresAt: number;
  /** Set when the child ended; an ended grant allows nothing and is kept only to explain why. */
  ended?: { reason: SubagentEndReason; at: number };
}

export type GrantLookup = { status: "none" } | { status: "live" | "ended" | "expired"; grant: SubagentGrant };

export class SubagentGrants {
  private readonly byChild = new Map<string, SubagentGrant>();
  private nextGrantId = 1;

  /**
   * @param keepSpentMs how long an ended or expired grant is remembered (to name the reason in
   *   refusals) before it is forgotten; then the child is told it has no grant.
   */
  constructor(
    private readonly now: () => number,
    private readonly keepSpentMs: number,
  ) {}

  /** Adds a grant, replacing the child's earlier one; answers the rollback that deletes it. */
  add(grant: Omit<SubagentGrant, "grantId">): { grant: SubagentGrant; revoke: () => void } {
    this.forgetSpent();
    const added: SubagentGrant = { ...grant, grantId: this.nextGrantId++ };
    this.byChild.set(added.childSessionKey, added);
    const revoke = () => {
      if (this.byChild.get(added.childSessionKey)?.grantId === added.grantId)
        this.byChild.delete(added.childSessionKey);
    };
    return { grant: added, revoke };
  }

  /** Ends the child's grant, for any reason; unknown children are ignored. */
  end(childSessionKey: string, reason: SubagentEndReason): void {
    const grant = this.byChild.get(childSessionKey);
    if (grant === undefined || grant.ended !== undefined) return;
    this.byChild.set(childSessionKey, { ...grant, ended: { reason, at: this.now() } });
  }

  /** The grant of a session, by key, or by child session id when the caller knows no key. */
  lookup(session: { sessionKey?: string; sessionId: string }): GrantLookup {
    const grant =
      session.sessionKey === undefined
        ? [...this.byChild.values()].find((candidate) => candidate.childSessionId === session.sessionId)
        : this.byChild.get(session.sessionKey);
    if (grant === undefined) return { status: "none" };
    if (grant.ended !== undefined) return { status: "ended", grant };
    if (this.now() >= grant.expiresAt) return { status: "expired", grant };
    return { status: "live", grant };
  }

  clear(): void {
    this.byChild.clear();
  }

  private forgetSpent(): void {
    const cutoff = this.now() - this.keepSpentMs;
    for (const [key, grant] of this.byChild) {
      const spentAt = grant.ended?.at ?? grant.expiresAt;
      if (spentAt < cutoff) this.byChild.delete(key);
    }
  }
}
