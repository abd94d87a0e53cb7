import { noptKeys, NPM_OPTIONS, PNPM_SHORTHANDS } from '../../programs.js';
import type { Word } from './options.js';

/**
 * A package manager's options and settings that change what TLS trusts or the proxy its requests go
 * through (round 31 review R31-2; docs/rules.md "Round 31"). With a proxy the model started and
 * verification off or a CA of its own, the manager hands its requests, and the token its rc file
 * adds, to that proxy: npm 11.19.1 sent `Authorization: Bearer` from ~/.npmrc to one on 127.0.0.1
 * for `npm --strict-ssl=false --https-proxy=http://127.0.0.1:P whoami`. Each is `interpreter`: it
 * asks under `Bash(npm:*)`, and in bypassPermissions while deny or ask rules exist.
 *
 *   npm|pnpm|yarn  --strict-ssl, --ca, --cafile, --proxy, --https-proxy (nopt: any dashes, `no-`,
 *                  an unambiguous prefix; `npm config set KEY …`, `npm set KEY=…` too)
 *   pip|pip3|pipx  --proxy, --trusted-host, --cert (argparse prefixes); `pip config set global.proxy …`
 *   uv|uvx         --allow-insecure-host (--trusted-host)
 *
 * The same by environment (`HTTPS_PROXY`, `NODE_EXTRA_CA_CERTS`, `npm_config_https_proxy`,
 * `PIP_PROXY`…) is variables.ts's; git's keys (`http.proxy`, `http.sslVerify`) git-config.ts's.
 */
export const TRUST_PROGRAMS: ReadonlySet<string> = new Set(['npm', 'pnpm', 'yarn', 'pip', 'pip3', 'pipx', 'uv', 'uvx']);

const NPM_TRUST_KEYS = ['strict-ssl', 'ca', 'cafile', 'proxy', 'https-proxy'];

function npmTrustKey(key: string): boolean {
  const name = key.toLowerCase().replace(/_/g, '-').replace(/^(no-)+/, '').split('=')[0]!;
  return NPM_TRUST_KEYS.includes(name) || (name.length >= 3 && NPM_TRUST_KEYS.some((known) => known.startsWith(name)));
}

const PIP_TRUST = /^--(prox|proxy|trus|trust|truste|trusted|trusted-|trusted-h|trusted-ho|trusted-hos|trusted-host|cer|cert)(=|$)/;
const PIP_TRUST_KEY = /^(global|install|download|wheel)\.(proxy|trusted-host|cert)$/i;
const UV_TRUST = /^--(allow-insecure-host|trusted-host)(=|$)/;

/** Whether the program's words change what its requests trust or where they go. */
export function changesTrust(name: string, args: readonly Word[]): boolean {
  const end = args.findIndex((word) => word.isStatic && word.value === '--');
  const words = (end === -1 ? args : args.slice(0, end)).filter((word) => word.isStatic).map((word) => word.value);
  const operands = words.filter((word) => !word.startsWith('-'));
  if (name === 'npm' || name === 'pnpm' || name === 'yarn') {
    const shorthands = name === 'npm' ? NPM_OPTIONS.short : PNPM_SHORTHANDS;
    if (words.some((word) => word.startsWith('-') && word !== '-' && noptKeys(word, shorthands).some(npmTrustKey))) return true;
    // `npm config set KEY VALUE`, `npm set KEY=VALUE`, `pnpm config set`, `yarn config set`: the rc file every later call reads.
    const at = operands.findIndex((word) => word === 'set');
    return at !== -1 && operands.slice(at + 1).some((word) => npmTrustKey(word));
  }
  if (name === 'uv' || name === 'uvx') return words.some((word) => UV_TRUST.test(word));
  if (words.some((word) => PIP_TRUST.test(word))) return true;
  const at = operands.indexOf('config');
  return at !== -1 && operands.slice(at + 1).some((word) => PIP_TRUST_KEY.test(word));
}
