import type { CommandPath } from '../../policy/types.js';
import type { Nested } from './files.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * GnuPG's gpg (round 29 review R29-5; docs/threat-model.md "Round 29: the review of round 28"), as
 * R28-9's CLIs that print the secret they store: `--export-secret-keys`/`--export-secret-subkeys`
 * print the private keys of the key store (GnuPG 2.2.40 printed `-----BEGIN PGP PRIVATE KEY BLOCK-----`
 * for a key without a passphrase), a read of `~/.gnupg` (its private-keys-v1.d), of `--homedir D`,
 * or of `$GNUPGHOME` (a place known only at run time), so `Read(~/.gnupg/**)` meets it. gpg(1):
 * `--agent-program FILE`, `--dirmngr-program FILE`, `--keyboxd-program FILE` are programs gpg starts
 * (2.2.40 ran `--agent-program ./x.sh`), `--photo-viewer CMD` a command it runs: `interpreter`,
 * the viewer a nested script. gpg takes unambiguous abbreviations of its long options (argparse.c).
 * Round 30: `--homedir D` (but `~/.gnupg`, the default) and `--options F` name the gpg.conf whose
 * lines are those options (`agent-program F`): `interpreter`, as `GNUPGHOME=D` is (variables.ts).
 */
const EXPORTS_SECRETS = /^--export-secret-(?:k|s|ke|su)/;
const PROGRAMS = ['--agent-program', '--dirmngr-program', '--keyboxd-program'];
const STORE: Word = { value: '<GNUPGHOME>/private-keys-v1.d', raw: '<the key store: $GNUPGHOME or ~/.gnupg>', isStatic: false, ansi: false };

export function gpg(args: readonly Word[], cwd: string | null, paths: CommandPath[], nested: Nested[], reasons: string[]): void {
  let home: Word | null = null;
  let exports = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      if (!word.raw.startsWith('-') && !word.raw.startsWith('"-')) continue;
      exports = true; // an option known only at run time may be one
      continue;
    }
    if (word.value === '--') break;
    const [name, attached] = word.value.startsWith('--') && word.value.includes('=') ? [word.value.slice(0, word.value.indexOf('=')), word.value.slice(word.value.indexOf('=') + 1)] : [word.value, undefined];
    const value = (): Word | undefined => (attached !== undefined ? { ...word, value: attached, raw: attached } : args[i + 1]);
    if (EXPORTS_SECRETS.test(name)) exports = true;
    if (name.length > 4 && '--homedir'.startsWith(name)) {
      home = value() ?? null;
      // Round 30: D's gpg.conf is gpg's options, `agent-program` among them (GnuPG 2.2 ran it, as for GNUPGHOME; variables.ts).
      if (!(home?.isStatic && /^~\/\.gnupg\/?$/.test(home.value))) reasons.push('interpreter');
    }
    // `--options FILE` reads FILE as gpg.conf (`--opt` is the shortest unambiguous spelling: `--op` is also `--openpgp`).
    if (name.length > 4 && '--options'.startsWith(name) && name.startsWith('--opt') && !(value()?.isStatic && value()!.value === '/dev/null')) reasons.push('interpreter');
    if (PROGRAMS.some((option) => name.length > 8 && option.startsWith(name))) reasons.push('interpreter');
    if (name.length > 4 && '--photo-viewer'.startsWith(name)) {
      reasons.push('interpreter');
      const viewer = value();
      if (viewer?.isStatic) nested.push({ kind: 'script', text: viewer.value, cwd });
    }
  }
  if (!exports) return;
  if (home !== null) pushPath(paths, pathOf(home.isStatic ? staticWord(`${home.value.replace(/\/+$/, '')}/private-keys-v1.d`) : home, 'read', cwd));
  else {
    pushPath(paths, pathOf(staticWord('~/.gnupg/private-keys-v1.d'), 'read', cwd));
    pushPath(paths, pathOf(STORE, 'read', cwd));
  }
}
