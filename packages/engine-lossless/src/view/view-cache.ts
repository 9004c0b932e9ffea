/**
 * Session views kept in memory between turns. A cached view is used only while its version equals
 * the store's (one cheap read), so a write by anything else makes the next read load it again.
 * Appends made through the engine extend the cached view in place; compactions replace it.
 */
import type { LosslessStore } from "../store/store.js";
import { SessionView, type ViewItem } from "./session-view.js";

export interface ViewCacheLimits {
  /** Views beyond this many sessions are dropped, least recently used first. */
  maxSessions: number;
  /**
   * Items kept across the cached views: least recently used views are dropped until the rest fit,
   * the newest always kept. A raw item holds its parsed message (2.4 KB on average in the bench's
   * sessions), and a long session's view holds every message until its first compaction: 64
   * imported 50,000-message sessions would have kept 7.7 GB.
   */
  maxItems: number;
}

export const DEFAULT_VIEW_CACHE_LIMITS: ViewCacheLimits = { maxSessions: 64, maxItems: 100_000 };

export class ViewCache {
  private readonly views = new Map<string, SessionView>();

  constructor(
    private readonly store: LosslessStore,
    private readonly limits: ViewCacheLimits = DEFAULT_VIEW_CACHE_LIMITS,
  ) {}

  /** The current view of `sessionId`; loads it when the cache is missing or stale. */
  async get(sessionId: string): Promise<SessionView> {
    const cached = this.views.get(sessionId);
    const version = await this.store.viewVersion(sessionId);
    if (cached !== undefined && cached.version === version) {
      this.touch(sessionId, cached);
      return cached;
    }
    const stored = await this.store.readContextView(sessionId);
    const view = SessionView.fromStored(stored.version, stored.items);
    this.touch(sessionId, view);
    return view;
  }

  /**
   * Extends the cached view with items an append created, when the append directly followed the
   * cached version; otherwise forgets the view so the next `get` loads it.
   */
  appended(
    sessionId: string,
    viewVersion: number,
    items: ReadonlyArray<Omit<ViewItem, "startsGroup" | "orphan">>,
  ) {
    const cached = this.views.get(sessionId);
    if (cached === undefined) {
      // The first write of a session (a bootstrap import): the items are the whole view, so the
      // next read need not load and parse it back from the store.
      if (viewVersion === 1 && items.length > 0) {
        const view = new SessionView(viewVersion);
        for (const item of items) view.push(item);
        this.touch(sessionId, view);
      }
      return;
    }
    if (items.length === 0 && cached.version === viewVersion) return;
    if (cached.version + 1 !== viewVersion) {
      this.views.delete(sessionId);
      return;
    }
    for (const item of items) cached.push(item);
    cached.version = viewVersion;
    this.touch(sessionId, cached);
  }

  /** Installs the view a compaction produced. */
  replace(sessionId: string, view: SessionView): void {
    this.touch(sessionId, view);
  }

  forget(sessionId: string): void {
    this.views.delete(sessionId);
  }

  clear(): void {
    this.views.clear();
  }

  private touch(sessionId: string, view: SessionView): void {
    this.views.delete(sessionId);
    this.views.set(sessionId, view);
    this.trim();
  }

  /** Drops least recently used views until both limits hold; the newest view always stays. */
  private trim(): void {
    let items = 0;
    for (const view of this.views.values()) items += view.items.length;
    for (const [sessionId, view] of this.views) {
      if (this.views.size <= 1) return;
      if (this.views.size <= this.limits.maxSessions && items <= this.limits.maxItems) return;
      this.views.delete(sessionId);
      items -= view.items.length;
    }
  }
}
