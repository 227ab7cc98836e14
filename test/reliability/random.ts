import { createHash } from 'node:crypto';

/** A seeded source of numbers in [0, 1): the same seed gives the same run. */
export type Random = () => number;

/**
 * A small, fast seeded generator (mulberry32) for workloads and fault timelines; not for secrets.
 * @example const random = seededRandom('42:workload'); random(); // 0.6011…
 */
export function seededRandom(seed: string): Random {
  let state = createHash('sha256').update(seed).digest().readUInt32BE(0);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

/** A whole number in [min, max]. */
export function between(random: Random, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** One of `items`, picked by weight. */
export function pick<T>(random: Random, items: readonly (readonly [T, number])[]): T {
  const total = items.reduce((sum, [, weight]) => sum + weight, 0);
  let roll = random() * total;
  for (const [item, weight] of items) {
    roll -= weight;
    if (roll < 0) {
      return item;
    }
  }
  return items[items.length - 1][0];
}
