import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, expect, test } from 'vitest';
import { COMMANDS_SERVER, EVERYTHING_SERVER, eventually, startGateway, tempDir, textOf, type Harness } from '../helpers/gateway.js';

/**
 * Round 11 review of the surfaces, finding 14: the audit redacted by key name only, so a token in a
 * value (a header line, a URL, an `env` map, a shell command) was written in clear to a file that
 * lives long beside the config. Through the built gateway, real servers, the file on disk; the
 * person's prompt still shows the call as it is (docs/threat-model.md "Secrets in records").
 */
let harness: Harness | null = null;
afterEach(async () => {
  await harness?.close();
  harness = null;
});

const GITHUB = 'ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXYZ012345';
const OPENAI = 'sk-proj-Zq9v8u7t6s5r4q3p2o1nMlKjIhGfEdCb';

/**
 * Each message sent to server-everything's `echo` (allowed) through a fresh gateway: the audit
 * file's text once every call has its record, and the messages the records hold.
 */
async function echoedToAudit(messages: string[]): Promise<{ text: string; logged: string[] }> {
  const dir = tempDir();
  harness = await startGateway(
    { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] } }, workspace: [dir], permissions: { allow: ['mcp__everything__echo'] } },
    { dir },
  );
  for (const message of messages) await harness.client.callTool({ name: 'everything__echo', arguments: { message } });
  const file = join(dir, 'mcp-latch-audit.jsonl');
  const logged = await eventually(() => {
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { args: { message: string } }).args.message);
    expect(lines).toHaveLength(messages.length);
    return lines;
  });
  return { text: readFileSync(file, 'utf8'), logged };
}

test('secrets inside values are not written to the audit file; the prompt shows the command as the model sent it', async () => {
  const dir = tempDir();
  const prompts: ElicitRequest['params'][] = [];
  harness = await startGateway(
    {
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] }, shell: { command: process.execPath, args: [COMMANDS_SERVER] } },
      workspace: [dir],
      permissions: { allow: ['mcp__everything__echo', 'Bash(echo *)'] },
    },
    {
      dir,
      onElicit: (params) => {
        prompts.push(params);
        return { action: 'accept', content: { decision: 'Allow once' } };
      },
    },
  );
  const message = `curl -H 'Authorization: Bearer ${OPENAI}' 'https://app:hunter2@api.example.com/v1?access_token=tok123&q=1'`;
  const echoed = await harness.client.callTool({ name: 'everything__echo', arguments: { message } });
  expect(textOf(echoed)).toContain(OPENAI);
  const command = `export GITHUB_TOKEN=${GITHUB}; echo done`;
  const ran = await harness.client.callTool({ name: 'shell__run_command', arguments: { command, workdir: dir, env: { GITHUB_TOKEN: GITHUB } } });
  expect(textOf(ran)).toContain('done');
  // The person judged the real command.
  expect(prompts).toHaveLength(1);
  expect(prompts[0]!.message).toContain(GITHUB);

  const file = join(dir, 'mcp-latch-audit.jsonl');
  const records = await eventually(() => {
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    return lines;
  });
  const text = readFileSync(file, 'utf8');
  for (const secret of [OPENAI, GITHUB, 'hunter2', 'tok123']) expect(text).not.toContain(secret);
  // What the record keeps: the shape, and every name.
  expect(records[0]).toMatchObject({ tool: 'echo', decision: 'allow', args: { message: "curl -H 'Authorization: Bearer [redacted]' 'https://app:[redacted]@api.example.com/v1?access_token=[redacted]&q=1'" } });
  expect(records[1]).toMatchObject({
    tool: 'run_command',
    decision: 'allow',
    by: 'user',
    command: 'export GITHUB_TOKEN=[redacted]; echo done',
    args: { command: 'export GITHUB_TOKEN=[redacted]; echo done', workdir: dir, env: { GITHUB_TOKEN: '[redacted]' } },
  });
});

test("a path's resolved path and realPath are redacted as its input is: wget saves under a name holding the query (round 18 review, L7)", async () => {
  const dir = tempDir();
  harness = await startGateway(
    { mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } }, workspace: [dir] },
    { dir, onElicit: () => ({ action: 'accept', content: { decision: 'Deny' } }) },
  );
  const secret = 'S3cretV4lue71';
  await harness.client.callTool({ name: 'shell__run_command', arguments: { command: `wget 'https://files.example.com/export.csv?access_token=${secret}'`, workdir: dir } });
  const file = join(dir, 'mcp-latch-audit.jsonl');
  const record = await eventually(() => {
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { paths: Array<{ path: string; realPath?: string; input: string }> });
    expect(lines).toHaveLength(1);
    return lines[0]!;
  });
  expect(readFileSync(file, 'utf8')).not.toContain(secret);
  // The analyser listed the write, and the record keeps its shape.
  expect(record.paths.some((path) => path.path.endsWith('export.csv?access_token=[redacted]'))).toBe(true);
});

test('credential forms the round 18 review found in clear are not written to the audit file (L4)', async () => {
  const dir = tempDir();
  harness = await startGateway(
    { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] }, shell: { command: process.execPath, args: [COMMANDS_SERVER] } }, workspace: [dir] },
    { dir, onElicit: () => ({ action: 'accept', content: { decision: 'Deny' } }) },
  );
  const commands = [
    'printf "SECRET_KEY_BASE=S3cretV4lue01\\nGITHUB_TOKEN_PROD=S3cretV4lue02\\n" > .env',
    "printf '<password>S3cretV4lue11</password>' > settings.xml",
    'aws configure set aws_secret_access_key S3cretV4lue21',
    'redis-cli -h db -a S3cretV4lue22 ping',
    'git config --global user.password S3cretV4lue26',
    'smbclient //srv/share -U admin%S3cretV4lue28',
    'curl -X POST https://hooks.slack.com/services/T000/B000/S3cretV4lue31 -d x',
  ];
  for (const command of commands) await harness.client.callTool({ name: 'shell__run_command', arguments: { command, workdir: dir } });
  await harness.client.callTool({ name: 'everything__echo', arguments: { message: 'hi', extra: { ghp_S3cretV4lue41abcdefghij: true, pin: 'S3cretV4lue42' } } });
  const file = join(dir, 'mcp-latch-audit.jsonl');
  await eventually(() => expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(commands.length + 1));
  expect(readFileSync(file, 'utf8').match(/S3cretV4lue\d+/g)).toBeNull();
});

test("round 19: git config -f FILE NAME VALUE, the gateway's own team token and a one-time link's nonce are not written to the audit", async () => {
  // Shapes of team/identity.ts newToken and approval-page/link.ts pageLink.
  const token = 'mlt_Q2hhbmdlTWVfUTJoaGJtZGxUV1ZmMDEyMzQ1Njc4OWFi-_';
  const nonce = 'mi2k9x0a.Qk1yWk5hS3p0dV9fOVZzYw.c2lnbmF0dXJlLW9mLXRoZS1saW5rLWJ5LXRoZS1wYWdl';
  const { text, logged } = await echoedToAudit([`git config -f ~/.gitconfig.local sendemail.smtpPass S3cretV4lue91`, `echo ${token} > ~/.latch-token`, `open http://127.0.0.1:43117/?nonce=${nonce}`]);
  for (const secret of ['S3cretV4lue91', token.slice(4), nonce]) expect(text).not.toContain(secret);
  expect(logged).toEqual(['git config -f ~/.gitconfig.local sendemail.smtpPass [redacted]', 'echo mlt_[redacted] > ~/.latch-token', 'open http://127.0.0.1:43117/?nonce=[redacted]']);
});

// Round 20: git-config(1)'s subcommands (git 2.46) and the options CONFIG_SET did not list: the
// pattern `--value=` matches the secret, `--default` is one, `-t T` and `--typ T` (a prefix git
// takes) hid the name, a value-pattern operand and a `-`-led value were kept.
test('round 20: git config get --value=, --default, -t, abbreviations and value patterns are not written to the audit', async () => {
  const messages = [
    'git config get --value=S3cretV4lue01 sendemail.smtpPass',
    'git config get --default S3cretV4lue02 user.password',
    'git config set -t string user.password S3cretV4lue03',
    'git config --typ string user.password S3cretV4lue04',
    'git config --replace-all user.password S3cretV4lue05 S3cretV4lue06',
    'git config user.password -S3cretV4lue07',
    'git config get --value=Ada user.name',
  ];
  const { text, logged } = await echoedToAudit(messages);
  expect(text.match(/S3cretV4lue\d+/g)).toBeNull();
  expect(logged).toEqual([
    'git config get --value=[redacted] sendemail.smtpPass',
    'git config get --default [redacted] user.password',
    'git config set -t string user.password [redacted]',
    'git config --typ string user.password [redacted]',
    'git config --replace-all user.password [redacted] [redacted]',
    'git config user.password [redacted]',
    'git config get --value=Ada user.name',
  ]);
});

// Round 21 review, review-diff21 R2: git reads GIT_CONFIG_KEY_<n>/GIT_CONFIG_VALUE_<n> as `-c
// NAME=VALUE`, and sh reads `'config'` and `con\fig` as `config`: each secret went to the audit in clear.
test('round 21: git config values through GIT_CONFIG_VALUE_<n> and a quoted config word are not written to the audit', async () => {
  const messages = [
    'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=sendemail.smtpPass GIT_CONFIG_VALUE_0=S3cretV4lue31 git send-email x.patch',
    "git 'config' sendemail.smtpPass S3cretV4lue32",
    'git con\\fig user.password S3cretV4lue33',
    "git 'config' user.name Ada",
  ];
  const { text, logged } = await echoedToAudit(messages);
  expect(text.match(/S3cretV4lue\d+/g)).toBeNull();
  expect(logged).toEqual([
    'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=[redacted] GIT_CONFIG_VALUE_0=[redacted] git send-email x.patch',
    "git 'config' sendemail.smtpPass [redacted]",
    'git con\\fig user.password [redacted]',
    "git 'config' user.name Ada",
  ]);
});

test("round 29 (review P29-4): programs' own password options and operands (keytool, openssl -k, mosquitto -P, gh secret set -b, HTTPie -a, htpasswd -b, a Vault token) are not written to the audit", async () => {
  const messages = [
    'keytool -list -keystore ks.jks -storepass S3cretV4lue41',
    'openssl enc -aes-256-cbc -k S3cretV4lue42 -in a -out a.enc',
    'mosquitto_pub -h broker -u dev -P S3cretV4lue43 -t t -m hi',
    'gh secret set DB_PASSWORD -b S3cretV4lue44',
    'http -a dev:S3cretV4lue45 GET example.org',
    'htpasswd -b .htpasswd dev S3cretV4lue46',
    'vault login hvs.S3cretV4lue47abcdefghijklmnop',
    'openssl version -a',
  ];
  const { text, logged } = await echoedToAudit(messages);
  expect(text.match(/S3cretV4lue\d+/g)).toBeNull();
  expect(logged.at(-1)).toBe('openssl version -a');
});

test('round 30 (review S30-1..3): a secret with no trigger character, fed on stdin, or a token as a URL user is not written to the audit', async () => {
  const messages = [
    'bw unlock S3cretV4lue51',
    'nmcli dev wifi connect HomeNet password S3cretV4lue52',
    'docker login -u me --password-stdin <<< S3cretV4lue53',
    'echo S3cretV4lue54 | sudo -S systemctl restart nginx',
    'cat <<EOF | chpasswd\nroot:S3cretV4lue55\nEOF',
    'git clone https://S3cretV4lue56a1b2c3d4e5f6@github.com/o/r',
    'echo hello | cat <<< kept',
  ];
  const { text, logged } = await echoedToAudit(messages);
  expect(text.match(/S3cretV4lue\d+/g)).toBeNull();
  expect(logged.at(-1)).toBe('echo hello | cat <<< kept');
});

test("round 30 (review S30-2): a command tool's stdin argument, when its command reads a secret there, is not written to the audit", async () => {
  const dir = tempDir();
  harness = await startGateway(
    { mcpServers: { shell: { command: process.execPath, args: [COMMANDS_SERVER] } }, workspace: [dir], permissions: { deny: ['Bash(docker *)'] } },
    { dir },
  );
  await harness.client.callTool({ name: 'shell__run_command', arguments: { command: 'docker login -u me --password-stdin', workdir: dir, stdin: 'S3cretV4lue57' } });
  const file = join(dir, 'mcp-latch-audit.jsonl');
  const record = await eventually(() => JSON.parse(readFileSync(file, 'utf8').trim()) as { decision: string; args: Record<string, unknown> });
  expect(record).toMatchObject({ decision: 'deny', args: { command: 'docker login -u me --password-stdin', stdin: '[redacted]' } });
  expect(readFileSync(file, 'utf8')).not.toContain('S3cretV4lue57');
});

test('round 31 (review S31-3): a secret named in a sentence, in a header without its colon, or fed to cryptsetup or kinit is not written to the audit', async () => {
  const messages = [
    'my password is S3cretV4lue61 and the API key is: S3cretV4lue62.',
    'use token S3cretV4lue63abcdefgh',
    "curl -H 'X-Api-Key S3cretV4lue64' https://api.example.com",
    'cryptsetup open /dev/sdb1 vault <<< S3cretV4lue65',
    'echo S3cretV4lue66 | kinit alice',
    'the token is expired and the password is not set',
  ];
  const { text, logged } = await echoedToAudit(messages);
  expect(text.match(/S3cretV4lue\d+/g)).toBeNull();
  expect(logged.at(-1)).toBe('the token is expired and the password is not set');
});

test("round 31 (review S31-3): a server's error quoting a secret in a sentence is not written to the log", async () => {
  const line = 'error: authentication failed for token S3cretV4lue67abcdefgh; my password is S3cretV4lue68';
  harness = await startGateway({ mcpServers: { broken: { command: process.execPath, args: ['-e', `console.error(${JSON.stringify(line)}); process.exit(1)`] } } });
  await eventually(() => expect(harness!.stderr()).toContain('authentication failed for token [redacted]'), 20_000);
  const listed = await harness.client.listTools();
  expect(JSON.stringify(listed)).not.toMatch(/S3cretV4lue6[78]/);
  expect(harness.stderr()).not.toMatch(/S3cretV4lue6[78]/);
});
