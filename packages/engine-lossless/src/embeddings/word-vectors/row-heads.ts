/**
 * The rows of a session's word index, one per indexed message in seq order, with what a message's
 * head holds (role, time, tokens): a head never changes, so the index answers for the store
 * (`SemanticRecall.knownHeads`) at about 16 bytes a message.
 */
import type { StoredMessageHead } from "../../store/store.js";
import { indexOfSorted } from "./ranked-hits.js";

export class RowHeads {
  /** Per row, its message's seq; ascending. */
  readonly seqs: number[] = [];
  private readonly roles: string[] = [];
  private readonly createdAts: number[] = [];
  private readonly tokens: number[] = [];
  /** Each role string kept once, not once a message. */
  private readonly roleNames = new Map<string, string>();

  get count(): number {
    return this.seqs.length;
  }

  /** Adds `head` as the next row (its seq above every row's); answers the row. */
  push(head: StoredMessageHead): number {
    if (!this.roleNames.has(head.role)) this.roleNames.set(head.role, head.role);
    this.roles.push(this.roleNames.get(head.role) as string);
    this.createdAts.push(head.createdAt);
    this.tokens.push(head.tokens);
    return this.seqs.push(head.seq) - 1;
  }

  /** The heads of the rows among `seqs`, in the order asked; seqs without a row are left out. */
  heads(seqs: readonly number[]): StoredMessageHead[] {
    const heads: StoredMessageHead[] = [];
    for (const seq of seqs) {
      const row = indexOfSorted(this.seqs, seq);
      if (row < 0) continue;
      heads.push({
        seq,
        role: this.roles[row] as string,
        createdAt: this.createdAts[row] as number,
        tokens: this.tokens[row] as number,
      });
    }
    return heads;
  }

  /** Keeps the first `rows` rows. */
  truncate(rows: number): void {
    for (const list of [this.seqs, this.roles, this.createdAts, this.tokens]) list.length = rows;
  }
}
