/**
 * Which hits go into an evidence block, and with which neighbours. A hit belongs with its partner:
 * a user message with the reply after it, a reply with the user message before it (a question is
 * answered in its reply, and a reply only makes sense with its question). Sizes are the stored
 * token counts plus a header each, estimated ahead of the block's exact count.
 *
 * How partners are paid for depends on how good the ranking is, and was measured (bench, M1 on
 * the LoCoMo-style conversations, full preset):
 * - ranked by words alone, a hit is often next to the evidence rather than the evidence itself, so
 *   whole exchanges are ranked and chosen together (at 4k: 58 % against 51 % for hits first);
 * - ranked with soft term matching, the hits themselves are the evidence, so each is ranked alone
 *   and partners only fill the room the hits leave (at 2k/4k/8k: 78/91/91 % against 49/80/84 %
 *   for whole exchanges).
 */
import type { SearchHit, StoredMessageHead } from "../store/store.js";

/** The header line each message gets (`[m12 user 2024-05-01T09:30Z]`), counted ahead. */
const HEADER_TOKENS = 16;

export interface UnitChoice {
  /** Best first. */
  hits: ReadonlyArray<SearchHit<number>>;
  /** Heads of the hits, and of their partners (`partnerSeqOf`) where the choice needs them. */
  bySeq: ReadonlyMap<number, StoredMessageHead>;
  inContext: (seq: number) => boolean;
  roomTokens: number;
}

/**
 * Whole exchanges, scored by the sum of their messages' scores (an exchange that matches on both
 * sides ranks first), chosen best first while they fit. Units in the order chosen, which is the
 * order a block too large for its room drops them in, from the end.
 */
export function chooseExchanges(choice: UnitChoice): StoredMessageHead[][] {
  const units = new Map<number, { score: number; seqs: number[]; order: number }>();
  for (const [order, hit] of choice.hits.entries()) {
    const message = choice.bySeq.get(hit.key);
    if (message === undefined) continue;
    const partner = partnerOf(message, choice.bySeq);
    const seqs =
      partner === undefined ? [hit.key] : [hit.key, partner.seq].sort((left, right) => left - right);
    const start = seqs[0] as number;
    const unit = units.get(start) ?? { score: 0, seqs, order };
    unit.score += Math.max(0, hit.score);
    units.set(start, unit);
  }
  const ranked = [...units.values()].sort(
    (left, right) => right.score - left.score || left.order - right.order,
  );
  const budget = new Room(choice.roomTokens);
  const chosen: StoredMessageHead[][] = [];
  for (const unit of ranked) {
    const fresh = unit.seqs
      .filter((seq) => !choice.inContext(seq) && !budget.has(seq))
      .map((seq) => choice.bySeq.get(seq))
      .filter((message): message is StoredMessageHead => message !== undefined);
    if (fresh.length > 0 && budget.take(fresh)) chosen.push(fresh);
  }
  return chosen;
}

/**
 * Each hit on its own, best first while it fits; then (`withPartners`), in the same order, each
 * chosen hit's partner where room is left. Split in two so that only the chosen hits' partners need
 * their heads read. With `after`, the choice goes on from an earlier one, in the room it left (the
 * same as choosing from both lists joined).
 */
export function chooseHits(choice: UnitChoice, after?: ChosenHits): ChosenHits {
  const room = after?.room ?? new Room(choice.roomTokens);
  const hits = [...(after?.hits ?? [])];
  for (const hit of choice.hits) {
    const message = choice.bySeq.get(hit.key);
    if (message === undefined || choice.inContext(hit.key) || room.has(hit.key)) continue;
    if (room.take([message])) hits.push(message);
  }
  return { hits, room };
}

export interface ChosenHits {
  hits: StoredMessageHead[];
  room: Room;
}

/**
 * The hits of `chosen` and then the partners that fit, one message per unit, in the order taken
 * (so a block trimmed from the end loses partners before hits). `bySeq` must hold the hits'
 * partners (`partnerSeqOf`).
 */
export function withPartners(
  chosen: ChosenHits,
  bySeq: ReadonlyMap<number, StoredMessageHead>,
  inContext: (seq: number) => boolean,
): StoredMessageHead[][] {
  const { hits, room } = chosen;
  const partners: StoredMessageHead[] = [];
  for (const hit of hits) {
    const partner = partnerOf(hit, bySeq);
    if (partner === undefined || inContext(partner.seq) || room.has(partner.seq)) continue;
    if (room.take([partner])) partners.push(partner);
  }
  return [...hits, ...partners].map((message) => [message]);
}

/** The seq of the message `message` may belong with (see `partnerOf`), when its role has one. */
export function partnerSeqOf(message: StoredMessageHead): number | undefined {
  if (message.role === "user") return message.seq + 1;
  return message.role === "assistant" ? message.seq - 1 : undefined;
}

/** The message `message` belongs with, when its head is known: see the file comment. */
function partnerOf(
  message: StoredMessageHead,
  bySeq: ReadonlyMap<number, StoredMessageHead>,
): StoredMessageHead | undefined {
  const seq = partnerSeqOf(message);
  const partner = seq === undefined ? undefined : bySeq.get(seq);
  if (partner === undefined) return undefined;
  const roles = new Set([message.role, partner.role]);
  const ordered = (message.role === "user") === partner.seq > message.seq;
  return roles.has("user") && roles.has("assistant") && ordered ? partner : undefined;
}

/** The room left, and the seqs already taken. */
export class Room {
  private used = 0;
  private readonly taken = new Set<number>();

  constructor(private readonly tokens: number) {}

  /** Whether any message could still fit (each costs at least its header). */
  takesMore(): boolean {
    return this.used + HEADER_TOKENS <= this.tokens;
  }

  has(seq: number): boolean {
    return this.taken.has(seq);
  }

  /** Takes `messages` when they all fit together; whether they did. */
  take(messages: readonly StoredMessageHead[]): boolean {
    const cost = messages.reduce((sum, message) => sum + message.tokens + HEADER_TOKENS, 0);
    if (this.used + cost > this.tokens) return false;
    this.used += cost;
    for (const message of messages) this.taken.add(message.seq);
    return true;
  }
}
