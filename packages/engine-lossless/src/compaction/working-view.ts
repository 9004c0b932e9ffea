/**
 * The view as one compaction changes it in memory (`compactView`): the items, their running token
 * total, the nodes made so far, which of them are upgrades, and the prepared jobs they settle.
 */
import type { ViewItem } from "../view/session-view.js";
import type { BuiltNode } from "./build-node.js";
import { assembledTokens, freshTailStart, type ItemRun, runTokens } from "./plan.js";

/** The view as compaction changes it, and the nodes made so far. */
export class WorkingView {
  readonly items: ViewItem[];
  readonly built: BuiltNode[] = [];
  /** Keys of the summary jobs whose prepared summaries this compaction publishes. */
  readonly settled: string[] = [];
  /** The nodes of `built` that are upgrades. */
  readonly upgrades = new Set<BuiltNode>();
  /** `runTokens` of all items, kept up to date by `replace` (read after every node). */
  private tokens: number;

  constructor(items: readonly ViewItem[]) {
    this.items = [...items];
    this.tokens = runTokens(this.items, 0, this.items.length);
  }

  total(): number {
    return this.tokens;
  }

  /** Nodes of this kind made by the compaction (upgrades left out). */
  made(kind: "leaf" | "condensed"): number {
    return this.built.filter((node) => node.summary.kind === kind && !this.upgrades.has(node)).length;
  }

  /** The run now holding exactly these positions, or undefined when something replaced them. */
  runOf(positions: readonly number[]): ItemRun | undefined {
    const first = positions[0];
    const start = first === undefined ? -1 : indexOfPosition(this.items, first);
    if (start < 0) return undefined;
    const end = start + positions.length;
    const same = positions.every((position, offset) => this.items[start + offset]?.position === position);
    return same ? { start, end, tokens: runTokens(this.items, start, end) } : undefined;
  }

  /** Puts `node` in place of `run` when it is smaller; says whether it did. */
  replace(run: ItemRun, node: BuiltNode | undefined): boolean {
    return node !== undefined && node.item.tokens < run.tokens && this.put(run, node);
  }

  /** Puts an upgrade in place of `run` (its leaf) when it is no larger; says whether it did. */
  swap(run: ItemRun, node: BuiltNode): boolean {
    return node.item.tokens <= run.tokens && this.put(run, node);
  }

  private put(run: ItemRun, node: BuiltNode): true {
    this.tokens += assembledTokens(node.item) - runTokens(this.items, run.start, run.end);
    this.items.splice(run.start, run.end - run.start, node.item);
    this.built.push(node);
    return true;
  }

  /** Why the view is still over `target`. */
  shortfall(target: number, tailTokens: number): string {
    const tailStart = freshTailStart(this.items, tailTokens);
    const tail = runTokens(this.items, tailStart, this.items.length);
    const total = this.total();
    if (tail > target) {
      return `the fresh tail alone (${this.items.length - tailStart} items, ${tail} tokens, at least the newest message group) is over the target of ${target} tokens`;
    }
    return `history before the fresh tail could not be reduced below ${total - tail} tokens (${tailStart} items; the target leaves ${target - tail} tokens after the ${tail}-token fresh tail, less than the smallest summary)`;
  }
}

/**
 * Index of the item at `position`, or -1. View items are in ascending position order (a summary
 * takes the first position of the run it replaced), so this is a binary search.
 */
function indexOfPosition(items: readonly ViewItem[], position: number): number {
  let low = 0;
  let high = items.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const found = (items[middle] as ViewItem).position;
    if (found === position) return middle;
    if (found < position) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}
