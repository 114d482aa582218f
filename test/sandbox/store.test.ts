import { describe, expect, it } from 'vitest';
import { generateRecordings, makePeople } from '../../src/sandbox/generator.js';
import { seedMaterial } from '../../src/sandbox/random.js';
import { RecordingStore } from '../../src/sandbox/recordings.js';
import type { Recording } from '../../src/sandbox/types.js';

const material = seedMaterial('store');
const people = makePeople(material, 'main');

describe('RecordingStore', () => {
  it('finds a cursor position by binary search: only the page itself is filtered', () => {
    let statusReads = 0;
    let createdAtReads = 0;
    // Each record counts how often its status (filtering) and createdAt (ordering) are read.
    const counted = generateRecordings(material, 'main', 50_000, people, new Set()).map((rec) => {
      const copy = { ...rec } as Recording;
      const { status, createdAt } = rec;
      Object.defineProperty(copy, 'status', {
        get: () => {
          statusReads++;
          return status;
        },
      });
      Object.defineProperty(copy, 'createdAt', {
        get: () => {
          createdAtReads++;
          return createdAt;
        },
      });
      return copy;
    });
    const store = new RecordingStore(counted);
    const deep = counted[40_000] as Recording;
    statusReads = 0;
    createdAtReads = 0;
    const page = store.page(
      'main',
      { status: 'COMPLETED', syncState: 'all', updatedSince: null },
      { createdAt: deep.createdAt, id: deep.id },
      10,
    );
    expect(page.items).toHaveLength(10);
    expect(page.items[0]?.createdAt).toBeGreaterThan(deep.createdAt);
    expect(statusReads).toBeLessThan(40);
    expect(createdAtReads).toBeLessThan(100);
  });

  it('generates the same recordings for the same seed and count', () => {
    const a = generateRecordings(material, 'main', 500, people, new Set());
    const b = generateRecordings(material, 'main', 500, people, new Set());
    expect(a).toEqual(b);
    expect(new Set(a.map((r) => r.id)).size).toBe(500);
    const unsynced = a.filter((r) => r.status === 'COMPLETED' && r.syncCount === 0).length;
    expect(unsynced / a.length).toBeGreaterThanOrEqual(0.6);
  });
});
