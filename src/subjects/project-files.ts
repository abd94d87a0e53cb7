/**
 * Files a program finds itself by walking up from its working directory, which the shell analysis
 * marks by a `via` and subjects/inspect.ts reads on disk when the call is decided (round 29): the
 * package.json `corepack use` writes, the rust-toolchain file rustup's proxies obey. Outside
 * subjects/shell/ so that inspect.ts can name them (scripts/bundle.js keeps the shell model apart).
 */

/**
 * The `via` of the package.json `corepack use`/`up` writes: not always ./package.json but the one
 * corepack's loadSpec finds walking up from the working directory — the nearest with a
 * `packageManager` field, else the highest one there is (node_modules directories skipped), else
 * ./package.json (corepack 0.34.6 dist/lib/corepack.cjs loadSpec, setLocalPackageManager; round 29).
 * subjects/inspect.ts finds it on disk when the call is decided.
 */
export const COREPACK_MANIFEST = 'package.json corepack use writes';

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

