import { expandHome } from '../home.js';
import { isInside } from '../subjects/paths.js';
import { isRemoteServer, type ServerConfig } from '../config/schema.js';
import { identifyServer } from '../subjects/server-identity.js';

/**
 * The rules `init` writes. JSON has no comments, so every rule comes with the reason printed in the
 * summary. The set is deliberately small: `defaultMode: "default"` already allows reads inside the
 * workspace and read-only commands and asks for everything else, so the rules only add what the mode
 * cannot know (where secrets live, what publishes work) and a few routine commands when a shell
 * server is present.
 */
export interface StarterRules {
  workspace: string[];
  permissions: { defaultMode: 'default'; allow: string[]; ask: string[]; deny: string[] };
  /** One line per decision, for people. */
  reasons: string[];
}

const SECRET_FILES = ['Read(**/.env)', 'Read(**/.env.*)'];
const KEY_STORES = ['Read(~/.ssh/**)', 'Read(~/.aws/**)', 'Read(~/.gnupg/**)', 'Read(~/.config/gcloud/**)', 'Read(~/Library/Keychains/**)'];
const SHELL_PROFILES = new Set(['commands', 'desktop-commander']);
const TEST_COMMANDS = ['Bash(npm run test *)', 'Bash(npm test *)'];

/** Rules suited to `servers`; `extraDeny` are rules the clients implied (disabled tools). */
export function starterRules(servers: Record<string, ServerConfig>, options: { workspace: string; home: string; platform: NodeJS.Platform; extraDeny?: string[] }): StarterRules {
  const keyStores = options.platform === 'win32' ? [...KEY_STORES, 'Read(~/AppData/Roaming/gcloud/**)'] : KEY_STORES;
  const deny = [...SECRET_FILES, ...keyStores, 'Bash(rm -rf *)', ...(options.extraDeny ?? [])];
  const ask = ['Bash(git push *)'];
  const allow: string[] = [];
  const reasons = [
    `workspace ${options.workspace}: defaultMode "default" allows reads inside it and read-only commands (git status, ls, cat…); every write and every other command asks`,
    `deny ${SECRET_FILES.join(', ')}: env files hold secrets (also blocks "cat .env" through a shell)`,
    `deny ${keyStores.join(', ')}: keys and cloud credentials`,
    'deny Bash(rm -rf *): recursive deletes (also caught as rm -fr, sudo rm -rf, find -exec rm …)',
    'ask Bash(git push *): pushing publishes your work; an ask rule keeps asking even if you later allow Bash(git *)',
  ];
  if ((options.extraDeny ?? []).length > 0) reasons.push(`deny ${options.extraDeny!.join(', ')}: tools your client had disabled`);

  const shells: string[] = [];
  const remote: string[] = [];
  for (const [name, server] of Object.entries(servers)) {
    if (isRemoteServer(server)) {
      remote.push(name);
      continue;
    }
    const identity = identifyServer(server, options.workspace);
    if (identity.profile && SHELL_PROFILES.has(identity.profile)) shells.push(name);
    const outside = identity.roots.filter((root) => !isInside(options.workspace, expandHome(root, options.home)));
    if (identity.profile === 'filesystem' && outside.length > 0) {
      reasons.push(`${name} can reach ${outside.join(', ')}: reads there ask until you add a rule such as Read(${outside[0]!.replace(/\\/g, '/')}/**)`);
    }
  }
  if (remote.length > 0) {
    reasons.push(`${remote.join(', ')} ${remote.length === 1 ? 'is' : 'are'} remote: tools are classified by their name and schema, and whatever is not clearly a read asks`);
  }
  if (shells.length > 0) {
    allow.push(...TEST_COMMANDS);
    reasons.push(`allow ${TEST_COMMANDS.join(', ')}: ${shells.join(', ')} run${shells.length === 1 ? 's' : ''} shell commands and test runs are routine; remove these if your tests do anything you want to see first`);
  }
  return { workspace: [options.workspace], permissions: { defaultMode: 'default', allow, ask, deny }, reasons };
}

