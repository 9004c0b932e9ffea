/**
 * A seeded pseudo-random source (mulberry32). Every generated workload draws from one of these,
 * so the same seed always yields the same conversation, needles and questions on any machine.
 */
import { InvalidOptionError } from "@clew/core";

const BASE32_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export class SeededRandom {
  private state: number;

  /** Throws `InvalidOptionError` when `seed` is not a whole number. */
  constructor(seed: number) {
    if (!Number.isInteger(seed)) throw new InvalidOptionError("seed", seed, "a whole number");
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let value = this.state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** A whole number in [min, max], both included. */
  integer(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** One element of a non-empty list. Throws RangeError for an empty one. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("SeededRandom.pick: empty list");
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** A shuffled copy (Fisher–Yates); the input is not changed. */
  shuffle<T>(items: readonly T[]): T[] {
    const copy = [...items];
    for (let index = copy.length - 1; index > 0; index--) {
      const other = Math.floor(this.next() * (index + 1));
      [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
    }
    return copy;
  }

  /** `length` characters of RFC 4648 base32 (A–Z, 2–7). */
  base32(length: number): string {
    let text = "";
    for (let index = 0; index < length; index++) text += BASE32_ALPHABET[Math.floor(this.next() * 32)];
    return text;
  }

  /** A new source seeded from this one, so sub-generators do not shift each other's draws. */
  fork(): SeededRandom {
    return new SeededRandom(Math.floor(this.next() * 2 ** 31));
  }
}
