import type { CommandPath } from '../../policy/types.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * CLIs that print the secret they keep, past a `Read` deny rule on their store (round 30 review R30-4;
 * docs/threat-model.md "Round 30: the review of round 29"), as round 28's R28-9 read `git credential
 * fill`, `gh auth token` and `kubectl config view --raw`: each is a read of the store's files and,
 * where a variable or a helper may move it, of a place known only at run time (asks in default,
 * acceptEdits and plan, refused in dontAsk, asks in bypassPermissions while deny or ask rules exist).
 *
 * - aws (aws-cli 1.45 printed `aws_secret_access_key` from ~/.aws/credentials): `configure get KEY`,
 *   `configure export-credentials` (v2) read ~/.aws/credentials and ~/.aws/config
 *   (`AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE`); `configure set`/`import` write them.
 * - gcloud: `auth print-access-token`, `auth print-identity-token`, `auth application-default
 *   print-access-token` and `config config-helper` print a token from ~/.config/gcloud
 *   (`CLOUDSDK_CONFIG`); gcloud's docker-credential-gcloud `get` too.
 * - az: `account get-access-token` prints one from ~/.azure (`AZURE_CONFIG_DIR`).
 * - docker's credential helpers (`docker-credential-NAME get`, docker-credential-helpers' protocol)
 *   print the password of the server on stdin from their store; `docker login`/`logout` write
 *   ~/.docker/config.json (`DOCKER_CONFIG`, `--config D`, a helper's store), podman's its auth.json.
 * - pass(1) `show NAME` (the default command), `otp`, `grep` decrypt ~/.password-store
 *   (`PASSWORD_STORE_DIR`) with the gpg key of ~/.gnupg; `insert`, `generate`, `edit`, `rm`, `mv`,
 *   `cp`, `init` write it; gopass's `show`/`cat`/a bare name its stores.
 * - secret-tool(1) `lookup`/`search --unlock` print from the keyring; macOS security(1)
 *   `find-generic-password -w|-g`, `find-internet-password -w|-g`, `dump-keychain -d` from the keychains.
 *
 * Round 31 (review R31-4): a credential minted from the stored one and printed is that credential,
 * as `gcloud auth print-access-token` is: aws `sts get-session-token|get-federation-token|assume-role`,
 * `ecr|ecr-public get-login-password|get-authorization-token`, `codeartifact get-authorization-token`,
 * `eks get-token`, `rds generate-db-auth-token`, `sso get-role-credentials` (each signed with the key
 * of ~/.aws/credentials or the SSO cache below ~/.aws/sso; the AWS CLI reference); vault's `print
 * token`, `token lookup` (its own: the output's `id` is the token) and `token create` (vault's token
 * helper keeps it in ~/.vault-token; `vault login` writes it); doppler's `configure` (`configure get
 * token --plain` prints the CLI token of ~/.doppler/.doppler.yaml; `configure set|unset`, `login`
 * write it); sops `-d`/`decrypt`/editing/`exec-env`/`exec-file` decrypt with the age key of
 * ~/.config/sops/age/keys.txt (`SOPS_AGE_KEY_FILE`) or gpg's private keys. A secret fetched from a
 * service (`aws secretsmanager get-secret-value`, `vault kv get`, `op read`, `kubectl get secret`)
 * is not the store's: a deny rule on that command stops it (command-match.ts reads the CLIs' global
 * options wherever they stand).
 *
 * Round 32 (rules32): 1Password's `op signin` prints a session token (`--raw`: the token alone;
 * otherwise `export OP_SESSION_<account>=…` for an eval) made from the account's secrets in
 * ~/.config/op (`OP_CONFIG_DIR`), unlocked by the desktop app where it is integrated (op's
 * reference: no password typed then). So does `op account add --signin`. A read of that store.
 */
const unknown = (raw: string): Word => ({ value: `<${raw}>`, raw: `<${raw}>`, isStatic: false, ansi: false });

/** The operands of `args` (words not starting with `-`, and those known only at run time). */
const operandsOf = (args: readonly Word[]): (string | null)[] => args.filter((word) => !word.isStatic || !word.value.startsWith('-')).map((word) => (word.isStatic ? word.value : null));

function store(paths: CommandPath[], files: string[], place: string, access: 'read' | 'write', cwd: string | null): void {
  for (const file of files) pushPath(paths, pathOf(staticWord(file), access, cwd));
  pushPath(paths, pathOf(unknown(place), access, cwd));
}

export const SECRET_STORE_PROGRAMS: ReadonlySet<string> = new Set(['aws', 'gcloud', 'az', 'docker', 'podman', 'pass', 'gopass', 'secret-tool', 'security', 'vault', 'doppler', 'sops', 'op']);

/** aws's commands that print a credential minted with the stored key (R31-4). */
const AWS_MINTS: Readonly<Record<string, readonly string[]>> = {
  sts: ['get-session-token', 'get-federation-token', 'assume-role'],
  ecr: ['get-login-password', 'get-authorization-token'],
  'ecr-public': ['get-login-password', 'get-authorization-token'],
  codeartifact: ['get-authorization-token'],
  eks: ['get-token'],
  rds: ['generate-db-auth-token'],
  sso: ['get-role-credentials'],
};
const AWS_STORE = ['~/.aws/credentials', '~/.aws/config'];
const AWS_PLACE = 'the AWS credentials: AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials';

/** The store a secret-printing (or -saving) command reads (writes), into `paths`. */
export function secretStore(name: string, args: readonly Word[], cwd: string | null, paths: CommandPath[]): void {
  const words = operandsOf(args);
  // A command word known only at run time may be any of the commands below.
  const at = (i: number, ...values: string[]): boolean => words[i] === null || values.includes(words[i]!);
  if (name.startsWith('docker-credential-')) {
    if (words.length === 0 || at(0, 'get', 'store', 'erase')) store(paths, [], `${name}'s store`, words[0] === 'get' ? 'read' : 'write', cwd);
    return;
  }
  switch (name) {
    case 'aws': {
      // Global options (`--profile P`, `--region R`) take a word: the command is `configure` wherever it stands.
      // A minted credential: the service and its verb as consecutive operands (global options' values stand before them).
      if (words.some((word, j) => word !== null && Object.hasOwn(AWS_MINTS, word) && at(j + 1, ...AWS_MINTS[word]!))) return store(paths, [...AWS_STORE, ...(words.includes('sso') ? ['~/.aws/sso/cache'] : [])], AWS_PLACE, 'read', cwd);
      const i = words.indexOf('configure');
      if (i === -1) return;
      const verb = words[i + 1];
      const access = verb === undefined || verb === null || verb === 'get' || verb === 'export-credentials' ? 'read' : verb === 'set' || verb === 'import' ? 'write' : null;
      if (access !== null && verb !== undefined) store(paths, ['~/.aws/credentials', '~/.aws/config'], 'the AWS credentials: AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials', access, cwd);
      return;
    }
    case 'docker':
    case 'podman': {
      // `docker [-H H|--context C|--config D…] login|logout`: the first operand past the global options' values.
      let i = 0;
      while (i < args.length && args[i]!.isStatic && args[i]!.value.startsWith('-')) i += /^(?:-H|--host|-c|--context|--config|-l|--log-level|--tlscacert|--tlscert|--tlskey)$/.test(args[i]!.value) ? 2 : 1;
      const command = args[i];
      if (command !== undefined && (!command.isStatic || command.value === 'login' || command.value === 'logout')) store(paths, name === 'docker' ? ['~/.docker/config.json'] : ['~/.config/containers/auth.json'], `${name}'s credentials: its config directory or credential helper`, 'write', cwd);
      return;
    }
    case 'gcloud': {
      const i = words.findIndex((word) => word === null || word === 'auth' || word === 'config');
      if (i === -1) return;
      const prints = words[i] === null || (words[i] === 'auth' && (at(i + 1, 'print-access-token', 'print-identity-token') || (at(i + 1, 'application-default') && at(i + 2, 'print-access-token')))) || (words[i] === 'config' && at(i + 1, 'config-helper'));
      if (prints) store(paths, ['~/.config/gcloud/credentials.db', '~/.config/gcloud/access_tokens.db', '~/.config/gcloud/application_default_credentials.json'], "gcloud's configuration: CLOUDSDK_CONFIG or ~/.config/gcloud", 'read', cwd);
      return;
    }
    case 'az':
      if (words.some((word, i) => (word === null || word === 'account') && at(i + 1, 'get-access-token'))) store(paths, ['~/.azure/msal_token_cache.json', '~/.azure/msal_token_cache.bin'], "az's configuration: AZURE_CONFIG_DIR or ~/.azure", 'read', cwd);
      return;
    case 'pass':
    case 'gopass': {
      const command = words[0];
      const place = name === 'pass' ? 'the password store: PASSWORD_STORE_DIR or ~/.password-store' : "gopass's stores";
      const storeDir = name === 'pass' ? '~/.password-store' : '~/.local/share/gopass/stores';
      const writes = ['insert', 'add', 'generate', 'edit', 'rm', 'remove', 'delete', 'mv', 'move', 'rename', 'cp', 'copy', 'init', 'setup', 'git', 'sync', 'fsck'];
      const lists = ['ls', 'list', 'find', 'search', 'help', 'version', '--version', '--help'];
      // `pass` alone lists names; `pass NAME` is `pass show NAME`, which decrypts.
      if (command === undefined ? !args.some((word) => !word.isStatic) : command !== null && lists.includes(command)) return;
      const write = command !== undefined && command !== null && writes.includes(command);
      // Reading decrypts with the private key (gpg's store, R29-5); writing encrypts to the public one.
      store(paths, write ? [storeDir] : [storeDir, '~/.gnupg/private-keys-v1.d'], place, write ? 'write' : 'read', cwd);
      return;
    }
    case 'vault': {
      const reads = (at(0, 'print') && at(1, 'token')) || (at(0, 'token') && at(1, 'lookup', 'create'));
      const writes = at(0, 'login') || (at(0, 'token') && at(1, 'revoke'));
      if (reads || writes) store(paths, ['~/.vault-token'], "vault's token helper: VAULT_TOKEN or ~/.vault-token", reads ? 'read' : 'write', cwd);
      return;
    }
    case 'doppler': {
      if (!at(0, 'configure', 'login', 'logout')) return;
      const write = words[0] === 'login' || words[0] === 'logout' || at(1, 'set', 'unset', 'reset');
      store(paths, ['~/.doppler/.doppler.yaml'], "doppler's configuration: DOPPLER_CONFIG_DIR or ~/.doppler", write && words[1] !== null ? 'write' : 'read', cwd);
      return;
    }
    case 'sops': {
      // sops(1): `-d`/`--decrypt`, `decrypt` (3.9), `exec-env`/`exec-file`, and a bare file (the editor
      // gets the plaintext) decrypt; `-e`/`encrypt`, `--version`, `-h` do not (encryption takes public keys).
      const options = args.filter((word) => word.isStatic && word.value.startsWith('-')).map((word) => word.value);
      const encrypts = options.some((option) => /^(-e|--encrypt|-v|--version|-h|--help)$/.test(option)) || at(0, 'encrypt', 'updatekeys', 'keyservice', 'filestatus', 'help', 'publish') && words[0] !== null;
      if (encrypts || words.length === 0) return;
      store(paths, ['~/.config/sops/age/keys.txt', '~/.gnupg/private-keys-v1.d'], "sops's keys: SOPS_AGE_KEY_FILE, SOPS_AGE_KEY or gpg's", 'read', cwd);
      return;
    }
    case 'op': {
      // `op [--account A …] signin`, `op account add … --signin`: the command words past the global options' values.
      const signin = words.some((word, i) => word === 'signin' || (word === 'account' && at(i + 1, 'add') && args.some((w) => w.isStatic && w.value === '--signin')));
      if (signin) store(paths, ['~/.config/op', '~/.op'], "1Password's configuration: OP_CONFIG_DIR or ~/.config/op", 'read', cwd);
      return;
    }
    case 'secret-tool':
      if (words.length === 0 || at(0, 'lookup', 'search')) store(paths, ['~/.local/share/keyrings'], 'the Secret Service keyring', 'read', cwd);
      return;
    case 'security':
      if (words.length === 0 || (words[0] === null || /^(?:find-(?:generic|internet)-password|dump-keychain|export)$/.test(words[0]!))) {
        if (words[0] === null || /^dump-keychain|^export/.test(words[0]!) || args.some((word) => !word.isStatic || /^-[a-zA-Z]*[wg]/.test(word.value))) store(paths, ['~/Library/Keychains'], 'the keychains', 'read', cwd);
      }
      return;
  }
}
