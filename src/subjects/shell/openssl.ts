import type { Word } from './options.js';

/**
 * Shared objects OpenSSL loads as code (round 29 review R29-4; docs/threat-model.md "Round 29: the
 * review of round 28"). An engine id that is a path is loaded through the dynamic engine
 * (crypto/engine/eng_list.c ENGINE_by_id; dso_dlfcn.c takes a name with a `/` as the file), a
 * provider name with a `/` is the module file, `-provider-path` the directory modules are loaded
 * from, and a configuration file (`-config`) may load either in its `engines`/`providers` sections
 * (config(5)). curl 7.88.1 `--engine /…/x.so` and openssl 3.0.19 `dgst -engine /…/x.so` ran the
 * library's constructor (openssl then refused it for want of `bind_engine`); `openssl req -config F`
 * with F's `dynamic_path = /…/x.so` too.
 */
const LOADS = /^-(?:\w+_)?(?:engine|keyengine)$|^-provider-path$|^-config$|^-(?:pre|post)$/;

/** A value an engine or provider option takes that names a file (a `/` in it), or is known only at run time. */
export const namesModule = (word: Word | undefined): boolean => word !== undefined && (!word.isStatic || word.value.includes('/'));

/** True when openssl's words load a shared object or a configuration (which may load one). */
export function opensslLoadsCode(args: readonly Word[]): boolean {
  const command = args.find((word) => !word.isStatic || !word.value.startsWith('-'));
  // `openssl engine ID…` loads each ID; one with a `/` is a file (`openssl engine ./x.so`).
  if (command?.isStatic && command.value === 'engine' && args.some((word) => word !== command && !word.value.startsWith('-') && namesModule(word))) return true;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic || !word.value.startsWith('-')) continue;
    // apps/lib/opt.c opt_next: `--opt` is `-opt`, and `-opt=VALUE` is `-opt VALUE` (openssl 3.0.19
    // loaded `dgst -engine=/…/x.so` and `--engine /…/x.so` alike).
    const [name, attached] = splitOption(word.value);
    const value: Word | undefined = attached !== undefined ? { ...word, value: attached, raw: attached } : args[i + 1];
    if (name === '-provider' && namesModule(value)) return true;
    // `-engine ID`, `-ssl_client_engine ID`: a built-in id (`pkcs11`, `rdrand`) is looked up in
    // OpenSSL's own directory (OPENSSL_ENGINES, a variable read as LD_PRELOAD is); a path is loaded.
    if (LOADS.test(name) && (!/engine$/.test(name) || namesModule(value))) return true;
  }
  return false;
}

function splitOption(text: string): [string, string | undefined] {
  const name = text.replace(/^--/, '-');
  const eq = name.indexOf('=');
  return eq === -1 ? [name, undefined] : [name.slice(0, eq), name.slice(eq + 1)];
}
