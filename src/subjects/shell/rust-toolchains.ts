import type { FileFacts } from './files.js';
import type { Word } from './options.js';
import { isChannelName } from '../project-files.js';

export { isChannelName };

/**
 * rustup's toolchains named by path (docs/threat-model.md "Round 27: rules left by round 26
 * (rules27b)", T2) or by a name `rustup toolchain link` gave (round 28, L1). A channel's name
 * (`stable`, `nightly-2025-01-01`, `1.80`) is one rustup installed; a directory, or a linked name,
 * is one whose programs run as they are (rustup 1.29):
 *
 *   rustc +D x.rs, rustdoc +D, rustfmt +D, cargo-clippy +D, clippy-driver +D   ran D/bin/<proxy>
 *   cargo +D build                                                             ran D/bin/cargo (round 26 S15)
 *   rustup run D rustc                                                         ran D/bin/rustc
 *   rustup toolchain link NAME D; rustc +NAME                                  ran D/bin/rustc
 *
 * Each is `interpreter`, as `RUSTUP_TOOLCHAIN=D` is (variables.ts). `rustup default D` and `rustup
 * override set D` are read the same way (rustup 1.29 refuses a path there: "invalid toolchain name";
 * a later release may not). The command `rustup run` runs is read as a runner's (runners.ts).
 */

/** rustup's proxies (rustup's `TOOLS` and `DUP_TOOLS`): each reads a first word `+TOOLCHAIN`. */
export const RUSTUP_PROXIES: ReadonlySet<string> = new Set(['cargo', 'rustc', 'rustdoc', 'rust-gdb', 'rust-gdbgui', 'rust-lldb', 'rls', 'cargo-clippy', 'clippy-driver', 'cargo-miri', 'rust-analyzer', 'rustfmt', 'cargo-fmt']);

/** True when `word` may be a toolchain that is no channel's: a path, a linked name, or a word known only at run time. */
const customToolchain = (word: Word | undefined): boolean => word !== undefined && (word.isStatic ? !isChannelName(word.value) : true);

/**
 * True when a proxy's (or rustup's own) first word is `+TOOLCHAIN` with a toolchain that may be a
 * directory, or a word known only at run time that may be one: a word whose text starts with a
 * literal other than `+` (`src/$f.rs`) cannot be.
 */
export function customToolchainWord(args: readonly Word[]): boolean {
  const first = args[0];
  if (first === undefined) return false;
  if (!first.isStatic) return !/^[\w./-]/.test(first.raw);
  return first.value.startsWith('+') && customToolchain({ ...first, value: first.value.slice(1) });
}

/** rustup's options that take a value, by command (`rustup override set --path D NAME`). */
const RUSTUP_VALUES: ReadonlySet<string> = new Set(['--path']);

export function rustup(args: readonly Word[], _cwd: string | null, out: FileFacts): void {
  const code = (): void => void out.reasons.push('interpreter');
  if (customToolchainWord(args)) return code();
  // The operands after any `+TOOLCHAIN` and options (`rustup -v default D`, `override set --path P D`).
  const operands: Word[] = [];
  for (let i = args[0]?.isStatic && args[0].value.startsWith('+') ? 1 : 0; i < args.length; i++) {
    const word = args[i]!;
    if (word.isStatic && word.value === '--') break;
    if (word.isStatic && word.value.startsWith('-') && word.value !== '-') {
      if (RUSTUP_VALUES.has(word.value)) i++;
      continue;
    }
    operands.push(word);
  }
  const words = operands.map((word) => (word.isStatic ? word.value : '\u0000'));
  // A command known only at run time may be `toolchain link` or `default D`.
  if (words[0] === '\u0000' || (words[0] === 'toolchain' && words[1] === '\u0000') || (words[0] === 'override' && words[1] === '\u0000')) return code();
  // `toolchain link NAME D`: every later `+NAME`, `default NAME`, `RUSTUP_TOOLCHAIN=NAME` runs D's programs.
  if (words[0] === 'toolchain' && words[1] === 'link') return code();
  if (words[0] === 'default' || words[0] === 'run') return void (customToolchain(operands[1]) && code());
  if (words[0] === 'override' && (words[1] === 'set' || words[1] === 'add') && customToolchain(operands[2])) code();
}
