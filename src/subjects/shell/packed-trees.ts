import { RECURSIVE } from '../../policy/decide.js';
import type { CommandPath } from '../../policy/types.js';
import { npmCommand } from './npm-commands.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';
import { npmCommandAt } from './package-managers.js';

/**
 * Commands that pack or send every file below a directory (round 31 review R31-6; docs/rules.md
 * "Round 31"): each is a recursive read of it, as `tar c DIR` is (a deny or ask rule matching a file
 * really there makes it ask, naming the file; docs/threat-model.md#recursive-reads). Their own
 * filters (`files`, .npmignore, .dockerignore, `include`) are not read: that can only make a read
 * ask for a file they would skip.
 *
 *   npm|pnpm|yarn|bun pack|publish (the package here, a folder operand or not; npm 11.19.1 packed .env, which it
 *     does not leave out by default), cargo package|publish          the package's directory
 *   docker|podman build|buildx build|image build|builder build [OPTIONS] PATH   the build context
 *     (docker-build(1): every file of PATH is sent to the daemon; the Dockerfile's COPY takes any)
 *   aws s3 sync SRC DST, aws s3 cp SRC DST --recursive; gcloud storage cp -r|rsync, gsutil cp -r|rsync;
 *   az storage blob upload-batch -s SRC      a local source uploaded
 */
export const PACKING_PROGRAMS: ReadonlySet<string> = new Set(['npm', 'pnpm', 'yarn', 'bun', 'cargo', 'docker', 'podman', 'aws', 'gcloud', 'gsutil', 'az']);

/** docker build's options that take a value (docker-build(1), buildx's), skipped to find PATH. */
const DOCKER_BUILD_VALUES = /^(-t|--tag|-f|--file|--build-arg|--build-context|--cache-from|--cache-to|--label|--platform|--target|--network|--secret|--ssh|-o|--output|--progress|--iidfile|--metadata-file|--add-host|--cgroup-parent|--cpu-period|--cpu-quota|--cpu-shares|-c|--cpuset-cpus|--cpuset-mems|--isolation|-m|--memory|--memory-swap|--shm-size|--ulimit|--annotation|--attest|--builder|--call|--allow|--sbom|--provenance|--security-opt)$/;

const remote = (value: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^(s3|gs):/i.test(value);

export function packedTrees(name: string, args: readonly Word[], cwd: string | null): CommandPath[] {
  const paths: CommandPath[] = [];
  const tree = (word: Word): void => {
    if (word.isStatic && (word.value === '-' || remote(word.value))) return;
    const path = pathOf(word, 'read', cwd, RECURSIVE);
    if (path) path.tree = { content: true, follows: false };
    pushPath(paths, path);
  };
  const statics = args.map((word) => (word.isStatic ? word.value : '\u0000'));
  const operands = args.filter((word) => !word.isStatic || !word.value.startsWith('-'));
  const words = operands.map((word) => (word.isStatic ? word.value : '\u0000'));
  switch (name) {
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun': {
      // npm's command word as npm reads it (`npm --registry URL pub`); the others' anywhere but as a
      // script's name (`pnpm --filter app publish`, `bun pm pack`), a word known only at run time too.
      const packs = (word: string | null): boolean => word === 'pack' || word === 'publish';
      const at = name === 'npm' ? npmCommandAt(args) : -1;
      const command = name !== 'npm' ? null : at === -1 ? (args.some((word) => !word.isStatic) ? '\u0000' : null) : args[at]!.isStatic ? npmCommand(args[at]!.value) : '\u0000';
      const named = name === 'npm' ? packs(command) || command === '\u0000' : words.some((word, i) => (packs(word) || word === '\u0000') && words[i - 1] !== 'run');
      // The package here; a folder operand is read too (local-packages.ts). Always `.`: an option's
      // value (`--tag beta`, `--pack-destination ./out`) cannot be told from a folder here.
      if (named) tree(staticWord('.'));
      return paths;
    }
    case 'cargo': {
      const command = words.find((word) => !word.startsWith('+'));
      if (command === 'package' || command === 'publish') tree(staticWord('.'));
      return paths;
    }
    case 'docker':
    case 'podman': {
      const at = words.findIndex((word) => word === 'build' || word === '\u0000');
      if (at === -1 || !(at === 0 || ['buildx', 'image', 'builder'].includes(words[at - 1]!))) return paths;
      // The context: the first operand past `build`, its options' values skipped.
      const start = statics.indexOf(words[at]!, 0) + 1;
      for (let i = start; i < args.length; i++) {
        const v = statics[i]!;
        if (v === '--') continue;
        if (v.startsWith('-') && v !== '-') {
          if (!v.includes('=') && DOCKER_BUILD_VALUES.test(v)) i++;
          continue;
        }
        tree(args[i]!);
        break;
      }
      return paths;
    }
    case 'aws': {
      const s3 = words.indexOf('s3');
      const verb = s3 === -1 ? undefined : words[s3 + 1];
      const recursive = statics.includes('--recursive');
      // Every operand but the last (the destination) may be the source: an option's value among them is read too.
      if (verb === 'sync' || (verb === 'cp' && recursive)) for (const source of operands.slice(s3 + 2, -1)) tree(source);
      return paths;
    }
    case 'gcloud':
    case 'gsutil': {
      const at = name === 'gcloud' ? words.indexOf('storage') + 1 : 0;
      if (name === 'gcloud' && at === 0) return paths;
      const verb = words[at];
      const recursive = statics.some((v) => /^(-r|-R|--recursive)$/.test(v) || /^-[a-zA-Z]*[rR]/.test(v));
      if (verb === 'rsync' || (verb === 'cp' && recursive)) for (const source of operands.slice(at + 1, -1)) tree(source);
      return paths;
    }
    case 'az': {
      if (!(words.includes('upload-batch') && words.includes('blob'))) return paths;
      const at = statics.findIndex((v) => v === '-s' || v === '--source');
      if (at !== -1 && args[at + 1]) tree(args[at + 1]!);
      return paths;
    }
  }
  return paths;
}
