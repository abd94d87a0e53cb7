import { describe, expect, it } from 'vitest';
import { StableMap } from '../src/stable-map.js';

describe('StableMap', () => {
  it('holds only what was set: its kept entry is never seen', () => {
    const map = new StableMap<number, string>();
    expect(map.size).toBe(0);
    expect(map.keys()).toEqual([]);
    map.set(1, 'a').set(2, 'b');
    expect(map.size).toBe(2);
    expect(map.get(1)).toBe('a');
    expect(map.has(2)).toBe(true);
    expect(map.entries()).toEqual([[1, 'a'], [2, 'b']]);
    expect(map.values()).toEqual(['a', 'b']);
    expect(map.delete(1)).toBe(true);
    expect(map.delete(1)).toBe(false);
    expect(map.delete(2)).toBe(true);
    expect(map.size).toBe(0);
    expect(map.entries()).toEqual([]);
    expect(map.values()).toEqual([]);
  });

  it('lists taken before deleting stay whole while entries are deleted', () => {
    const map = new StableMap<string, number>();
    for (const key of ['a', 'b', 'c']) map.set(key, key.length);
    const seen: string[] = [];
    for (const key of map.keys()) {
      seen.push(key);
      map.delete('c');
      map.delete(key);
    }
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(map.size).toBe(0);
  });
});
