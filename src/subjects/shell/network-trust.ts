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
 * Round 32 (rules32; docs/threat-model.md "Round 32: round 31's command-rule leftovers (rules32)"):
 *
 *   aws            --endpoint-url other than AWS's own hosts (every request, signed with the stored
 *                  key, goes there: aws-cli 1.45 sent `Authorization: AWS4-HMAC-SHA256
 *                  Credential=<key id>/…` to one on 127.0.0.1), --no-verify-ssl, --ca-bundle
 *   curl           a stored credential (`-n`, `--netrc`, `--netrc-optional`, `--netrc-file`) sent
 *                  through a route or trust the command picks (`-x`/`--proxy`, `--preproxy`,
 *                  `--socks*`, `--connect-to`, `--resolve`, `--doh-url`, `-k`/`--insecure`,
 *                  `--cacert`, `--capath`…): curl 7.88 sent ~/.netrc's password to a proxy on
 *                  127.0.0.1 for `curl -k --proxy … --netrc https://…`
 *   wget           a proxy set by `-e`/`--execute` (wget reads ~/.netrc unasked)
 *
 * The same by environment (`HTTPS_PROXY`, `NODE_EXTRA_CA_CERTS`, `npm_config_https_proxy`,
 * `PIP_PROXY`, `AWS_ENDPOINT_URL`…) is variables.ts's; git's keys (`http.proxy`, `http.sslVerify`)
 * git-config.ts's.
 */
export const TRUST_PROGRAMS: ReadonlySet<string> = new Set(['npm', 'pnpm', 'yarn', 'pip', 'pip3', 'pipx', 'uv', 'uvx', 'aws', 'curl', 'wget']);

const NPM_TRUST_KEYS = ['strict-ssl', 'ca', 'cafile', 'proxy', 'https-proxy'];

function npmTrustKey(key: string): boolean {
  const name = key.toLowerCase().replace(/_/g, '-').replace(/^(no-)+/, '').split('=')[0]!;
  return NPM_TRUST_KEYS.includes(name) || (name.length >= 3 && NPM_TRUST_KEYS.some((known) => known.startsWith(name)));
}

const PIP_TRUST = /^--(prox|proxy|trus|trust|truste|trusted|trusted-|trusted-h|trusted-ho|trusted-hos|trusted-host|cer|cert)(=|$)/;
const PIP_TRUST_KEY = /^(global|install|download|wheel)\.(proxy|trusted-host|cert)$/i;
const UV_TRUST = /^--(allow-insecure-host|trusted-host)(=|$)/;
/** aws's hosts (`*.amazonaws.com`, China's `*.amazonaws.com.cn`, the dual-stack `*.api.aws`), over https. */
const AWS_HOST = /^https:\/\/(?:[\w-]+\.)*(?:amazonaws\.com(?:\.cn)?|api\.aws)(?::443)?(?:\/|$)/i;
/**
 * A loopback endpoint (LocalStack's `http://localhost:4566`), written so that botocore's urlsplit and
 * a URL parser agree on the host: no userinfo, backslash or escape. Round 33 (rules33): the request
 * stays on this machine, and what its listener gets (the key id, a SigV4 signature whose signed
 * headers hold this host) makes no request AWS accepts; `--no-verify-ssl` and `--ca-bundle` still ask.
 */
const LOOPBACK_ENDPOINT = /^https?:\/\/(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d{1,5})?\/?$/i;
/** curl's options naming a stored credential it adds (curl(1): `-n`, `--netrc`, `--netrc-optional`, `--netrc-file F`). */
const CURL_NETRC = /^--netrc(?:-optional|-file)?(?:=|$)|^-[a-zA-Z]*n/;
/** curl's options that pick where a request goes or what TLS trusts (curl(1)); short ones may be bundled (`-kx`). */
const CURL_ROUTE = /^--(?:proxy|preproxy|socks4a?|socks5(?:-hostname)?|connect-to|resolve|doh-url|insecure|proxy-insecure|cacert|capath|proxy-cacert|proxy-capath|pinnedpubkey|ca-native|proxy-ca-native|doh-insecure)(?:=|$)|^-[a-zA-Z]*[kx]/;

/** Whether aws's words send its signed requests to another host, or change what TLS trusts. */
function awsTrust(words: readonly string[]): boolean {
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--no-verify-ssl' || /^--ca-bundle(=|$)/.test(word)) return true;
    if (word === '--endpoint-url' || word.startsWith('--endpoint-url=')) {
      const url = word.includes('=') ? word.slice(word.indexOf('=') + 1) : words[i + 1];
      if (url === undefined || !(AWS_HOST.test(url) || LOOPBACK_ENDPOINT.test(url))) return true;
    }
  }
  return false;
}

/** Whether the program's words change what its requests trust or where they go. */
export function changesTrust(name: string, args: readonly Word[]): boolean {
  const end = args.findIndex((word) => word.isStatic && word.value === '--');
  // A value known only at run time is no AWS host (`aws --endpoint-url "$U"`).
  const words = (end === -1 ? args : args.slice(0, end)).map((word) => (word.isStatic ? word.value : '\u0000'));
  if (name === 'aws') return awsTrust(words);
  if (name === 'curl') return words.some((word) => CURL_NETRC.test(word)) && words.some((word) => CURL_ROUTE.test(word));
  if (name === 'wget') return words.some((word, i) => (/^(?:-e|--execute)$/.test(word) ? /proxy/i.test(words[i + 1] ?? '') : /^(?:--execute=|-e).*proxy/i.test(word)));
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
