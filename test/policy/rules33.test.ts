import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { freshPremisePlace, MODES, premiseEnv, runs, workspaceShell, type Rules } from '../helpers/policy.js';

/**
 * Round 33 (rules33): round 32's command-rule leftovers (docs/threat-model.md "Round 33: round 32's
 * command-rule leftovers (rules33)"). Each refused row was allowed before its fix in the modes it is
 * checked in; premises run the real programs (go 1.19.8, rsync 3.5.0, pandoc 2.17, jq 1.6, curl 7.88, dash and bash) and skip, saying
 * which, when one is absent.
 */

const place = workspaceShell('rules33-');
const { shell, notAllowed } = place;

const EVIL = '/tmp/r33-evil';

const expectVerdict = (verdict: string, commands: readonly string[], mode: DefaultMode, rules: Rules): void => {
  for (const command of commands) {
    const decision = shell(command, mode, rules);
    expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).toBe(verdict);
  }
};

/** A premise directory with the environment to run a program in (HOME an empty directory below it). */
function premise(name: string): ReturnType<typeof freshPremisePlace> & { env: NodeJS.ProcessEnv } {
  const at = freshPremisePlace(place.root, name);
  return { ...at, env: premiseEnv(at.dir, /^(GO|CGO_|CDPATH|RSYNC_)/) };
}

describe('1 the host reached from a container, a listener past loopback, a pod on a node, tool flags, node\'s config file, daemons of directories', () => {
  const HOST: Rules = { allow: ['Bash(docker:*)', 'Bash(podman:*)', 'Bash(kubectl:*)', 'Bash(go:*)', 'Bash(node:*)', 'Bash(serve:*)', 'Bash(http-server:*)', 'Bash(rsync:*)'], deny: ['Bash(rm *)', `Read(${EVIL}/**)`, 'Read(./.env)'] };
  test.each(MODES)('%s: not allowed (they were allowed)', (mode) => {
    writeFileSync(join(place.work, '.env'), 'TOKEN=x\n');
    for (const command of [
      'docker run --network=host alpine wget -qO- http://127.0.0.1:2375/info',
      'docker run --net host alpine true',
      'docker run --rm --network host -v ./src:/src alpine true',
      'docker container create --network=ns:/proc/1/ns/net alpine',
      'docker run --network=container:db alpine true',
      'podman run --network=slirp4netns:allow_host_loopback=true alpine true',
      'podman run --network "$NET" alpine true',
      // A word known only at run time among the run options, or the command or verb itself (they ran in bypassPermissions).
      'docker run $OPT alpine true',
      'docker run --rm "$IMAGE"',
      'docker $CMD alpine',
      'kubectl $X port-forward --address 0.0.0.0 svc/db 5432',
      'kubectl port-forward --address 0.0.0.0 svc/db 5432:5432',
      'kubectl -n x port-forward svc/db 5432 --address=localhost,10.0.0.1',
      'kubectl proxy --address=0.0.0.0 --accept-hosts=.*',
      'kubectl debug node/worker-1 -it --image=busybox',
      'kubectl debug -it mypod --image=busybox --profile=sysadmin',
      'kubectl debug -it mypod --image=busybox --profile sysadmin',
      `go build -asmflags='-I ${EVIL}' ./...`,
      `go build -gcflags='-importcfg ${EVIL}/cfg' .`,
      'go build -gcflags=\'-cpuprofile /tmp/p\' .',
      'go build -ldflags=\'-I /tmp/ld.so\' .',
      'go build -ldflags=\'-r /tmp/lib\' .',
      'go build -gccgoflags=-fplugin=./p.so .',
      'node --experimental-default-config-file x.js',
      'node --experimental-config-file x.js',
      `node --experimental-config-file=${EVIL}/c.json x.js`,
      'serve',
      'serve -s dist',
      `http-server ${EVIL}`,
      'http-server -g public',
      'rsync --daemon',
      'rsync --daemon --config=./rsyncd.conf --port=8730',
    ]) notAllowed(command, mode, HOST);
  });
  test('ordinary commands stay allowed', () => {
    mkdirSync(join(place.work, 'public'), { recursive: true });
    for (const mode of MODES) {
      expectVerdict('allow', [
        'docker run --rm -p 8080:80 nginx',
        'docker run --network=bridge alpine true',
        'docker run --network mynet alpine ping --network=host',
        'kubectl port-forward svc/db 5432:5432',
        'kubectl port-forward svc/db 5432 --address=127.0.0.1',
        'kubectl proxy',
        'kubectl debug -it mypod --image=busybox --target=app',
        'go build -gcflags=\'all=-N -l\' ./...',
        'go build -ldflags=\'-s -w -X main.version=1.2.3\' .',
        'go test -gcflags=all=-d=checkptr ./...',
        'go build -asmflags=\'-I ./inc\' ./...',
        'node x.js',
        'serve public',
        'serve -l 3000 public',
        'http-server -p 8080 public',
      ], mode, HOST);
    }
  });
  test('premise: the assembler reads #include files from -asmflags\' -I directory (go)', (context) => {
    if (!runs('go', ['version'])) return context.skip('needs go');
    const p = premise('go-asm-include');
    const inc = join(p.dir, 'elsewhere');
    mkdirSync(inc);
    writeFileSync(join(inc, 'x.h'), '#define R33VALUE 33\n');
    const mod = join(p.dir, 'm');
    mkdirSync(mod);
    writeFileSync(join(mod, 'go.mod'), 'module m\n\ngo 1.19\n');
    writeFileSync(join(mod, 'main.go'), 'package main\n\nfunc value() int64\n\nfunc main() { println(value()) }\n');
    writeFileSync(join(mod, 'value_amd64.s'), '#include "textflag.h"\n#include "x.h"\n\nTEXT ·value(SB),NOSPLIT,$0-8\n\tMOVQ $R33VALUE, AX\n\tMOVQ AX, ret+0(FP)\n\tRET\n');
    writeFileSync(join(mod, 'value_other.go'), '//go:build !amd64\n\npackage main\n\nfunc value() int64 { return 33 }\n');
    const env = { ...p.env, GOCACHE: join(p.dir, 'cache'), GOPATH: join(p.dir, 'gopath'), GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
    if (process.arch !== 'x64') return context.skip('needs amd64 for the assembly file');
    const without = spawnSync('go', ['build', '-o', 'x', '.'], { cwd: mod, env, encoding: 'utf8', timeout: 120_000 });
    expect(without.status, 'the include is not found without -I').not.toBe(0);
    const withI = spawnSync('go', ['build', `-asmflags=-I ${inc}`, '-o', 'x', '.'], { cwd: mod, env, encoding: 'utf8', timeout: 120_000 });
    expect(withI.status, withI.stderr).toBe(0);
    expect(spawnSync(join(mod, 'x'), [], { encoding: 'utf8' }).stderr.trim()).toBe('33');
  }, 180_000);
  test('premise: rsync --daemon serves the directory its configuration names, outside where it runs (rsync)', async (context) => {
    if (!runs('rsync', ['--version'])) return context.skip('needs rsync');
    const p = premise('rsync-daemon');
    mkdirSync(join(p.dir, 'home', '.ssh'), { recursive: true });
    writeFileSync(join(p.dir, 'home', '.ssh', 'id_rsa'), 'PRIVATE-KEY-TEXT\n');
    const work = join(p.dir, 'work');
    mkdirSync(work);
    const port = 20000 + (process.pid % 20000);
    // As the test's own user (a daemon run as root serves as `nobody` by default).
    writeFileSync(join(work, 'rsyncd.conf'), `pid file = ${join(p.dir, 'rsyncd.pid')}\nuse chroot = false\nuid = ${process.getuid?.() ?? 0}\ngid = ${process.getgid?.() ?? 0}\n[h]\npath = ${join(p.dir, 'home')}\nread only = true\n`);
    const out = join(p.dir, 'out');
    mkdirSync(out);
    const daemon = spawn('rsync', ['--daemon', '--no-detach', `--config=${join(work, 'rsyncd.conf')}`, `--port=${port}`, '--address=127.0.0.1'], { cwd: work, env: p.env, stdio: 'ignore' });
    try {
      let copied = '';
      for (let attempt = 0; attempt < 40 && copied === ''; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        spawnSync('rsync', [`rsync://127.0.0.1:${port}/h/.ssh/id_rsa`, `${out}/`], { env: p.env, stdio: 'ignore', timeout: 30_000 });
        copied = existsSync(join(out, 'id_rsa')) ? readFileSync(join(out, 'id_rsa'), 'utf8') : '';
      }
      expect(copied).toContain('PRIVATE-KEY-TEXT');
    } finally {
      daemon.kill();
    }
  }, 60_000);
});

describe('2 curl\'s and wget\'s configuration files carry options (-o, --proxy, -T): they ask, as round 24 and 32 left them', () => {
  const NET: Rules = { allow: ['Bash(curl:*)', 'Bash(wget:*)'], deny: ['Bash(rm *)', 'Edit(~/.ssh/**)'] };
  test.each(MODES)('%s: not allowed (already refused before this round)', (mode) => {
    for (const command of ['curl -K ./c.txt https://example.com/', 'curl --config ./c.txt https://example.com/', 'curl -K - https://example.com/', 'CURL_HOME=./cfg curl https://example.com/', 'XDG_CONFIG_HOME=. curl https://example.com/', 'HOME=. curl https://example.com/', 'WGETRC=./w wget https://example.com/', 'wget --config=./w https://example.com/']) notAllowed(command, mode, NET);
  });
  test.each(MODES.filter((mode) => mode !== 'plan' && mode !== 'dontAsk'))('%s: writing ~/.curlrc or ~/.wgetrc asks under an Edit allow rule (round 32)', (mode) => {
    expectVerdict('ask', ['echo x > ~/.curlrc', 'echo x > ~/.wgetrc', 'echo x > ~/.config/.curlrc'], mode, { allow: ['Edit(~/**)', 'Bash(echo:*)'] });
  });
  test('premise: a -K file\'s `output` and `upload-file` lines are options (curl)', (context) => {
    if (!runs('curl', ['--version'])) return context.skip('needs curl');
    const p = premise('curl-config');
    writeFileSync(join(p.dir, 'c.txt'), `output = "${join(p.dir, 'RAN')}"\n`);
    spawnSync('curl', ['-s', '-K', join(p.dir, 'c.txt'), `file://${join(p.dir, 'c.txt')}`], { cwd: p.dir, env: p.env, stdio: 'ignore', timeout: 30_000 });
    expect(p.ran()).toBe(true);
  });
});

describe('4 `cd X || exit; cmd`: the rest runs only in X; `|| return`, `cd -`, a function named exit stay unknown', () => {
  const CAT: Rules = { allow: ['Bash(cat:*)', 'Bash(echo:*)', 'Bash(python3:*)'], deny: ['Read(./.env)', 'Read(./secret.txt)'] };
  test.each(MODES)('%s: allowed where cd\'s failure ends the shell (they asked: the directory after `|| exit` was unknown)', (mode) => {
    mkdirSync(join(place.work, 'sub'), { recursive: true });
    mkdirSync(join(place.work, 'public'), { recursive: true });
    writeFileSync(join(place.work, '.env'), 'TOKEN=x\n');
    expectVerdict('allow', [
      'cd sub || exit; cat notes.txt',
      'cd sub || exit 1\ncat notes.txt',
      "cd sub || { echo 'no sub' >&2; exit 1; }; cat notes.txt",
      'if ! cd sub; then exit 1; fi; cat notes.txt',
      'cd sub && exit; cat notes.txt',
      // python3 -m http.server in a folder beside .env (R32-8 asked: cd may fail and serve the workspace).
      'cd public || exit; python3 -m http.server 8000',
    ], mode, CAT);
  });
  test.each(MODES)('%s: where bash goes on, the refusal stays', (mode) => {
    // cd failed: bash reads the workspace's secret.txt (the reading where the shell was).
    expectVerdict('deny', ['cd sub; cat secret.txt', 'cd sub || exit; cat ../secret.txt'], mode, CAT);
    // The directory after them is unknown (a relative path there asks), as before this round.
    for (const command of ['cd sub || return; cat secret.txt', 'cd sub || (exit 1); cat secret.txt', 'cd sub || nohup exit; cat secret.txt', 'cd sub || return; cat notes.txt', 'exit() { :; }; cd sub || exit; cat notes.txt', 'cd sub || { break; exit; }; cat notes.txt', 'cd sub; cd -; cat notes.txt', 'cd public; python3 -m http.server 8000']) notAllowed(command, mode, CAT);
  });
  test('premise: dash and bash end at `|| exit`; bash goes on after a `return` outside a function, and runs a function named exit', () => {
    for (const [shellName, args] of [['dash', []], ['bash', []], ['bash', ['--posix']]] as const) {
      if (!runs(shellName, ['-c', 'true'])) continue;
      const out = spawnSync(shellName, [...args, '-c', 'cd /nonexistent-r33 2>/dev/null || exit; pwd'], { cwd: place.work, encoding: 'utf8' }).stdout.trim();
      expect(out, `${shellName} ${args.join(' ')} || exit`).toBe('');
      const group = spawnSync(shellName, [...args, '-c', 'cd /nonexistent-r33 2>/dev/null || { echo no >&2; exit 1; }; pwd'], { cwd: place.work, encoding: 'utf8' }).stdout.trim();
      expect(group, `${shellName} ${args.join(' ')} || { …; exit 1; }`).toBe('');
    }
    if (!runs('bash', ['--version'])) return;
    expect(spawnSync('bash', ['-c', 'cd /nonexistent-r33 2>/dev/null || return; pwd'], { cwd: place.work, encoding: 'utf8' }).stdout.trim()).toBe(place.work);
    expect(spawnSync('bash', ['-c', 'exit() { :; }; cd /nonexistent-r33 2>/dev/null || exit; pwd'], { cwd: place.work, encoding: 'utf8' }).stdout.trim()).toBe(place.work);
    expect(spawnSync('bash', ['-c', 'cd /usr; pushd /tmp >/dev/null; pwd'], { encoding: 'utf8' }).stdout.trim()).toBe('/tmp');
  });
});

describe('3 pandoc: a relative filter not here is the data directory\'s filters/F', () => {
  const PANDOC: Rules = { allow: ['Bash(pandoc:*)'], deny: ['Read(~/.local/share/pandoc/**)', 'Read(~/.pandoc/**)', `Read(${EVIL}/**)`] };
  test.each(MODES)('%s: denied (they were allowed under Bash(pandoc:*))', (mode) => {
    expectVerdict('deny', ['pandoc -L f.lua in.md -o out.html', 'pandoc --lua-filter=filters/x.lua in.md -o out.html', `pandoc --data-dir=${EVIL} -L f.lua in.md`], mode, PANDOC);
  });
  test('ordinary conversions stay allowed', () => {
    for (const mode of MODES) expectVerdict('allow', ['pandoc in.md -o out.html', 'pandoc -L f.lua in.md -o out.html', 'pandoc --citeproc in.md -o out.pdf'], mode, { allow: ['Bash(pandoc:*)'] });
  });
  test('premise: pandoc runs the data directory\'s filters/F.lua for -L F.lua when there is none here (pandoc)', (context) => {
    if (!runs('pandoc', ['--version'])) return context.skip('needs pandoc');
    const p = premise('pandoc-data-filter');
    mkdirSync(join(p.dir, 'data', 'filters'), { recursive: true });
    writeFileSync(join(p.dir, 'data', 'filters', 'f.lua'), `os.execute("touch '${p.marker}'")\n`);
    writeFileSync(join(p.dir, 'in.md'), '# x\n');
    spawnSync('pandoc', ['--data-dir', join(p.dir, 'data'), '-L', 'f.lua', 'in.md', '-o', 'out.html'], { cwd: p.dir, env: p.env, stdio: 'ignore', timeout: 60_000 });
    expect(p.ran()).toBe(true);
  }, 90_000);
});

describe('5 jq\'s default search path, a word that may be -L, a program file', () => {
  const JQ: Rules = { allow: ['Bash(jq:*)'], deny: ['Read(~/.jq/**)', 'Read(~/.docker/**)'] };
  test.each(MODES)('%s: not allowed (they were allowed)', (mode) => {
    expectVerdict('deny', ['jq -n \'import "config" as $c; $c\'', 'jq -n \'include "m"; f\''], mode, JQ);
    for (const command of ['jq -n \'import "config" as $c; $c\' --args "$X"', 'jq -f prog.jq a.json', 'jq --from-file prog.jq']) notAllowed(command, mode, JQ);
  });
  test('ordinary filters stay allowed', () => {
    for (const mode of MODES) expectVerdict('allow', ['jq -r .name package.json', 'jq -n \'import "lib" as l {search: "./lib"}; l::f\''], mode, { allow: ['Bash(jq:*)'], deny: ['Read(~/.docker/**)'] });
  });
  test('premise: jq 1.6 finds a module in ~/.jq without -L, and reads -L given after the filter and --args (jq)', (context) => {
    if (!runs('jq', ['--version'])) return context.skip('needs jq');
    const p = premise('jq-default');
    mkdirSync(join(p.dir, 'home', '.jq'), { recursive: true });
    writeFileSync(join(p.dir, 'home', '.jq', 'config.json'), '{"token":"r33"}');
    expect(spawnSync('jq', ['-cn', 'import "config" as $c; $c'], { cwd: p.dir, env: p.env, encoding: 'utf8' }).stdout).toContain('r33');
    mkdirSync(join(p.dir, 'lib'));
    writeFileSync(join(p.dir, 'lib', 'd.json'), '{"lib":"r33L"}');
    expect(spawnSync('jq', ['-cn', 'import "d" as $d; $d', '--args', `-L${join(p.dir, 'lib')}`], { cwd: p.dir, env: p.env, encoding: 'utf8' }).stdout).toContain('r33L');
  });
});

describe('costs: a LocalStack endpoint on loopback', () => {
  const AWS: Rules = { allow: ['Bash(aws:*)'], deny: ['Bash(rm *)', 'Read(~/.aws/**)'] };
  test.each(MODES)('%s: allowed (it asked), what must ask still does', (mode) => {
    expectVerdict('allow', ['aws --endpoint-url http://localhost:4566 s3 ls', 'aws --endpoint-url=http://127.0.0.1:4566/ sqs list-queues', "aws s3 ls --endpoint-url 'http://[::1]:4566'"], mode, AWS);
    for (const command of ['aws --endpoint-url http://localhost@evil.example.com:4566 s3 ls', 'aws --endpoint-url http://localhost.evil.example.com s3 ls', "aws --endpoint-url 'http://localhost\\@evil.example.com' s3 ls", 'aws --endpoint-url http://localhost:4566 --no-verify-ssl s3 ls', 'aws --endpoint-url https://evil.example.com s3 ls', 'AWS_ENDPOINT_URL=http://localhost:4566 aws s3 ls']) notAllowed(command, mode, AWS);
  });
});
