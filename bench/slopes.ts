/**
 * The slope column: how each figure grows from the smallest to the largest synthetic session of
 * the same suite, engine and counter. Per-turn cost should grow with what changed in the turn, not
 * with history length, so a warm-turn ratio near 1 is the goal and one near the size ratio means
 * the turn is linear in history.
 */
import type { CellResult } from "./cell.js";
import type { TableRow } from "./table-rows.js";

export interface SlopeGroup {
  suite: string;
  engine: string;
  counter: string;
  /** The smallest and the largest synthetic session measured. */
  from: CellResult;
  to: CellResult;
}

export interface Slope {
  suite: string;
  engine: string;
  counter: string;
  fromMessages: number;
  toMessages: number;
  /** Row key → `to / from`, for rows marked `slope` whose figures exist in both cells. */
  ratios: Record<string, number>;
}

/** Groups of two or more successful synthetic cells; one group per suite, engine and counter. */
export function slopeGroups(results: readonly CellResult[]): SlopeGroup[] {
  const groups = new Map<string, CellResult[]>();
  for (const result of results) {
    if (result.cell.workload.kind !== "synthetic" || result.metrics === undefined) continue;
    const key = groupKey(result);
    groups.set(key, [...(groups.get(key) ?? []), result]);
  }
  return [...groups.values()]
    .filter((members) => members.length >= 2)
    .map((members) => {
      const sorted = [...members].sort((left, right) => syntheticSize(left) - syntheticSize(right));
      const from = sorted[0] as CellResult;
      const to = sorted[sorted.length - 1] as CellResult;
      return { suite: from.cell.suite, engine: from.cell.engine, counter: from.cell.counter, from, to };
    });
}

/** `row`'s figure in the largest cell over the smallest; undefined when either is missing or 0. */
export function slopeOf(row: TableRow, group: SlopeGroup): number | undefined {
  if (row.slope !== true) return undefined;
  const from = row.value(group.from);
  const to = row.value(group.to);
  if (from === undefined || to === undefined || from === 0) return undefined;
  return to / from;
}

export function computeSlopes(
  results: readonly CellResult[],
  rowsOf: (suite: string) => readonly TableRow[],
): Slope[] {
  return slopeGroups(results).map((group) => {
    const ratios: Record<string, number> = {};
    for (const row of rowsOf(group.suite)) {
      const ratio = slopeOf(row, group);
      if (ratio !== undefined) ratios[row.key] = ratio;
    }
    return {
      suite: group.suite,
      engine: group.engine,
      counter: group.counter,
      fromMessages: syntheticSize(group.from),
      toMessages: syntheticSize(group.to),
      ratios,
    };
  });
}

export function groupKey(result: CellResult): string {
  return `${result.cell.suite}\u0000${result.cell.engine}\u0000${result.cell.counter}`;
}

function syntheticSize(result: CellResult): number {
  return result.cell.workload.kind === "synthetic" ? result.cell.workload.messages : 0;
}
