import type { CommandPath } from '../../policy/types.js';
import type { Nested } from './files.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * A CLI setting that names a command the CLI runs at every later call to fetch a credential (round
 * 30 review R30-6; docs/threat-model.md "Round 30: the review of round 29"), as `git config
 * credential.helper` (round 27) and `gh alias set` are: kubectl's exec credential plugin (`kubectl
 * config set-credentials U --exec-command=CMD --exec-arg=A`, `--auth-provider-arg=cmd-path=CMD`,
 * `kubectl config set users.U.exec.command CMD`; kubectl 1.32 ran the command on the next `kubectl
 * get pods`) and aws's `credential_process` (`aws configure set [profile.P.]credential_process CMD`,
 * botocore runs it for credentials). Each is `interpreter` (a command planted for later, under any
 * allow rule), the command a nested one deny rules meet, and a write of the config it goes to.
 */
const KUBECONFIG: Word = { value: '<kubeconfig>', raw: '<the kubeconfig: KUBECONFIG or ~/.kube/config>', isStatic: false, ansi: false };

export function kubectlCredentialCommand(args: readonly Word[], cwd: string | null, paths: CommandPath[], nested: Nested[], reasons: string[]): void {
  const operands = args.filter((word) => !word.isStatic || !word.value.startsWith('-')).map((word) => (word.isStatic ? word.value : null));
  const at = operands.indexOf('config');
  if (at === -1) return;
  const verb = operands[at + 1];
  let command: string | null = null;
  const commandArgs: string[] = [];
  let plants = false;
  if (verb === 'set-credentials' || verb === null) {
    args.forEach((word, i) => {
      if (!word.isStatic) return;
      const [name, attached] = word.value.includes('=') ? [word.value.slice(0, word.value.indexOf('=')), word.value.slice(word.value.indexOf('=') + 1)] : [word.value, args[i + 1]?.isStatic ? args[i + 1]!.value : null];
      if (!/^--(?:exec-command|exec-arg|exec-env|auth-provider|auth-provider-arg)$/.test(name)) return;
      plants = true;
      if (name === '--exec-command' && attached !== null) command = attached;
      if (name === '--exec-arg' && attached !== null) commandArgs.push(attached);
      if (name === '--auth-provider-arg' && attached !== null && /^cmd-(?:path|args)=/.test(attached)) (attached.startsWith('cmd-path=') ? (command = attached.slice(9)) : commandArgs.push(...attached.slice(9).split(/\s+/)));
    });
  }
  if (verb === 'set' || verb === null) {
    const key = operands[at + 2];
    if (key === null || (key !== undefined && /(?:^|\.)(?:exec|auth-provider)(?:\.|$)/.test(key))) plants = true;
    if (key !== null && key !== undefined && /\.exec\.command$|\.auth-provider\.config\.cmd-path$/.test(key)) command = operands[at + 3] ?? null;
  }
  if (!plants) return;
  reasons.push('interpreter');
  if (command !== null) nested.push({ kind: 'argv', words: [command, ...commandArgs].map(staticWord), cwd });
  pushPath(paths, pathOf(staticWord('~/.kube/config'), 'write', cwd));
  pushPath(paths, pathOf(KUBECONFIG, 'write', cwd));
}

/** `aws configure set [profile.P.]credential_process CMD`: the command botocore runs for credentials. */
export function awsCredentialProcess(args: readonly Word[], cwd: string | null, nested: Nested[], reasons: string[]): void {
  const operands = args.filter((word) => !word.isStatic || !word.value.startsWith('-'));
  const at = operands.findIndex((word) => word.isStatic && word.value === 'configure');
  if (at === -1 || !(operands[at + 1]?.isStatic && operands[at + 1]!.value === 'set')) return;
  const key = operands[at + 2];
  if (key === undefined || (key.isStatic && !/(?:^|\.)credential_process$/.test(key.value))) return;
  reasons.push('interpreter');
  const value = operands[at + 3];
  if (key.isStatic && value?.isStatic) nested.push({ kind: 'script', text: value.value, cwd });
}
