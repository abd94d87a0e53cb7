import { describe, expect, it } from 'vitest';
import { isoTime } from '../src/iso-time.js';

describe('isoTime', () => {
  it('writes what toISOString writes, across the calendar', () => {
    const edges = [0, 1, 999, 1000, 86_399_999, 86_400_000, Date.UTC(2000, 1, 29, 23, 59, 59, 999), Date.UTC(2000, 2, 1), Date.UTC(2100, 1, 28), Date.UTC(2100, 2, 1), Date.UTC(2024, 11, 31, 23, 59, 59, 999), Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.now()];
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    const samples = Array.from({ length: 100_000 }, () => Math.floor(random() * 253_402_300_800_000));
    // Every day of four years around a leap day and a century that is not a leap year.
    for (let day = 0; day < 4 * 366; day++) samples.push(Date.UTC(2098, 0, 1) + day * 86_400_000 + ((day * 3_601_001) % 86_400_000));
    const differing = [...edges, ...samples].filter((ms) => isoTime(ms) !== new Date(ms).toISOString());
    expect(differing).toEqual([]);
    expect(isoTime(Date.UTC(2000, 1, 29, 23, 59, 59, 999))).toBe('2000-02-29T23:59:59.999Z');
  });

  it('leaves times it does not compute to toISOString', () => {
    for (const ms of [-1, -86_400_001, 253_402_300_800_000, 8.64e15, 1.5]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('writes each millisecond of a second, and a second it wrote before, as toISOString does', () => {
    const start = Date.UTC(2026, 10, 27, 2, 40, 5);
    const times = [...Array.from({ length: 2001 }, (_, index) => start + index), start + 999, start - 1, start + 1000];
    expect(times.filter((ms) => isoTime(ms) !== new Date(ms).toISOString())).toEqual([]);
  });
});
