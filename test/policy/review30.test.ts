import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { freshPremisePlace, MODES, runs, workspaceShell } from '../helpers/policy.js';

/**
 * Round 30's review of round 29's command rules (docs/threat-model.md "Round 30: the review of
 * round 29"): each row was allowed before its fix in the modes the finding names, decided in a
 * fresh workspace; the premises run the real programs (each skips, saying which, when absent).
 */

const ws = workspaceShell('review30-');
const { shell, notAllowed, denied } = ws;

const MVN = { allow: ['Bash(mvn test:*)', 'Bash(mvn:*)', 'Bash(./mvnw:*)'], deny: ['Bash(rm *)', 'Edit(/tmp/r30-prot/**)'] };

describe('R30-1 Maven goals and properties that run a program or load code', () => {
  test.each(MODES)('%s', (mode) => {
    // exec-maven-plugin 3.5.0's descriptor: exec:exec runs ${exec.executable} with ${exec.args}.
    for (const command of ["mvn test exec:exec -Dexec.executable=rm -Dexec.args='-rf v'", "mvn test -D exec.executable=rm -D exec.args='-rf v' exec:exec", 'mvn test org.codehaus.mojo:exec-maven-plugin:3.5.0:exec -Dexec.executable=rm', './mvnw test exec:exec -Dexec.executable=rm', 'mvn -l /tmp/r30-prot/log test']) denied(command, mode, MVN);
    for (const command of ['mvn test -Dexec.executable=./x.sh exec:exec', 'mvn test -Dexec.mainClass=x.Main exec:java', 'mvn test -DargLine=-javaagent:./x.jar', "mvn test '-DargLine=-Xmx1g -javaagent:x.jar'", 'mvn test -DargLine=-Djava.library.path=/tmp/x', 'mvn test -Djvm=./x.sh', 'mvn test -Dmaven.surefire.debug', 'mvn test -Dmaven.test.additionalClasspath=/tmp/x.jar', 'mvn test antrun:run', 'mvn test com.evil:evil-maven-plugin:1.0:run', 'mvn test -f /tmp/other/pom.xml', 'mvn test -s /tmp/settings.xml', 'mvn test -t ~/toolchains.xml', 'mvn test -Dmaven.repo.local=/tmp/repo', 'mvn test -Dmaven.ext.class.path=/tmp/x.jar']) notAllowed(command, mode, MVN);
  });
  test('premise: the plugins read these properties (their descriptors in the local repository)', (context) => {
    const home = process.env.HOME ?? '';
    const exec = join(home, '.m2/repository/org/codehaus/mojo/exec-maven-plugin/3.5.0/exec-maven-plugin-3.5.0.jar');
    const surefire = join(home, '.m2/repository/org/apache/maven/plugins/maven-surefire-plugin/3.5.2/maven-surefire-plugin-3.5.2.jar');
    const read = (jar: string): string => spawnSync('unzip', ['-p', jar, 'META-INF/maven/plugin.xml'], { encoding: 'utf8', timeout: 30_000 }).stdout ?? '';
    const execXml = read(exec);
    const surefireXml = read(surefire);
    if (execXml === '' || surefireXml === '') return context.skip('needs unzip and the two plugins in ~/.m2');
    expect(execXml).toContain('${exec.executable}');
    expect(execXml).toContain('${exec.args}');
    expect(surefireXml).toMatch(/<jvm implementation="java.lang.String">\$\{jvm\}<\/jvm>/);
    expect(surefireXml).toMatch(/<argLine implementation="java.lang.String">\$\{argLine\}<\/argLine>/);
  });
});

const CMAKE = { allow: ['Bash(cmake:*)', 'Bash(ctest:*)'], deny: ['Bash(rm *)'] };

describe('R30-2 cmake scripts, toolchain files and programs; ctest scripts', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ['cmake -DCMAKE_C_COMPILER_LAUNCHER=rm -S . -B b', "cmake '-DCMAKE_CXX_CLANG_TIDY=rm;-rf;v' -S . -B b", 'ctest --build-and-test . b --build-generator Ninja --test-command rm -rf v']) denied(command, mode, CMAKE);
    for (const command of ['cmake -P x.cmake', 'cmake -Dx=1 -P x.cmake', 'cmake -C init.cmake -S . -B b', 'cmake -Cinit.cmake -S . -B b', 'cmake -DCMAKE_TOOLCHAIN_FILE=/tmp/tc.cmake -S . -B b', 'cmake -D CMAKE_TOOLCHAIN_FILE:FILEPATH=/tmp/tc.cmake -S . -B b', 'cmake --toolchain /tmp/tc.cmake -S . -B b', 'cmake -DCMAKE_PROJECT_INCLUDE=/tmp/x.cmake -S . -B b', 'cmake -DCMAKE_PROJECT_TOP_LEVEL_INCLUDES=/tmp/x.cmake -S . -B b', 'cmake -DCMAKE_MODULE_PATH=/tmp/evil -S . -B b', 'cmake -DFoo_DIR=/tmp/evil -S . -B b', 'cmake -DCMAKE_C_COMPILER_LAUNCHER=/tmp/x.sh -S . -B b', "cmake --build b -- 'CC=rm -rf v'", 'ctest -S x.cmake', 'ctest -SP x.cmake', 'ctest --script=x.cmake']) notAllowed(command, mode, CMAKE);
  });
  test('premise: cmake runs the CMake code of -P, -C, the toolchain file and CMAKE_PROJECT_INCLUDE', (context) => {
    if (!runs('cmake', ['--version'])) return context.skip('needs cmake');
    const place = freshPremisePlace(ws.root, 'cmake');
    mkdirSync(join(place.dir, 'src'));
    writeFileSync(join(place.dir, 'src', 'CMakeLists.txt'), 'cmake_minimum_required(VERSION 3.13)\nproject(x NONE)\n');
    writeFileSync(join(place.dir, 'x.cmake'), `execute_process(COMMAND touch "${place.marker}")\n`);
    const x = join(place.dir, 'x.cmake');
    for (const [i, args] of [['-P', x], ['-C', x, '-S', 'src', '-B', 'b1'], [`-DCMAKE_TOOLCHAIN_FILE=${x}`, '-S', 'src', '-B', 'b2'], [`-DCMAKE_PROJECT_INCLUDE=${x}`, '-S', 'src', '-B', 'b3']].entries()) {
      spawnSync('cmake', args, { cwd: place.dir, stdio: 'ignore', timeout: 60_000 });
      expect(place.ran(), `cmake ${args.join(' ')} (${i})`).toBe(true);
    }
  }, 120_000);
});

const EMACS = { allow: ['Bash(emacs:*)', 'Bash(emacsclient:*)'], deny: ['Bash(rm *)'] };

describe('R30-3 emacs evaluates Lisp from its options; emacsclient in the running Emacs', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ["emacs --batch --eval '(shell-command \"rm -rf v\")'", "emacs --eval='(shell-command \"rm -rf v\")'", "emacs -batch -eval '(shell-command-to-string \"rm -rf v\")'", "emacsclient --eval '(shell-command \"rm -rf v\")'", "emacsclient -a 'rm -rf v' x.txt"]) denied(command, mode, EMACS);
    for (const command of ["emacs --batch --eval '(delete-file \"x\")'", "emacs --ev '(delete-file \"x\")'", "emacs -batch -execute '(delete-file \"x\")'", 'emacs -batch -f shell-command', 'emacs --funcall=eshell', 'emacs -u root', 'emacs --init-directory=/tmp/e', 'emacs --daemon', "emacsclient -e '(delete-directory \"v\" t)'", 'emacs -batch x.txt -f save-buffer']) notAllowed(command, mode, EMACS);
  });
  test('default: a file loaded from outside the workspace is a read of that code', () => {
    for (const command of ['emacs --batch -l /tmp/x.el', 'emacs --script /tmp/x.el', 'emacs -L /tmp/lisp -l x']) expect(shell(command, 'default', EMACS).verdict, command).toBe('ask');
  });
  test('premise: emacs evaluates --eval, -eval, an abbreviated --ev, and -l FILE', (context) => {
    if (!runs('emacs', ['--version'])) return context.skip('needs emacs (Debian: emacs-nox)');
    const place = freshPremisePlace(ws.root, 'emacs');
    const lisp = `(shell-command "touch ${place.marker}")`;
    writeFileSync(join(place.dir, 'x.el'), `${lisp}\n`);
    for (const args of [['--batch', '--eval', lisp], ['--batch', '-eval', lisp], ['--batch', '--ev', lisp], ['--batch', '-l', './x.el']]) {
      spawnSync('emacs', args, { cwd: place.dir, stdio: 'ignore', timeout: 60_000 });
      expect(place.ran(), `emacs ${args.join(' ')}`).toBe(true);
    }
  }, 120_000);
});

const STORES = ['Read(~/.aws/**)', 'Read(~/.config/gcloud/**)', 'Read(~/.azure/**)', 'Read(~/.docker/**)', 'Read(~/.password-store/**)', 'Read(~/.local/share/keyrings/**)', 'Read(~/Library/Keychains/**)'];
const CLIS = { allow: ['Bash(aws:*)', 'Bash(gcloud:*)', 'Bash(az:*)', 'Bash(docker:*)', 'Bash(pass:*)', 'Bash(gopass:*)', 'Bash(secret-tool:*)', 'Bash(security:*)', 'Bash(docker-credential-pass:*)'], deny: STORES };

describe('R30-4 CLIs printing the secret they keep, past a Read deny rule on their store', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ['aws configure get aws_secret_access_key', 'aws --profile prod configure get aws_secret_access_key', 'aws configure export-credentials --format env', 'aws configure set aws_secret_access_key x', 'gcloud auth print-access-token', 'gcloud auth print-identity-token', 'gcloud auth application-default print-access-token', 'gcloud config config-helper --format=json', 'az account get-access-token', 'docker login -u x --password-stdin', 'docker -H tcp://h login', 'pass show email/x', 'pass email/x', 'pass -c email/x', 'pass otp email/x', 'pass grep x', 'secret-tool lookup service x', 'security find-generic-password -w -s x', 'security dump-keychain -d']) denied(command, mode, CLIS);
    for (const command of ['docker-credential-pass get', 'echo https://index.docker.io/v1/ | docker-credential-pass get', 'gopass show x']) notAllowed(command, mode, CLIS);
  });
  test('bypassPermissions with no allow rule: the read of the store meets the deny rule', () => {
    for (const command of ['aws configure get aws_secret_access_key', 'gcloud auth print-access-token', 'pass show x']) expect(shell(command, 'bypassPermissions', { deny: STORES }).verdict, command).toBe('deny');
  });
  test('premise: aws configure get prints the secret key of ~/.aws/credentials', (context) => {
    if (!runs('aws', ['--version'])) return context.skip('needs the aws CLI');
    const place = freshPremisePlace(ws.root, 'aws');
    mkdirSync(join(place.dir, '.aws'));
    writeFileSync(join(place.dir, '.aws', 'credentials'), '[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = s3cr3tEXAMPLE\n');
    const out = spawnSync('aws', ['configure', 'get', 'aws_secret_access_key'], { env: { PATH: process.env.PATH, HOME: place.dir }, encoding: 'utf8', timeout: 60_000 });
    expect(out.stdout.trim()).toBe('s3cr3tEXAMPLE');
  }, 90_000);
});

const DOCKER = { allow: ['Bash(docker:*)', 'Bash(podman:*)'], deny: ['Read(~/.ssh/**)'] };

describe('R30-5 a container\'s bind mounts and host options read every file below them', () => {
  test.each(MODES)('%s', (mode) => {
    mkdirSync(join(ws.home, '.ssh'), { recursive: true });
    writeFileSync(join(ws.home, '.ssh', 'id_rsa'), 'KEY\n');
    for (const command of [`docker run --rm -v ${ws.home}:/h alpine cat /h/.ssh/id_rsa`, `docker run --rm --volume=${ws.home}:/h:ro alpine true`, `docker run --mount type=bind,source=${ws.home},target=/h alpine true`, `podman run -v ${ws.home}:/h alpine true`, `docker container create -v ${ws.home}:/h alpine`, 'docker run --rm -v /:/host alpine true', 'docker run --privileged alpine true', 'docker run --pid=host alpine nsenter -t 1 -m cat /etc/shadow', 'docker run --cap-add ALL alpine true', 'docker run --device /dev/sda alpine true']) notAllowed(command, mode, DOCKER);
  });
});

const KUBE = { allow: ['Bash(kubectl:*)', 'Bash(aws:*)'], deny: ['Bash(rm *)'] };

describe('R30-6 a command planted for every later call to fetch a credential', () => {
  test.each(MODES)('%s', (mode) => {
    for (const command of ['kubectl config set-credentials x --exec-command=rm --exec-arg=-rf --exec-arg=v', 'kubectl config set users.x.exec.command rm', "aws configure set credential_process 'rm -rf v'", "aws configure set profile.x.credential_process 'rm -rf v'"]) denied(command, mode, KUBE);
    for (const command of ['kubectl config set-credentials x --exec-command=./x.sh', 'kubectl config set-credentials x --exec-command ./x.sh --exec-api-version=client.authentication.k8s.io/v1beta1', 'kubectl config set users.x.exec.command ./x.sh', 'kubectl config set-credentials x --auth-provider=gcp --auth-provider-arg=cmd-path=./x.sh', 'aws configure set credential_process ./x.sh']) notAllowed(command, mode, KUBE);
  });
  test('premise: kubectl runs the exec credential plugin of its kubeconfig', (context) => {
    if (!runs('kubectl', ['version', '--client'])) return context.skip('needs kubectl');
    const place = freshPremisePlace(ws.root, 'kubectl');
    const plugin = join(place.dir, 'x.sh');
    writeFileSync(plugin, `#!/bin/sh\ntouch '${place.marker}'\necho '{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"x"}}'\n`);
    spawnSync('chmod', ['+x', plugin]);
    const env = { PATH: process.env.PATH, HOME: place.dir, KUBECONFIG: join(place.dir, 'config') };
    writeFileSync(env.KUBECONFIG, ['apiVersion: v1', 'kind: Config', 'current-context: k', 'clusters:', '- name: c', '  cluster: {server: "https://127.0.0.1:9"}', 'contexts:', '- name: k', '  context: {cluster: c, user: u}', 'users:', '- name: u', '  user:', '    exec:', '      apiVersion: client.authentication.k8s.io/v1beta1', `      command: ${plugin}`, '      interactiveMode: Never', ''].join('\n'));
    spawnSync('kubectl', ['get', 'pods', '--request-timeout=3s'], { env, stdio: 'ignore', timeout: 30_000 });
    expect(place.ran()).toBe(true);
  }, 120_000);
});

describe('stay allowed (default)', () => {
  test.each([
    ['mvn test', MVN],
    ['mvn -q -DskipTests package', MVN],
    ['mvn -Dtest=FooTest test', MVN],
    ['mvn dependency:tree', MVN],
    ['mvn -pl app -am verify', MVN],
    ['mvn test -DargLine=-Xmx2g', MVN],
    ["mvn test '-DargLine=-Xmx1g -XX:+UseG1GC --add-opens java.base/java.lang=ALL-UNNAMED'", MVN],
    ['mvn -s .mvn/settings.xml test', MVN],
    ['mvn -B verify', MVN],
    ['cmake -S . -B build', CMAKE],
    ['cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -G Ninja', CMAKE],
    ['cmake -DCMAKE_C_COMPILER=clang -S . -B b', CMAKE],
    ['cmake -DCMAKE_C_COMPILER=/usr/bin/gcc-12 -S . -B b', CMAKE],
    ['cmake -DCMAKE_C_COMPILER_LAUNCHER=ccache -S . -B b', CMAKE],
    ['cmake -DCMAKE_TOOLCHAIN_FILE=cmake/arm.cmake -S . -B b', CMAKE],
    ['cmake --build build -j4', CMAKE],
    ['cmake --build build -- -j4', CMAKE],
    ['cmake --build build --target install', CMAKE],
    ['cmake -E make_directory build', CMAKE],
    ['ctest --test-dir build', CMAKE],
    ['ctest -j4 --output-on-failure', CMAKE],
    ['emacs x.txt', EMACS],
    ['emacs -nw +10 x.txt', EMACS],
    ['emacs -Q --batch -L . -l ert -f ert-run-tests-batch-and-exit', EMACS],
    ['emacs -batch -f batch-byte-compile x.el', EMACS],
    ['emacs --batch -l ./x.el', EMACS],
    ['emacsclient -n x.txt', EMACS],
    ['aws s3 ls', CLIS],
    ['aws configure list', CLIS],
    ['aws sts get-caller-identity', CLIS],
    ['gcloud config list', CLIS],
    ['gcloud compute instances list', CLIS],
    ['az group list', CLIS],
    ['docker ps', CLIS],
    ['docker build -t x app', CLIS],
    ['pass', CLIS],
    ['pass ls', CLIS],
    ['docker run --rm -v ./src:/src alpine ls /src', DOCKER],
    ['docker run --rm -v data:/var/lib/x alpine true', DOCKER],
    ['docker run --rm -it -p 8080:80 -e X=1 nginx', DOCKER],
    ['docker run --rm alpine echo -v /:/x', DOCKER],
    ['kubectl config use-context dev', KUBE],
    ['kubectl get pods', KUBE],
  ])('%s', (command, rules) => {
    const decision = shell(command, 'default', rules);
    expect(decision.verdict, decision.reason).toBe('allow');
  });
});
