/**
 * A session's messages as the BM25 baseline keeps them: in arrival order, deduplicated by
 * canonical hash (so ingest is idempotent and a bootstrap over already-ingested history adds
 * nothing), and searchable with BM25. Indexing is lazy: a search indexes what arrived since the
 * last one, so a bulk bootstrap costs only the hashing.
 */
import { type AgentMessage, readableTextParts } from "@clew/core";
import { messageHash } from "../metrics/message-hash.js";
import type { RecallAdapter } from "../recall-adapter.js";
import { Bm25Index } from "./bm25.js";
import { textTerms } from "./text-terms.js";

export class MessageStore {
  private readonly messages: AgentMessage[] = [];
  private readonly hashes = new Set<string>();
  private readonly index = new Bm25Index<number>();

  get size(): number {
    return this.messages.length;
  }

  /** Stores `message` unless an identical one is stored; returns whether it was added. */
  add(message: AgentMessage): boolean {
    const hash = messageHash(message);
    if (this.hashes.has(hash)) return false;
    this.hashes.add(hash);
    this.messages.push(message);
    return true;
  }

  at(position: number): AgentMessage | undefined {
    return this.messages[position];
  }

  /** Positions of the best `limit` messages for `query`, best first. */
  search(query: string, limit: number): number[] {
    for (let position = this.index.size; position < this.messages.length; position++) {
      const message = this.messages[position] as AgentMessage;
      this.index.add(position, textTerms(readableTextParts(message).join("\n")));
    }
    return this.index.search(textTerms(query), limit).map((hit) => hit.id);
  }

  /** The store as the suite's recall tools: ids are `m<position>`. */
  recallAdapter(): RecallAdapter {
    const positionOf = (id: string): number => (/^m\d+$/.test(id) ? Number(id.slice(1)) : -1);
    return {
      search: async (query, k) => this.search(query, k).map((position) => `m${position}`),
      read: async (id) => this.at(positionOf(id)),
      list: async () => this.messages.map((_, position) => `m${position}`),
    };
  }
}
