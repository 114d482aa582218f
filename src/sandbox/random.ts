// Randomness of two kinds: a seeded PRNG for everything that must be the same on every start
// with the same --seed (data, keys), and node:crypto for the seed itself. Ids and secrets made
// at run time come from shared/ids.ts.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { BASE62 } from '../shared/ids.js';

/** mulberry32: a tiny, fast 32-bit generator; plenty for fake data, never for secrets. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Two 32-bit values into one (murmur3's finaliser), to give each item its own stream. */
export function mix32(a: number, b: number): number {
  let h = (a ^ Math.imul(b >>> 0, 0x9e3779b1)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  float(): number {
    return this.next();
  }
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T;
  }
  /** Weighted choice: weights line up with items. */
  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    let r = this.next() * weights.reduce((a, b) => a + b, 0);
    for (let i = 0; i < items.length; i++) {
      r -= weights[i] ?? 0;
      if (r < 0) return items[i] as T;
    }
    return items[items.length - 1] as T;
  }
  /**
   * `prefix` and n random base62 characters, as one flat string: building it with `+=` would
   * leave a chain of V8 cons-strings, several times the size, in each of 100 000 records.
   */
  chars(n: number, prefix = ''): string {
    const codes: number[] = [];
    for (let i = 0; i < prefix.length; i++) codes.push(prefix.charCodeAt(i));
    for (let i = 0; i < n; i++) codes.push(BASE62.charCodeAt(Math.floor(this.next() * 62)));
    return String.fromCharCode(...codes);
  }
}

/** The seed as bytes: every derived value (data streams, keys, cursor secret) starts here. */
export function seedMaterial(seed: string): Buffer {
  return createHash('sha256').update(`rfs-sandbox/1:${seed}`).digest();
}

export function derive(material: Buffer, label: string): Buffer {
  return createHmac('sha256', material).update(label).digest();
}

export function derive32(material: Buffer, label: string): number {
  return derive(material, label).readUInt32BE(0);
}

export function randomSeed(): string {
  return randomBytes(8).toString('hex');
}
