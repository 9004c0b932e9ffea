/**
 * Running totals over a session view's assembled items (raw messages and summaries, items and
 * tokens), kept per view object and extended only by the items appended since the last look, so
 * describing an assembly costs O(change) however long the view is.
 */
import type { SessionView, ViewItem } from "../view/session-view.js";

export interface RangeTally {
  raw: number;
  summaries: number;
  rawTokens: number;
  summaryTokens: number;
}

class PrefixTotals {
  /** Entry `index` holds the totals over `assembledItems[0, index)`. */
  readonly summaries: number[] = [0];
  readonly summaryTokens: number[] = [0];
  readonly rawTokens: number[] = [0];

  get counted(): number {
    return this.summaries.length - 1;
  }

  add(item: ViewItem): void {
    const last = this.counted;
    const isSummary = item.ref.kind === "summary";
    this.summaries.push((this.summaries[last] ?? 0) + (isSummary ? 1 : 0));
    this.summaryTokens.push((this.summaryTokens[last] ?? 0) + (isSummary ? item.tokens : 0));
    this.rawTokens.push((this.rawTokens[last] ?? 0) + (isSummary ? 0 : item.tokens));
  }
}

/** Prefix totals per view object; a view that is dropped takes its totals with it. */
export class ViewTallies {
  private readonly totals = new WeakMap<SessionView, PrefixTotals>();

  /** Totals over `view.assembledItems[from, to)` (bounds clamped to the view). */
  range(view: SessionView, from: number, to: number): RangeTally {
    const totals = this.current(view);
    const end = Math.max(0, Math.min(to, totals.counted));
    const start = Math.max(0, Math.min(from, end));
    const at = (values: number[], index: number) => values[index] ?? 0;
    const summaries = at(totals.summaries, end) - at(totals.summaries, start);
    return {
      raw: end - start - summaries,
      summaries,
      rawTokens: at(totals.rawTokens, end) - at(totals.rawTokens, start),
      summaryTokens: at(totals.summaryTokens, end) - at(totals.summaryTokens, start),
    };
  }

  private current(view: SessionView): PrefixTotals {
    let totals = this.totals.get(view);
    // Views only grow at the end; a shorter one than counted was rebuilt, so count it again.
    if (totals === undefined || totals.counted > view.assembledItems.length) {
      totals = new PrefixTotals();
      this.totals.set(view, totals);
    }
    for (let index = totals.counted; index < view.assembledItems.length; index++) {
      totals.add(view.assembledItems[index] as ViewItem);
    }
    return totals;
  }
}
