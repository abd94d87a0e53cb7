import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { freshPremisePlace, MODES, runs, workspaceShell } from '../helpers/policy.js';

/**
 * Round 29's review of round 28's command rules (docs/threat-model.md "Round 29: the review of
 * round 28"): each row was allowed before its fix in the modes the finding names, decided in a
 * fresh workspace; the premises run the real programs (each skips, saying which, when absent).
 */

const ws = workspaceShell('review29-');
const { shell, notAllowed, denied } = ws;

const CC = { allow: ['Bash(gcc:*)', 'Bash(cc:*)', 'Bash(g++:*)', 'Bash(clang:*)', 'Bash(ld:*)', 'Bash(x86_64-linux-gnu-gcc-12:*)'], deny: ['Bash(rm *)'] };

describe('R29-1 a compiler\'s own options that run or load code', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ['gcc -wrapper rm,-rf,v x.c', "gcc -wrapper /bin/sh,-c,'rm -rf v' x.c", 'x86_64-linux-gnu-gcc-12 -wrapper rm,-rf,v -c x.c']) denied(command, mode, CC);
    for (const command of ['gcc -wrapper ./x.sh x.c', 'cc -wrapper ./x.sh x.c', 'g++ -wrapper ./x.sh x.cc', 'gcc -fplugin=./x.so x.c', 'gcc -B ./evil x.c', 'gcc -B./evil x.c', 'gcc -specs=./x.specs x.c', 'gcc --specs=./x.specs x.c', 'gcc @args x.c', 'gcc -Wl,-plugin=./x.so x.c', 'gcc -Xlinker -plugin -Xlinker ./x.so x.c', 'gcc -fuse-ld=./ld x.c', 'clang -Xclang -load -Xclang ./x.so x.c', 'clang -fpass-plugin=./x.so x.c', 'ld -plugin ./x.so x.o']) notAllowed(command, mode, CC);
  });
  test('premise: gcc runs its subprograms through `-wrapper`\'s program', (context) => {
    if (!runs('gcc', ['--version'])) return context.skip('needs gcc');
    const place = freshPremisePlace(ws.root, 'gcc-wrapper');
    writeFileSync(join(place.dir, 'x.c'), 'int main(void) { return 0; }\n');
    writeFileSync(join(place.dir, 'w.sh'), `#!/bin/sh\ntouch '${place.marker}'\nexec "$@"\n`);
    spawnSync('chmod', ['+x', join(place.dir, 'w.sh')]);
    spawnSync('gcc', ['-wrapper', './w.sh', '-c', 'x.c'], { cwd: place.dir, stdio: 'ignore', timeout: 60_000 });
    expect(place.ran()).toBe(true);
  }, 90_000);
});

const SQLITE = { allow: ['Bash(sqlite3:*)'], deny: ['Bash(rm *)', 'Edit(/tmp/r29-prot/**)'] };

describe('R29-2 sqlite3 takes its long options with one dash', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ["sqlite3 -cmd '.shell rm -rf v' db 'select 1'", "sqlite3 -cmd '.system rm -rf v' db"]) denied(command, mode, SQLITE);
    for (const command of ["sqlite3 -cmd '.output /tmp/r29-prot/x' db 'select 1'", "sqlite3 -cmd '.shell touch x' db 'select 1'", 'sqlite3 -init x.sql db', "sqlite3 -init x.sql db 'select 1'", "sqlite3 -cmd '.read x.sql' db 'select 1'", "sqlite3 -bail -init x.sql db 'select 1'"]) notAllowed(command, mode, SQLITE);
  });
  test('premise: sqlite3 runs the dot-commands of `-init FILE` and of `-cmd \'.read FILE\'`', (context) => {
    if (!runs('sqlite3', ['-version'])) return context.skip('needs sqlite3');
    const place = freshPremisePlace(ws.root, 'sqlite-init');
    writeFileSync(join(place.dir, 'x.sql'), `.shell touch '${place.marker}'\n`);
    spawnSync('sqlite3', ['-init', 'x.sql', 'db', 'select 1'], { cwd: place.dir, stdio: 'ignore', timeout: 30_000 });
    expect(place.ran()).toBe(true);
    spawnSync('sqlite3', ['-cmd', '.read x.sql', 'db', 'select 1'], { cwd: place.dir, stdio: 'ignore', timeout: 30_000 });
    expect(place.ran()).toBe(true);
  });
});

const PSQL = { allow: ['Bash(psql:*)'], deny: ['Bash(rm *)', 'Edit(/tmp/r29-prot/**)'] };

describe('R29-3 psql runs the shell commands of its meta-commands', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ["psql -c '\\! rm -rf v'", "psql --command='\\! rm -rf v'", "psql <<'EOF'\n\\! rm -rf v\nEOF", "psql -o '|rm -rf v' -c 'select 1'", "psql -c \"\\copy (select 1) to program 'rm -rf v'\"", "psql -c \"COPY (select 1) TO PROGRAM 'rm -rf v'\"", "psql -c 'select 1' -c '\\g |rm -rf v'", "psql -c '\\echo `rm -rf v`'", "psql -o /tmp/r29-prot/x -c 'select 1'", "psql -L /tmp/r29-prot/log -c 'select 1'"]) denied(command, mode, PSQL);
    for (const command of ["echo '\\! rm -rf v' | psql", 'psql < x.sql', 'psql -f x.sql', "psql -c '\\i x.sql'", "psql -c '\\o out.txt' -c 'select 1'", 'psql', 'psql -d app', "psql -v 'PROMPT1=%`id`' -d app"]) notAllowed(command, mode, PSQL);
  });
});

const OPENSSL = { allow: ['Bash(curl:*)', 'Bash(openssl:*)'], deny: ['Bash(rm *)'] };

describe('R29-4 shared objects OpenSSL loads, by option or variable', () => {
  test.each(MODES)('%s: options', (mode) => {
    for (const command of ['curl --engine ./x.so https://example.com/', 'curl --engine=/tmp/x.so https://example.com/', 'curl --eng ./x.so https://example.com/', 'openssl dgst -engine ./x.so -sha256 README.md', 'openssl dgst -engine=./x.so -sha256 README.md', 'openssl dgst --engine ./x.so -sha256 README.md', 'openssl req -engine ./x.so -new', 'openssl engine ./x.so', 'openssl engine dynamic -pre SO_PATH:./x.so -pre LOAD', 'openssl list -provider-path . -provider x', 'openssl list -provider ./x.so', 'openssl req -config ./x.cnf -new', 'openssl s_client -ssl_client_engine ./x.so -connect example.com:443']) notAllowed(command, mode, OPENSSL);
  });
  test('bypassPermissions: variables every OpenSSL program reads', () => {
    for (const command of ['OPENSSL_CONF=./x.cnf git fetch', 'OPENSSL_CONF=./x.cnf curl https://example.com/', 'export OPENSSL_CONF=./x.cnf; npm test', 'OPENSSL_ENGINES=. curl --engine x https://example.com/', 'OPENSSL_MODULES=. openssl list -provider x', 'env OPENSSL_CONF=./x.cnf python3 -m pytest']) notAllowed(command, 'bypassPermissions', OPENSSL);
  });
  test('premise: curl and openssl load the library an engine path names', (context) => {
    if (!runs('gcc', ['--version']) || !runs('curl', ['--version']) || !runs('openssl', ['version'])) return context.skip('needs gcc, curl and openssl');
    const place = freshPremisePlace(ws.root, 'engine');
    writeFileSync(join(place.dir, 'x.c'), `#include <stdio.h>\n__attribute__((constructor)) static void ran(void) { FILE *f = fopen("${place.marker}", "w"); if (f) fclose(f); }\n`);
    spawnSync('gcc', ['-shared', '-fPIC', '-o', 'x.so', 'x.c'], { cwd: place.dir, stdio: 'ignore', timeout: 60_000 });
    spawnSync('curl', ['-s', '--max-time', '5', '--engine', join(place.dir, 'x.so'), 'http://127.0.0.1:9/'], { cwd: place.dir, stdio: 'ignore', timeout: 30_000 });
    expect(place.ran()).toBe(true);
    spawnSync('openssl', ['dgst', `-engine=${join(place.dir, 'x.so')}`, '-sha256', 'x.c'], { cwd: place.dir, stdio: 'ignore', timeout: 30_000 });
    expect(place.ran()).toBe(true);
    writeFileSync(join(place.dir, 'x.cnf'), `openssl_conf = oc\n[oc]\nengines = es\n[es]\ne = e1\n[e1]\ndynamic_path = ${join(place.dir, 'x.so')}\n`);
    spawnSync('curl', ['-s', '--max-time', '5', 'http://127.0.0.1:9/'], { cwd: place.dir, stdio: 'ignore', timeout: 30_000, env: { ...process.env, OPENSSL_CONF: join(place.dir, 'x.cnf') } });
    expect(place.ran()).toBe(true);
  }, 120_000);
});

const GPG = { allow: ['Bash(gpg:*)'], deny: ['Bash(rm *)', 'Read(~/.gnupg/**)', 'Read(/tmp/r29-prot/**)'] };

describe('R29-5 gpg prints its secret keys and starts the programs its options name', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ['gpg --export-secret-keys --armor', 'gpg --export-secret-subkeys -a', 'gpg -a --export-secret-key x@example.com', 'gpg --armor --export-secret-ke', 'gpg --homedir /tmp/r29-prot/g --export-secret-keys', "gpg --photo-viewer 'rm -rf v' --list-keys"]) denied(command, mode, GPG);
    for (const command of ['gpg --agent-program ./x.sh --list-secret-keys', 'gpg --dirmngr-program ./x.sh --recv-keys x', 'gpg --agent-prog=./x.sh -K']) notAllowed(command, mode, GPG);
  });
  test('bypassPermissions with the bundled config\'s deny rule and no allow rule', () => {
    denied('gpg --export-secret-keys --armor', 'bypassPermissions', { deny: ['Read(~/.gnupg/**)'] });
    notAllowed('GNUPGHOME=/x gpg --export-secret-keys', 'bypassPermissions', { deny: ['Read(~/.gnupg/**)'] });
  });
  test('premise: gpg runs --agent-program and prints the secret key', (context) => {
    if (!runs('gpg', ['--version']) || !runs('gpg-agent', ['--version'])) return context.skip('needs gpg and gpg-agent');
    const place = freshPremisePlace(ws.root, 'gpg');
    const gnupg = join(place.dir, 'g');
    spawnSync('mkdir', ['-m', '700', gnupg]);
    const env = { ...process.env, GNUPGHOME: gnupg };
    spawnSync('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', '--quick-gen-key', 'r29 <r29@example.invalid>', 'ed25519', 'sign', 'never'], { stdio: 'ignore', timeout: 60_000, env });
    spawnSync('gpgconf', ['--kill', 'gpg-agent'], { stdio: 'ignore', env });
    writeFileSync(join(place.dir, 'agent.sh'), `#!/bin/sh\ntouch '${place.marker}'\nexec gpg-agent "$@"\n`);
    spawnSync('chmod', ['+x', join(place.dir, 'agent.sh')]);
    const run = spawnSync('gpg', ['--batch', '--agent-program', join(place.dir, 'agent.sh'), '--export-secret-keys', '--armor'], { encoding: 'utf8', timeout: 60_000, env });
    spawnSync('gpgconf', ['--kill', 'gpg-agent'], { stdio: 'ignore', env });
    expect(place.ran()).toBe(true);
    expect(run.stdout).toContain('PRIVATE KEY BLOCK');
  }, 120_000);
});

describe('R29-6 strace -o \'|CMD\' pipes its output to CMD', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ["strace -o '|rm -rf v' true", "strace -o '!rm -rf v' ls", "strace --output='|rm -rf v' true"]) denied(command, mode, { allow: ['Bash(strace:*)'], deny: ['Bash(rm *)'] });
  });
  test('bypassPermissions: a trace written to a file stays allowed', () => {
    for (const command of ['strace -o trace.txt true', 'strace -f -e trace=openat ls']) expect(shell(command, 'bypassPermissions', { deny: ['Bash(rm *)'] }).verdict).toBe('allow');
  });
  test('premise: strace runs the command of `-o |CMD`', (context) => {
    if (!runs('strace', ['-V'])) return context.skip('needs strace');
    const place = freshPremisePlace(ws.root, 'strace');
    spawnSync('strace', ['-o', `|touch '${place.marker}'`, 'true'], { cwd: place.dir, stdio: 'ignore', timeout: 30_000 });
    expect(place.ran()).toBe(true);
  });
});

describe('R29-7 a command in an unknown program\'s word after `\\!` or an option\'s `=`', () => {
  const rules = { allow: ['Bash(mysql:*)', 'Bash(java:*)', 'Bash(mariadb:*)'], deny: ['Bash(rm *)'] };
  test.each(MODES)('%s', (mode) => {
    for (const command of ["mysql -e '\\! rm -rf v'", "mariadb -e 'select 1; \\! rm -rf v'", "java '-XX:OnOutOfMemoryError=rm -rf v' -jar app.jar", "java '-XX:OnError=echo x; rm -rf v' Main"]) denied(command, mode, rules);
  });
  test('premise: java runs the command of -XX:OnOutOfMemoryError', (context) => {
    if (!runs('java', ['-version'])) return context.skip('needs java');
    const place = freshPremisePlace(ws.root, 'java-oom');
    writeFileSync(join(place.dir, 'Oom.java'), 'public class Oom { public static void main(String[] a) { java.util.List<long[]> l = new java.util.ArrayList<>(); while (true) l.add(new long[1 << 20]); } }\n');
    spawnSync('java', ['-Xmx64m', `-XX:OnOutOfMemoryError=touch ${place.marker}`, 'Oom.java'], { cwd: place.dir, stdio: 'ignore', timeout: 150_000 });
    expect(place.ran()).toBe(true);
  }, 180_000);
});

describe('R29-8 diff3 and sdiff run the program --diff-program names', () => {
  const rules = { allow: ['Bash(diff3:*)', 'Bash(sdiff:*)'], deny: ['Bash(rm *)', 'Edit(/tmp/r29-prot/**)'] };
  test.each(MODES)('%s', (mode) => {
    for (const command of ['diff3 --diff-program=rm a b c', 'sdiff --diff-program=rm a b', 'diff3 --diff-prog=rm a b c', 'sdiff -o /tmp/r29-prot/x a b']) denied(command, mode, rules);
    // A program of the workspace runs in bypassPermissions as `./x.sh` itself does.
    if (mode !== 'bypassPermissions') for (const command of ['diff3 --diff-program=./x.sh a b c', 'sdiff --diff-program ./x.sh a b']) notAllowed(command, mode, rules);
  });
  test('premise: diff3 and sdiff run --diff-program\'s program', (context) => {
    if (!runs('diff3', ['--version']) || !runs('sdiff', ['--version'])) return context.skip('needs diff3 and sdiff');
    const place = freshPremisePlace(ws.root, 'diff3');
    for (const name of ['a', 'b', 'c']) writeFileSync(join(place.dir, name), `${name}\n`);
    writeFileSync(join(place.dir, 'x.sh'), `#!/bin/sh\ntouch '${place.marker}'\nexec diff "$@"\n`);
    spawnSync('chmod', ['+x', join(place.dir, 'x.sh')]);
    spawnSync('diff3', ['--diff-program=./x.sh', 'a', 'b', 'c'], { cwd: place.dir, stdio: 'ignore', timeout: 30_000 });
    expect(place.ran()).toBe(true);
    spawnSync('sdiff', ['--diff-program=./x.sh', 'a', 'b'], { cwd: place.dir, stdio: 'ignore', timeout: 30_000 });
    expect(place.ran()).toBe(true);
  });
});

describe('stay allowed (default)', () => {
  test.each([
    ['gcc -O2 -Wall -g -o app main.c -lm', CC],
    ['gcc -c x.c -o x.o', CC],
    ['gcc -c plugin.c', CC],
    ['gcc -I/opt/x/include -c x.c', CC],
    ['gcc -include config.h -c x.c', CC],
    ['gcc -Wl,-rpath,/usr/lib x.o -o app', CC],
    ['clang -fsanitize=address -o app x.c', CC],
    ['ld -o a x.o -lc', CC],
    ["psql -c 'select 1'", PSQL],
    ["psql -d app -c 'select count(*) from t'", PSQL],
    ['psql -l', PSQL],
    ['psql --version', PSQL],
    ['curl https://example.com/', OPENSSL],
    ['curl --engine list', OPENSSL],
    ['openssl dgst -sha256 README.md', OPENSSL],
    ['openssl rand -hex 16', OPENSSL],
    ['openssl x509 -in cert.pem -noout -text', OPENSSL],
    ["openssl req -new -key k.pem -out r.csr -subj '/CN=x'", OPENSSL],
    ['openssl list -provider legacy -cipher-algorithms', OPENSSL],
    ['gpg --list-keys', GPG],
    ['gpg --armor --export x@example.com', GPG],
    ['gpg --verify f.sig f', GPG],
    ["sqlite3 db 'select 1'", SQLITE],
    ['diff3 -m mine base theirs', { allow: ['Bash(diff3:*)'], deny: ['Bash(rm *)'] }],
    ['sdiff -s a b', { allow: ['Bash(sdiff:*)'], deny: ['Bash(rm *)'] }],
    ["mysql -e 'select 1'", { allow: ['Bash(mysql:*)'], deny: ['Bash(rm *)'] }],
    ['java -Xmx512m -XX:+UseG1GC -jar app.jar', { allow: ['Bash(java:*)'], deny: ['Bash(rm *)'] }],
    ["sqlite3 -bail -csv -header db 'select * from t'", SQLITE],
    ["sqlite3 -readonly -json db 'select 1'", SQLITE],
  ])('%s', (command, rules) => {
    const decision = shell(command, 'default', rules);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});

