/**
 * Session views kept in memory between turns. A cached view is used only while its version equals
 * the store's (one cheap read), so a write by anything else makes the next read load it again.
 * Appends made through the engine extend the cached view in place; compactions replace it.
 */
import type { LosslessStore } from "../store/store.js";
import { SessionView, type ViewItem } from "./session-view.js";

/** Views beyond this many sessions are dropped, least recently used first. */
const MAX_CACHED_SESSIONS = 64;

export class ViewCache {
  private readonly views = new Map<string, SessionView>();

  constructor(private readonly store: LosslessStore) {}

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
    if (this.views.size > MAX_CACHED_SESSIONS) {
      const oldest = this.views.keys().next().value;
      if (oldest !== undefined) this.views.delete(oldest);
    }
  }
}
