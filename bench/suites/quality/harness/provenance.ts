/**
 * Which source message a message is: a map from canonical hash to the workload's id for it. The
 * harness never reads ids out of message text (ids must not leak into what is matched); it hashes
 * what an engine hands back and looks the hash up here.
 */
import type { AgentMessage } from "@clew/core";
import { messageHash } from "../../../metrics/message-hash.js";
import type { SourceMessage } from "../../../workloads/replay-turn.js";

export class Provenance {
  private readonly idByHash = new Map<string, string>();
  private readonly messageById = new Map<string, AgentMessage>();
  private readonly hashCache = new WeakMap<object, string>();
  readonly ids: readonly string[];

  /** Later duplicates of an earlier message keep the earlier id. */
  constructor(sources: readonly SourceMessage[]) {
    for (const source of sources) {
      const hash = this.hashOf(source.message);
      if (!this.idByHash.has(hash)) this.idByHash.set(hash, source.id);
      this.messageById.set(source.id, source.message);
    }
    this.ids = sources.map((source) => source.id);
  }

  idOf(message: AgentMessage): string | undefined {
    return this.idByHash.get(this.hashOf(message));
  }

  messageOf(id: string): AgentMessage | undefined {
    return this.messageById.get(id);
  }

  /** The canonical hash of `message`, cached per object. */
  hashOf(message: AgentMessage): string {
    if (typeof message !== "object" || message === null) return messageHash(message);
    let hash = this.hashCache.get(message);
    if (hash === undefined) {
      hash = messageHash(message);
      this.hashCache.set(message, hash);
    }
    return hash;
  }
}
