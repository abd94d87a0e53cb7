import { describe, expect, test } from 'vitest';
import { PermitBook, type Permit } from '../../src/downstream/permit.js';

/**
 * A call reaches a server only by spending a permit its PermitBook issued for that very server, tool
 * and arguments object, once (permit.ts). What must be refused: a permit made any other way, another
 * book's, one spent already, one for another call, and a permit changed after it was issued.
 */
describe('PermitBook', () => {
  const args = { path: '/w/a.txt' };

  test('an issued permit is spent once for its own call', () => {
    const book = new PermitBook();
    const permit = book.issue('fs', 'read_file', args);
    expect([permit.server, permit.target, permit.args]).toEqual(['fs', 'read_file', args]);
    expect(() => book.spend(permit, 'fs', 'read_file', args)).not.toThrow();
    expect(() => book.spend(permit, 'fs', 'read_file', args)).toThrow('forward without a valid permit');
  });

  test('a permit not issued by the book is refused: a plain object, a copy, what its constructor makes, another book\'s', () => {
    const book = new PermitBook();
    expect(() => book.spend({ server: 'fs', target: 'read_file', args }, 'fs', 'read_file', args)).toThrow('forward without a valid permit');
    const issued = book.issue('fs', 'read_file', args);
    expect(() => book.spend({ ...issued }, 'fs', 'read_file', args)).toThrow('forward without a valid permit');
    expect(() => book.spend(Object.create(issued) as Permit, 'fs', 'read_file', args)).toThrow('forward without a valid permit');
    const Made = (issued as unknown as { constructor: new (...a: unknown[]) => Permit }).constructor;
    expect(() => new Made(Symbol('issuing a permit'), book, 'fs', 'read_file', args)).toThrow('a permit is issued only by its PermitBook');
    const other = new PermitBook().issue('fs', 'read_file', args);
    expect(() => book.spend(other, 'fs', 'read_file', args)).toThrow('forward without a valid permit');
    for (const value of [null, undefined, 1, 'permit']) expect(() => book.spend(value as unknown as Permit, 'fs', 'read_file', args)).toThrow('forward without a valid permit');
    expect(() => book.spend(issued, 'fs', 'read_file', args)).not.toThrow();
  });

  test('a permit for another server, tool or arguments object is refused, and spent', () => {
    const book = new PermitBook();
    const calls: Array<[string, string, unknown]> = [
      ['other', 'read_file', args],
      ['fs', 'write_file', args],
      ['fs', 'read_file', { path: '/w/a.txt' }],
    ];
    for (const [server, target, called] of calls) {
      const permit = book.issue('fs', 'read_file', args);
      expect(() => book.spend(permit, server, target, called)).toThrow('permit does not match the call');
      expect(() => book.spend(permit, 'fs', 'read_file', args)).toThrow('forward without a valid permit');
    }
  });

  test('what a permit is bound to cannot be changed after it is issued', () => {
    const book = new PermitBook();
    const permit = book.issue('fs', 'read_file', args) as { -readonly [K in keyof Permit]: Permit[K] };
    const other = { path: '/home/u/.ssh/id_rsa' };
    expect(() => {
      permit.args = other;
    }).toThrow(TypeError);
    expect(() => Object.defineProperty(permit, 'args', { value: other })).not.toThrow();
    // An own property shadows the getter for readers, never what spend() compares.
    expect(() => book.spend(permit, 'fs', 'read_file', other)).toThrow('permit does not match the call');
  });
});
