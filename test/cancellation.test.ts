import { describe, expect, test } from 'vitest';
import { Cancellation, type CancelListener } from '../src/cancellation.js';

/** A listener that notes what it is told under `name`. */
function listener(name: string, told: string[]): CancelListener {
  return { whenCancelled: (reason) => void told.push(`${name}: ${String(reason)}`) };
}

describe('Cancellation: listener objects (listen) beside handlers (onCancel)', () => {
  test('every listener and handler is told once, in the order they came, whichever way each came', () => {
    const cancel = new Cancellation();
    const told: string[] = [];
    cancel.listen(listener('a', told));
    cancel.onCancel((reason) => void told.push(`b: ${String(reason)}`));
    cancel.listen(listener('c', told));
    cancel.cancel('stop');
    cancel.cancel('again');
    expect(told).toEqual(['a: stop', 'b: stop', 'c: stop']);
    expect(cancel.reason).toBe('stop');
  });

  test('one removed is not told, and the order holds for those that came after a removal', () => {
    const cancel = new Cancellation();
    const told: string[] = [];
    const first = listener('first', told);
    const second = listener('second', told);
    cancel.listen(first);
    cancel.listen(second);
    cancel.unlisten(first);
    cancel.listen(listener('third', told));
    const removed = cancel.onCancel(() => void told.push('removed handler'));
    removed();
    cancel.listen(listener('fourth', told));
    cancel.unlisten(listener('never listened', told));
    cancel.cancel('stop');
    expect(told).toEqual(['second: stop', 'third: stop', 'fourth: stop']);
  });

  test('the only listener, removed, leaves nothing to tell; one after the cancel is never told', () => {
    const cancel = new Cancellation();
    const told: string[] = [];
    const only = listener('only', told);
    cancel.listen(only);
    cancel.unlisten(only);
    cancel.cancel('stop');
    cancel.listen(listener('late', told));
    expect(cancel.onCancel(() => void told.push('late handler'))).toBeTypeOf('function');
    expect(told).toEqual([]);
  });

  test('a listener that listens again while it is told is not told twice', () => {
    const cancel = new Cancellation();
    const told: string[] = [];
    const again: CancelListener = {
      whenCancelled: (reason) => {
        told.push(String(reason));
        cancel.listen(again);
      },
    };
    cancel.listen(again);
    cancel.cancel('stop');
    expect(told).toEqual(['stop']);
  });
});
