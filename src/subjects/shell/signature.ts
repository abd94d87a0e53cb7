import type { Segment } from '../../policy/types.js';
import { CLIS, ghCommandPath, isScriptRunner, unreadOptions, type CliSpec } from '../../programs.js';

/**
 * The signature of a shell command: its program plus the subcommand words that say what it does,
 * for "Always allow" (`Bash(<signature> *)`, docs/approval.md). Harmless global options are skipped;
 * options that change what runs (`git -c`, `cargo --config`, `docker -H`) give no signature.
 *
 *   git -C repo --no-pager log -5      → git log
 *   npm run test -- --run             → npm run test
 *   docker compose -f dev.yml up -d   → docker compose up
 *   gh pr view 12                     → gh pr view
 *   make -j4 build                    → make build
 *   ls -la                            → ls
 */

/**
 * Index of the first subcommand word in `args` after the CLI's global options, or -1 when there is
 * none; null when a dangerous global option is present (`git -c core.pager=…`).
 */
export function subcommandIndex(name: string, args: readonly string[]): number | null {
  // An option that may take the next word or not (pnpm, yarn, bun): the command word is not known.
  if (unreadOptions(name, args).length > 0) return null;
  return findSubcommand(Object.hasOwn(CLIS, name) ? CLIS[name] : undefined, args, 0, name === 'make' || name === 'gmake');
}

/**
 * The command word's index as the CLI itself finds it, a dangerous global option read as the value
 * option it is (`docker -H tcp://h cp …` is docker's `cp`; round 29): for what its operands name
 * (cli-operands.ts), where subcommandIndex's null would hide them. -1 when there is none.
 */
export function commandWordIndex(name: string, args: readonly string[]): number {
  const spec = Object.hasOwn(CLIS, name) ? CLIS[name]! : undefined;
  return findSubcommand(spec && { ...spec, danger: [], value: [...(spec.value ?? []), ...(spec.danger ?? [])] }, args, 0, false) ?? -1;
}

/** The verb of a group (`gh release upload`) at or after `from`, past the group's own value options (`gh release -R o/r upload`). */
export function groupVerbIndex(values: readonly string[], args: readonly string[], from: number): number {
  return findSubcommand({ value: [...values] }, args, from, false) ?? -1;
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
  const spec = Object.hasOwn(CLIS, name) ? CLIS[name] : undefined;
  // gh: its command words as cobra finds them (`gh release -t list create` is `gh release create`; round 30).
  if (name === 'gh') {
    const path = ghCommandPath(args).slice(0, 2);
    return [program, ...path.map((at) => args[at]!)].join(' ');
  }
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
  if (isScriptRunner(name)) {
    const first = args[0];
    if (first === '-m' && args[1]) return `${program} -m ${args[1]}`;
    if (first !== undefined && !first.startsWith('-')) return `${program} ${first}`;
  }
  return program;
}
