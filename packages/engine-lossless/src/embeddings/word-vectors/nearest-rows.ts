/**
 * The rows nearest a query among one scan's similarities, kept in a bounded min-heap of typed
 * arrays: a query word's first scan meets hundreds of session words above the similarity bar, and
 * keeping them as objects, cut back by sorting every 192, took 35 µs a scan of 2,000 rows against 19
 * (the scan itself: 33 µs). Reused from search to search: only the answer is allocated.
 */
export class NearestRows {
  private readonly rows: Int32Array;
  private readonly similarities: Float64Array;
  private size = 0;

  constructor(private readonly capacity: number) {
    this.rows = new Int32Array(capacity);
    this.similarities = new Float64Array(capacity);
  }

  /**
   * The `capacity` highest of `similarities` at or above `bar` (row `from + index` for index `index`),
   * leaving out row `skipRow`, nearest first; a similarity that is not a number is never kept. Of
   * equal similarities at the cut, the earlier rows are kept.
   */
  select(
    similarities: ArrayLike<number>,
    from: number,
    bar: number,
    skipRow: number,
  ): Array<{ row: number; similarity: number }> {
    this.size = 0;
    let least = bar;
    for (let index = 0; index < similarities.length; index++) {
      const similarity = similarities[index] as number;
      // Written so that NaN fails it.
      if (!(similarity >= least) || from + index === skipRow) continue;
      if (this.size < this.capacity) {
        this.push(from + index, similarity);
        if (this.size === this.capacity) least = Math.max(least, this.similarities[0] as number);
      } else if (similarity > (this.similarities[0] as number)) {
        this.replaceLeast(from + index, similarity);
        least = Math.max(least, this.similarities[0] as number);
      }
    }
    const nearest: Array<{ row: number; similarity: number }> = [];
    for (let at = 0; at < this.size; at++)
      nearest.push({ row: this.rows[at] as number, similarity: this.similarities[at] as number });
    // Stable: equal similarities stay in row order.
    return nearest.sort((left, right) => right.similarity - left.similarity || left.row - right.row);
  }

  private push(row: number, similarity: number): void {
    let at = this.size++;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.belowEntry(row, similarity, parent)) break;
      this.move(parent, at);
      at = parent;
    }
    this.rows[at] = row;
    this.similarities[at] = similarity;
  }

  private replaceLeast(row: number, similarity: number): void {
    let at = 0;
    for (;;) {
      const left = 2 * at + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const lower =
        right < this.size &&
        this.belowEntry(this.rows[right] as number, this.similarities[right] as number, left)
          ? right
          : left;
      if (!ranksBelow(this.rows[lower] as number, this.similarities[lower] as number, row, similarity)) break;
      this.move(lower, at);
      at = lower;
    }
    this.rows[at] = row;
    this.similarities[at] = similarity;
  }

  private belowEntry(row: number, similarity: number, at: number): boolean {
    return ranksBelow(row, similarity, this.rows[at] as number, this.similarities[at] as number);
  }

  private move(from: number, to: number): void {
    this.rows[to] = this.rows[from] as number;
    this.similarities[to] = this.similarities[from] as number;
  }
}

/** Whether a row ranks below another: a lower similarity, or an equal one on a later row. */
function ranksBelow(row: number, similarity: number, otherRow: number, otherSimilarity: number): boolean {
  return similarity < otherSimilarity || (similarity === otherSimilarity && row > otherRow);
}

/** A session word near a query word, by the cosine of their vectors. */
export interface Neighbour {
  word: number;
  similarity: number;
}

/** A query word's neighbours among the first `scannedWords` vocabulary words (`scannedRows` vectors). */
export interface NeighbourList {
  neighbours: Neighbour[];
  scannedWords: number;
  scannedRows: number;
}

/** Sorts `neighbours` nearest first (the word itself, at 1, stays first) and keeps the `most` nearest. */
export function keepNearest(neighbours: Neighbour[], most: number): void {
  neighbours.sort((left, right) => right.similarity - left.similarity);
  neighbours.length = Math.min(neighbours.length, most);
}
