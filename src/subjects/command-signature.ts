import type { Segment } from '../policy/types.js';

/**
 * The signature of a shell command: its program plus the subcommand words that say what it does,
 * for "Always allow" (`Bash(<signature> *)`, SPEC §5). Harmless global options are skipped;
 * options that change what runs (`git -c`, `cargo --config`, `docker -H`) give no signature.
 *
 *   git -C repo --no-pager log -5      → git log
 *   npm run test -- --run             → npm run test
 *   docker compose -f dev.yml up -d   → docker compose up
 *   gh pr view 12                     → gh pr view
 *   make -j4 build                    → make build
 *   ls -la                            → ls
 */

interface CliSpec {
  /** Global options that take a value (skipped with it). */
  value?: readonly string[];
  /** Global options that make the command unrememberable. */
  danger?: readonly string[];
  /** Subcommands followed by a second word that belongs to the signature (`run <script>`, `pr <verb>`). */
  groups?: readonly string[];
  /** Options of a group that take a value, skipped before its second word (`docker compose -f x up`). */
  groupValue?: readonly string[];
  /** The first word may be a `+toolchain` (cargo). */
  toolchain?: boolean;
}

const RUNNERS = ['run', 'run-script', 'rum', 'urn', 'exec', 'x', 'dlx'];
const COMPOSE_VALUE = ['-f', '--file', '-p', '--project-name', '--profile', '--env-file', '--project-directory', '--ansi', '--progress', '--parallel'];
const DOCKER: CliSpec = {
  value: ['--context', '-c', '--config', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey'],
  danger: ['-H', '--host'],
  groups: ['compose', 'container', 'image', 'network', 'volume', 'system', 'builder', 'buildx', 'context', 'plugin', 'secret', 'service', 'stack', 'swarm', 'node', 'config', 'trust', 'manifest'],
  groupValue: COMPOSE_VALUE,
};

const CLIS: Record<string, CliSpec> = {
  git: {
    value: ['-C', '--git-dir', '--work-tree', '--namespace', '--super-prefix'],
    danger: ['-c', '--config-env', '--exec-path'],
  },
  npm: { value: ['--prefix', '-w', '--workspace', '--loglevel'], groups: RUNNERS },
  pnpm: { value: ['-C', '--dir', '--filter', '-F', '--loglevel'], groups: RUNNERS },
  yarn: { value: ['--cwd'], groups: [...RUNNERS, 'workspace'] },
  bun: { value: ['--cwd', '-c', '--config'], groups: RUNNERS },
  docker: DOCKER,
  podman: DOCKER,
  'docker-compose': { value: COMPOSE_VALUE },
  kubectl: {
    value: ['-n', '--namespace', '--context', '--kubeconfig', '--cluster', '--user', '-s', '--server', '--as', '--as-group', '--token'],
    groups: ['config', 'rollout', 'auth', 'certificate', 'top', 'set', 'plugin', 'create'],
  },
  gh: {
    value: ['-R', '--repo', '--hostname'],
    groups: ['pr', 'issue', 'repo', 'release', 'run', 'workflow', 'gist', 'auth', 'config', 'secret', 'variable', 'label', 'codespace', 'cache', 'extension', 'ext', 'project', 'ruleset', 'search', 'ssh-key', 'gpg-key', 'org', 'alias', 'attestation'],
  },
  cargo: { value: ['--color', '-Z', '-C'], danger: ['--config'], toolchain: true },
  go: { groups: ['mod', 'work', 'tool'] },
  uv: { value: ['--directory', '--project', '--cache-dir', '--color', '--python', '-p'], groups: ['pip', 'tool', 'python', 'cache', 'self', 'run'], groupValue: ['--with', '--python', '-p', '--package', '--env-file', '--extra', '--group', '--directory', '--project', '--index', '--index-url'] },
  pip: { value: ['--log', '--proxy', '--retries', '--timeout', '--exists-action', '--trusted-host', '--cert', '--client-cert', '--cache-dir'] },
  make: { value: ['-C', '--directory', '-f', '--file', '--makefile', '-I', '--include-dir', '-o', '--old-file', '-W', '--what-if', '--new-file', '-l', '--load-average'] },
};
CLIS.pip3 = CLIS.pip!;
CLIS.pipx = CLIS.pip!;
CLIS.gmake = CLIS.make!;

/** Programs whose signature includes the script they run (`node scripts/build.js`, `python -m pytest`). */
const SCRIPT_RUNNERS = /^(node|nodejs|deno|python[\d.]*|pypy[\d.]*|ruby|perl|php|bash|sh|zsh|dash|ksh)$/;

/**
 * Index of the first subcommand word in `args` after the CLI's global options, or -1 when there is
 * none; null when a dangerous global option is present (`git -c core.pager=…`).
 */
export function subcommandIndex(name: string, args: readonly string[]): number | null {
  return findSubcommand(CLIS[name], args, 0, name === 'make' || name === 'gmake');
}

function findSubcommand(spec: CliSpec | undefined, args: readonly string[], from: number, isMake: boolean): number | null {
  let i = from;
  if (spec?.toolchain && args[i]?.startsWith('+')) i++;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return i + 1 < args.length ? i + 1 : -1;
    if (!arg.startsWith('-') || arg === '-') {
      if (isMake && /^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) continue; // make VAR=value
      return i;
    }
    const option = arg.split('=')[0]!;
    if (spec?.danger?.some((d) => option === d || (d.length === 2 && arg.startsWith(d)))) return null;
    if (!arg.includes('=') && spec?.value?.includes(option)) i++;
    else if (isMake && option === '-j' && /^\d+$/.test(args[i + 1] ?? '')) i++;
  }
  return -1;
}

/**
 * Program plus subcommand of a segment, for "Always allow"; null when the segment has no static
 * program or words, or a global option changes what runs.
 */
export function commandSignature(segment: Segment): string | null {
  if (!segment.isStatic || segment.program === null || segment.name === null) return null;
  const { name, args, program } = segment;
  const spec = CLIS[name];
  if (spec) {
    const index = subcommandIndex(name, args);
    if (index === null) return null;
    if (index === -1) return program;
    const sub = args[index]!;
    if (!spec.groups?.includes(sub)) return `${program} ${sub}`;
    // `npm run test`, `docker compose up`, `gh pr view`: the group's own verb follows its options.
    const next = findSubcommand({ value: spec.groupValue ?? [] }, args, index + 1, false);
    return next === null || next < 0 ? `${program} ${sub}` : `${program} ${sub} ${args[next]!}`;
  }
  if (SCRIPT_RUNNERS.test(name)) {
    const first = args[0];
    if (first === '-m' && args[1]) return `${program} -m ${args[1]}`;
    if (first !== undefined && !first.startsWith('-')) return `${program} ${first}`;
  }
  return program;
}
