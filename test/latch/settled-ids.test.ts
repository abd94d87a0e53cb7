import { describe, expect, it } from 'vitest';
import { SettledIds } from '../../src/latch/settled-ids.js';

describe('SettledIds', () => {
  it('keeps the most recent ids up to its limit and forgets the oldest first', () => {
    const settled = new SettledIds(3);
    for (const id of ['a', 'b', 'c']) settled.add(id);
    expect(['a', 'b', 'c'].map((id) => settled.has(id))).toEqual([true, true, true]);
    settled.add('d');
    expect(['a', 'b', 'c', 'd'].map((id) => settled.has(id))).toEqual([false, true, true, true]);
  });
});
