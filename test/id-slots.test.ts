import { describe, expect, it } from 'vitest';
import { IdSlots } from '../src/id-slots.js';

describe('IdSlots', () => {
  it('holds what was set, under its id, until deleted', () => {
    const slots = new IdSlots<string>(4);
    expect(slots.size).toBe(0);
    slots.set(1_000_000_000, 'a').set(1_000_000_001, 'b');
    expect(slots.size).toBe(2);
    expect(slots.get(1_000_000_000)).toBe('a');
    expect(slots.has(1_000_000_001)).toBe(true);
    expect(slots.get(1_000_000_002)).toBeUndefined();
    expect(slots.delete(1_000_000_000)).toBe(true);
    expect(slots.delete(1_000_000_000)).toBe(false);
    expect(slots.has(1_000_000_000)).toBe(false);
    expect(slots.entries()).toEqual([[1_000_000_001, 'b']]);
  });

  it('an id whose slot is taken (a call still waiting after `slots` later ones) is kept beside, and found', () => {
    const slots = new IdSlots<string>(4);
    slots.set(1, 'long');
    for (let id = 2; id <= 5; id++) slots.set(id, `call ${id}`);
    // 5 has the slot of 1, which is still there.
    expect(slots.size).toBe(5);
    expect(slots.get(1)).toBe('long');
    expect(slots.get(5)).toBe('call 5');
    expect(slots.keys().sort()).toEqual([1, 2, 3, 4, 5]);
    // Freed, the slot takes the next id; 5 stays where it is, and is set and deleted there.
    slots.delete(1);
    slots.set(9, 'call 9');
    slots.set(5, 'call 5 again');
    expect(slots.get(5)).toBe('call 5 again');
    expect(slots.get(9)).toBe('call 9');
    expect(slots.delete(5)).toBe(true);
    expect(slots.get(5)).toBeUndefined();
    expect(slots.size).toBe(4);
  });

  it('lists taken before deleting stay whole while entries are deleted', () => {
    const slots = new IdSlots<number>(8);
    for (const id of [10, 11, 12]) slots.set(id, id * 2);
    const seen: number[] = [];
    for (const id of slots.keys()) {
      seen.push(id);
      slots.delete(12);
      slots.delete(id);
    }
    expect(seen).toEqual([10, 11, 12]);
    expect(slots.size).toBe(0);
  });

  it('an id that is not an integer is never found in a slot', () => {
    const slots = new IdSlots<string>(4);
    slots.set(1, 'one');
    expect(slots.get(1.5)).toBeUndefined();
    expect(slots.has(1.5)).toBe(false);
  });
});

describe('IdSlots with string ids', () => {
  it('a string id is kept beside the slots, never confused with the number it reads as', () => {
    const slots = new IdSlots<string, number | string>(4);
    slots.set(5, 'number').set('5', 'string').set('abc', 'letters');
    expect(slots.get(5)).toBe('number');
    expect(slots.get('5')).toBe('string');
    expect(slots.get('abc')).toBe('letters');
    expect(slots.size).toBe(3);
    expect(slots.delete('5')).toBe(true);
    expect(slots.get(5)).toBe('number');
    expect(slots.values().sort()).toEqual(['letters', 'number']);
  });
});
