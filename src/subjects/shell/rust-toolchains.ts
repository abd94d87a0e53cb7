import type { FileFacts } from './files.js';
import type { Word } from './options.js';

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

/**
 * A toolchain rustup names itself (rustup's src/dist PartialToolchainDesc, 1.29): a channel —
 * `stable`, `beta`, `nightly`, a version `1.80`, `1.80.0`, `1.81.0-beta.3` — then an optional date
 * and an optional host of known parts (`stable-msvc`, `nightly-2025-01-01-x86_64-unknown-linux-gnu`).
 * rustup refuses to link such a name ("invalid custom toolchain name"), so it is one rustup
 * installed. Any other name (`evil`, `stable-evil`, `1.80-foo`: rustup 1.29 linked each) may be
 * one `rustup toolchain link` gave a directory in an earlier call, whose programs then run (round
 * 28). The host parts are the hosts rustup installs toolchains for, a subset of its lists: a part
 * missing here only makes a name ask.
 */
const HOST_ARCH = 'x86_64|aarch64|i686|i586|arm|armv7|loongarch64|powerpc|powerpc64|powerpc64le|riscv64gc|s390x|sparcv9|mips|mipsel|mips64|mips64el';
const HOST_OS = 'unknown-linux|linux|apple-darwin|pc-windows|unknown-freebsd|unknown-netbsd|unknown-illumos|pc-solaris|sun-solaris';
const HOST_ENV = 'gnu|gnueabi|gnueabihf|gnux32|gnuabi64|gnullvm|musl|musleabi|musleabihf|msvc|android|androideabi|eabi|eabihf';
const CHANNEL_NAME = new RegExp(
  `^(?:stable|beta|nightly|[0-9]\\.(?:0|[1-9][0-9]{0,2})(?:\\.(?:0|[1-9][0-9]?))?(?:-beta(?:\\.[0-9]{1,2})?)?)(?:-[0-9]{4}-[0-9]{2}-[0-9]{2})?(?:-(?:${HOST_ARCH}))?(?:-(?:${HOST_OS}))?(?:-(?:${HOST_ENV}))?$`,
);

/** True when `name` is a toolchain rustup names itself (CHANNEL_NAME), not one a link may have made. */
export const isChannelName = (name: string): boolean => CHANNEL_NAME.test(name);

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

/**
 * The `via` of the directory a rustup proxy runs in without a `+TOOLCHAIN`: rustup then runs the
 * toolchain a `rust-toolchain` or `rust-toolchain.toml` file names in that directory or the nearest
 * above it (rustup 1.29 Cfg::find_override_from_dir_walk; rustup book "Overrides"). A `channel` that
 * is no channel's name (a linked one) or a `path` runs that directory's programs, as `cargo +NAME`
 * does (round 29: `channel = "r29tc"` after `rustup toolchain link r29tc D` ran D/bin/cargo for
 * `cargo build`). subjects/inspect.ts reads the file on disk when the call is decided
 * (rustToolchainFile) and then asks.
 */
export const RUST_TOOLCHAIN_FILE = 'directory whose rust-toolchain file rustup reads';

/**
 * The toolchain a toolchain file's text names that may be a linked or a path one, or null when it
 * names a channel (or nothing: rustup then uses the default). The legacy `rust-toolchain` file is one
 * line, the name; otherwise TOML whose `[toolchain]` has `channel` or `path`. A text read otherwise
 * (a name quoted oddly, a key spelled otherwise) is returned whole: it asks.
 */
export function customToolchainIn(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/[=[\n]/.test(trimmed)) return isChannelName(trimmed) ? null : trimmed;
  const path = /^\s*path\s*=\s*["']([^"'\n]*)["']/m.exec(text);
  if (path) return path[1]!;
  const channel = /^\s*channel\s*=\s*["']([^"'\n]*)["']\s*(#.*)?$/m.exec(text);
  if (channel) return isChannelName(channel[1]!) ? null : channel[1]!;
  return /^\s*(channel|"channel"|'channel')\s*=/m.test(text) ? trimmed : null;
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
