import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ROOT } from '../helpers/gateway.js';

/**
 * escape.ts marks look-alike words once look-alike.ts is loaded (useLookAlikeMarker; it stays out of
 * serve's boot bundle): the modules that render for a person load it. Each in a process of its own,
 * from the built dist/ (round 33 review S33-3).
 */
const shown = (module: string): string =>
  execFileSync(process.execPath, ['--input-type=module', '-e', `const e = await import(${JSON.stringify(join(ROOT, 'dist/latch/escape.js'))}); ${module ? `await import(${JSON.stringify(join(ROOT, 'dist', module))});` : ''} process.stdout.write(e.escapeText('g\\u0456t push') + ' ' + e.escapeJson('"g\\u0456t"'));`], { encoding: 'utf8' });

test.each(['latch/prompt.js', 'cli/output.js', 'store/audit.js'])('%s loads the marker', (module) => {
  expect(shown(module)).toBe('g\\u0456t push "g\\u0456t"');
});

test('escape.js alone (serve before its first spawn) shows the word as it is', () => {
  expect(shown('')).toBe('g\u0456t push "g\u0456t"');
});
