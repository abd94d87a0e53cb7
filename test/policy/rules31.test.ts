import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { DefaultMode } from '../../src/policy/types.js';
import { freshPremisePlace, MODES, premiseEnv, runs, workspaceShell, type Rules } from '../helpers/policy.js';

/**
 * Round 31 (rules31): round 30's command-rule leftovers (docs/threat-model.md "Round 31: round 30's
 * command-rule leftovers (rules31)"). Each row was allowed under the program's own `Bash(prog:*)`
 * rule in every mode before its fix; premises run the real programs (pandoc 2.17, pdfTeX and
 * latexmk 4.79 of TeX Live 2022, Mercurial 6.3, Subversion 1.14, lldb 14, terraform 1.11, cmake
 * 3.25, vite) and skip, saying which, when one is absent.
 */

const place = workspaceShell('rules31-');
const { shell, notAllowed } = place;

const expectVerdict = (verdict: string, commands: readonly string[], mode: DefaultMode, rules: Rules): void => {
  for (const command of commands) {
    const decision = shell(command, mode, rules);
    expect(decision.verdict, `${mode} ${command}: ${decision.reason}`).toBe(verdict);
  }
};

/** A premise directory holding a script `x.sh` that touches the marker, and the environment to run the program in. */
function premise(name: string): ReturnType<typeof freshPremisePlace> & { script: string; env: NodeJS.ProcessEnv } {
  const at = freshPremisePlace(place.root, name);
  const script = join(at.dir, 'x.sh');
  writeFileSync(script, `#!/bin/sh\ntouch '${at.marker}'\n`);
  chmodSync(script, 0o755);
  return { ...at, script, env: premiseEnv(at.dir, /^(HG|SVN_|TF_|TEXMF|shell_escape|openout_any)/i) };
}

const run = (program: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, timeout = 60_000): void => {
  spawnSync(program, args, { cwd, env, stdio: 'ignore', timeout, input: '' });
};

const DENY = ['Bash(rm *)', 'Edit(/tmp/r31-prot/**)'];

describe('1 pandoc: filters, Lua filters, custom writers, defaults files, the data directory, the PDF engine', () => {
  const RULES: Rules = { allow: ['Bash(pandoc:*)'], deny: DENY };
  test.each(MODES)('%s: not allowed (they were allowed)', (mode) => {
    expectVerdict('deny', ['pandoc --filter rm in.md', "pandoc in.md -o x.pdf --pdf-engine='rm'", 'pandoc in.md -o /tmp/r31-prot/x.html'], mode, RULES);
    for (const command of ['pandoc --filter ./x.sh in.md -o out.html', 'pandoc --filt ./x.sh in.md', 'pandoc -F./x.sh in.md', 'pandoc -sF ./x.sh in.md', 'pandoc --defaults d.yaml in.md', 'pandoc -d d in.md', 'pandoc --data-dir /tmp/d --lua-filter y.lua in.md', 'pandoc in.md -o x.pdf --pdf-engine=./x.sh', 'pandoc in.md -o x.pdf --pdf-engine=xelatex --pdf-engine-opt=-shell-escape']) notAllowed(command, mode, RULES);
    if (mode !== 'bypassPermissions') for (const command of ['pandoc --lua-filter /tmp/x.lua in.md', 'pandoc -L /tmp/x.lua in.md', 'pandoc -t /tmp/w.lua in.md', 'pandoc in.md -o ~/.bashrc']) notAllowed(command, mode, RULES);
  });
  test('ordinary commands stay allowed (a Lua filter of the workspace is its code, as a runtime\'s script)', () => {
    expectVerdict('allow', ['pandoc in.md -o out.html', 'pandoc -s --toc --citeproc -t html5 in.md -o out.html', 'pandoc in.md -o out.pdf --pdf-engine=xelatex', 'pandoc --template=t.html -V title=x in.md', 'pandoc --lua-filter ./filters/x.lua in.md', 'pandoc -f markdown -t docx in.md -o out.docx'], 'default', RULES);
  });
  test('premise: pandoc runs --filter (abbreviated too), --lua-filter, a custom writer and a defaults file\'s filters (pandoc)', (context) => {
    if (!runs('pandoc', ['--version'])) return context.skip('needs pandoc');
    const p = premise('pandoc');
    writeFileSync(join(p.dir, 'in.md'), '# hi\n');
    writeFileSync(join(p.dir, 'x.lua'), `os.execute("touch '${p.marker}'")\n`);
    writeFileSync(join(p.dir, 'w.lua'), `os.execute("touch '${p.marker}'")\nfunction Doc(body) return body end\nfunction Blocksep() return '' end\nfunction Str(s) return s end\nfunction Header(l, s) return s end\nfunction Para(s) return s end\n`);
    writeFileSync(join(p.dir, 'd.yaml'), 'filters:\n- ./x.lua\n');
    for (const args of [['--filter', './x.sh', 'in.md'], ['--filt', './x.sh', 'in.md'], ['--lua-filter', './x.lua', 'in.md'], ['-t', 'w.lua', 'in.md'], ['--defaults', 'd.yaml', 'in.md']]) {
      run('pandoc', args, p.dir, p.env);
      expect(p.ran(), `pandoc ${args.join(' ')}`).toBe(true);
    }
  }, 120_000);
});

describe('2 TeX: -shell-escape and its other spellings, latexmk -e, -r, program setters, -latexoption', () => {
  const RULES: Rules = { allow: ['Bash(pdflatex:*)', 'Bash(xelatex:*)', 'Bash(lualatex:*)', 'Bash(latexmk:*)'], deny: DENY };
  test.each(MODES)('%s: not allowed (they were allowed)', (mode) => {
    expectVerdict('deny', ["latexmk -pdflatex='rm -rf v %O %S' x.tex", 'pdflatex -output-directory=/tmp/r31-prot x.tex'], mode, RULES);
    for (const command of ['pdflatex -shell-escape x.tex', 'pdflatex --shell-escape x.tex', 'pdflatex -shell-e x.tex', 'xelatex -enable-write18 x.tex', 'pdflatex -enable-pipes x.tex', 'pdflatex -cnf-line=shell_escape=t x.tex', 'lualatex --lua=/tmp/x.lua x.tex', 'shell_escape=t pdflatex x.tex', "latexmk -e '$pdflatex=q/x/' x.tex", 'latexmk -r /tmp/rc x.tex', "latexmk -pdflatex='pdflatex -shell-escape %O %S' x.tex", 'latexmk -pdf -latexoption=-shell-escape x.tex', 'latexmk -pdf -shell-escape x.tex']) notAllowed(command, mode, RULES);
    // A setter's program is a command of its own, as make's BUILDER=./x.sh (round 30, M3): bypassPermissions runs it unless a deny or ask rule meets it.
    if (mode !== 'bypassPermissions') for (const command of ['pdflatex -output-directory /tmp/out x.tex', 'latexmk -outdir=/tmp/out x.tex', "latexmk -pdflatex='./x.sh %O %S' x.tex"]) notAllowed(command, mode, RULES);
  });
  test('ordinary commands stay allowed', () => {
    for (const mode of MODES) expectVerdict('allow', ['pdflatex x.tex', 'pdflatex -interaction=nonstopmode -halt-on-error -synctex=1 x.tex', 'pdflatex -output-directory=build x.tex', 'xelatex -no-shell-escape x.tex', 'latexmk -pdf x.tex', 'latexmk -pdf -interaction=nonstopmode -outdir=build x.tex', 'latexmk -C'], mode, RULES);
  });
  test('premise: \\write18 runs with -shell-escape, -shell-e, shell_escape=t, -cnf-line, and latexmk\'s -e, -r, -pdflatex=, -latexoption= (TeX Live)', (context) => {
    if (!runs('pdflatex', ['--version']) || !runs('latexmk', ['-v'])) return context.skip('needs pdflatex and latexmk');
    const p = premise('tex');
    writeFileSync(join(p.dir, 'x.tex'), `\\documentclass{article}\\begin{document}\\immediate\\write18{touch ${p.marker}}x\\end{document}\n`);
    run('pdflatex', ['-interaction=nonstopmode', 'x.tex'], p.dir, p.env);
    expect(p.ran(), 'pdflatex x.tex').toBe(false);
    const tex = (args: string[], extra: NodeJS.ProcessEnv = {}): boolean => {
      run('pdflatex', ['-interaction=nonstopmode', ...args, 'x.tex'], p.dir, { ...p.env, ...extra });
      return p.ran();
    };
    expect(tex(['-shell-escape']), '-shell-escape').toBe(true);
    expect(tex(['-shell-e']), '-shell-e').toBe(true);
    expect(tex(['-cnf-line=shell_escape=t']), '-cnf-line').toBe(true);
    expect(tex([], { shell_escape: 't' }), 'shell_escape=t').toBe(true);
    writeFileSync(join(p.dir, 'rc.pl'), `system("touch '${p.marker}'");\n`);
    for (const args of [['-e', `system("touch '${p.marker}'")`], ['-r', 'rc.pl'], [`-pdflatex=touch '${p.marker}'; true %O %S`], ['-latexoption=-shell-escape']]) {
      run('latexmk', ['-pdf', '-interaction=nonstopmode', ...args, 'x.tex'], p.dir, p.env, 120_000);
      run('latexmk', ['-C', 'x.tex'], p.dir, p.env);
      expect(p.ran(), `latexmk ${args.join(' ')}`).toBe(true);
    }
  }, 300_000);
});

describe('3 hg --config hooks, extensions, aliases, editors; --cwd and -R; svn\'s programs and config options', () => {
  const RULES: Rules = { allow: ['Bash(hg:*)', 'Bash(svn:*)'], deny: DENY };
  test.each(MODES)('%s: not allowed (they were allowed)', (mode) => {
    expectVerdict('deny', ["hg --config hooks.pre-status='rm -rf v' status", "hg --config 'alias.st=!rm -rf v' st", "hg bisect --command 'rm -rf v'", 'svn diff --diff-cmd rm', "svn commit --editor-cmd 'rm -rf v'", "svn --config-option 'config:tunnels:x=rm -rf v' ls svn+x://h/r"], mode, RULES);
    for (const command of ['hg --config extensions.x=/tmp/x.py status', 'hg --config=hooks.pre-status=./x.sh status', 'hg --config ui.editor=./x.sh commit', 'hg --config pager.pager=./x.sh log', 'hg --cwd /tmp/other status', 'hg -R /tmp/other status', 'hg -R/tmp/other status', 'hg merge --tool ./x.sh', 'hg resolve -t ./x.sh -a', 'hg debugshell', 'svn diff --diff-cmd ./x.sh', 'svn merge --diff3-cmd ./x.sh ^/trunk', 'svn --config-option config:helpers:diff-cmd=./x.sh diff', 'svn --config-option=config:helpers:editor-cmd=./x.sh ci', 'svn --config-dir /tmp/c status']) notAllowed(command, mode, RULES);
  });
  test('ordinary commands stay allowed', () => {
    for (const mode of MODES) expectVerdict('allow', ['hg status', 'hg log -l 5 --template "{node}\\n"', 'hg --config ui.username=me commit -m x', 'hg --config extensions.rebase= rebase -d main', 'hg merge --tool :merge3', 'hg -R sub status', 'svn status', 'svn diff', 'svn --config-option config:miscellany:use-commit-times=yes update', 'svn log -l 5'], mode, RULES);
  });
  test('premise: hg runs --config hooks, extensions and aliases, and the hooks of --cwd D and -R D (Mercurial)', (context) => {
    if (!runs('hg', ['--version'])) return context.skip('needs hg');
    const p = premise('hg');
    const repo = join(p.dir, 'repo');
    const other = join(p.dir, 'other');
    run('hg', ['init', repo], p.dir, p.env);
    run('hg', ['init', other], p.dir, p.env);
    writeFileSync(join(other, '.hg', 'hgrc'), `[hooks]\npre-status = touch '${p.marker}'\n`);
    writeFileSync(join(p.dir, 'ext.py'), `import os\nos.system("touch '${p.marker}'")\n`);
    for (const args of [['--config', `hooks.pre-status=touch '${p.marker}'`, 'status'], ['--config', `extensions.x=${join(p.dir, 'ext.py')}`, 'status'], ['--config', `alias.st=!touch '${p.marker}'`, 'st'], ['--cwd', other, 'status'], ['-R', other, 'status']]) {
      run('hg', args, repo, p.env);
      expect(p.ran(), `hg ${args.join(' ')}`).toBe(true);
    }
  }, 120_000);
  test('premise: svn runs --diff-cmd and config:helpers:diff-cmd, and a tunnel config:tunnels names (Subversion)', (context) => {
    if (!runs('svn', ['--version', '--quiet']) || !runs('svnadmin', ['--version', '--quiet'])) return context.skip('needs svn and svnadmin');
    const p = premise('svn');
    run('svnadmin', ['create', 'repo'], p.dir, p.env);
    run('svn', ['checkout', '-q', `file://${join(p.dir, 'repo')}`, 'wc'], p.dir, p.env);
    const wc = join(p.dir, 'wc');
    writeFileSync(join(wc, 'f'), 'a\n');
    run('svn', ['add', '-q', 'f'], wc, p.env);
    run('svn', ['commit', '-q', '-m', 'x'], wc, p.env);
    writeFileSync(join(wc, 'f'), 'b\n');
    for (const args of [['diff', '--diff-cmd', p.script], ['--config-option', `config:helpers:diff-cmd=${p.script}`, 'diff'], ['--config-option', `config:tunnels:x=${p.script}`, 'ls', 'svn+x://h/r']]) {
      run('svn', args, wc, p.env);
      expect(p.ran(), `svn ${args.join(' ')}`).toBe(true);
    }
  }, 120_000);
});

describe('4 lldb runs commands from -o, -s and stdin; gdb\'s pipe', () => {
  const RULES: Rules = { allow: ['Bash(lldb:*)', 'Bash(gdb:*)'], deny: DENY };
  test.each(MODES)('%s: not allowed (they were allowed)', (mode) => {
    expectVerdict('deny', ["lldb -o 'platform shell rm -rf v'", "lldb -b -o 'shell rm -rf v'", "lldb --one-line-before-file 'platform shell -- rm -rf v'", "gdb -batch -ex 'pipe info frame | rm -rf v'", "gdb -batch -ex '| bt | rm -rf v'"], mode, RULES);
    for (const command of ['lldb -s cmds.txt ./a.out', 'lldb -S cmds.txt', 'lldb --source-before-file cmds.txt', 'lldb ./a.out', "lldb -o 'script import os'"]) notAllowed(command, mode, RULES);
  });
  test('--version stays allowed', () => {
    for (const mode of MODES) expectVerdict('allow', ['lldb --version', 'gdb --version'], mode, RULES);
  });
  test('premise: lldb runs `platform shell` from -o, -s FILE and stdin (lldb)', (context) => {
    if (!runs('lldb', ['--version'])) return context.skip('needs lldb');
    const p = premise('lldb');
    writeFileSync(join(p.dir, 'cmds'), `platform shell touch '${p.marker}'\n`);
    for (const args of [['-b', '-o', `platform shell touch '${p.marker}'`], ['-b', '-o', `shell touch '${p.marker}'`], ['-b', '-s', 'cmds']]) {
      run('lldb', args, p.dir, p.env);
      expect(p.ran(), `lldb ${args.join(' ')}`).toBe(true);
    }
    spawnSync('lldb', [], { cwd: p.dir, env: p.env, input: `platform shell touch '${p.marker}'\n`, stdio: ['pipe', 'ignore', 'ignore'], timeout: 60_000 });
    expect(p.ran(), 'lldb reading stdin').toBe(true);
  }, 120_000);
});

describe('5 a bundler\'s config elsewhere, terraform -chdir and its files', () => {
  const RULES: Rules = { allow: ['Bash(vite:*)', 'Bash(webpack:*)', 'Bash(rollup:*)', 'Bash(esbuild:*)', 'Bash(terraform:*)'], deny: [...DENY, 'Read(~/.ssh/**)'] };
  test.each(MODES)('%s: not allowed (they were allowed)', (mode) => {
    expectVerdict('deny', ['terraform plan -var-file=~/.ssh/id_rsa', 'vite build --outDir /tmp/r31-prot', 'esbuild x.ts --bundle --outfile=/tmp/r31-prot/x.js', 'rollup -c -o /tmp/r31-prot/x.js'], mode, RULES);
    for (const command of ['vite build --config /tmp/x.js', 'vite build -c /tmp/x.js', 'vite build /tmp/other', 'webpack --config /tmp/x.js', 'webpack -c ../x.js', 'rollup -c /tmp/x.js', 'rollup --config=/tmp/x.js', 'rollup -p /tmp/x.js src/main.js', 'terraform -chdir=/tmp/elsewhere plan', 'terraform --chdir=../elsewhere apply', 'terraform init -plugin-dir=/tmp/p', 'terraform init -from-module=git::https://example.com/x', 'terraform console', 'TF_CLI_CONFIG_FILE=/tmp/x terraform plan']) notAllowed(command, mode, RULES);
    if (mode !== 'bypassPermissions') for (const command of ['terraform plan -var-file=/tmp/x.tfvars', 'vite build --outDir /tmp/out']) notAllowed(command, mode, RULES);
  });
  test('ordinary commands stay allowed', () => {
    for (const mode of MODES) expectVerdict('allow', ['vite build', 'vite', 'vite build --config vite.prod.config.ts --mode production', 'webpack --config=webpack.prod.js', 'rollup -c', 'rollup -c -w', 'rollup -c rollup.config.mjs -p @rollup/plugin-node-resolve', 'esbuild x.ts --bundle --outfile=dist/out.js', 'terraform plan', 'terraform -chdir=infra plan -var-file=prod.tfvars -out=plan.out', 'terraform init -backend-config=key=x'], mode, RULES);
  });
  test('premise: vite imports the config --config names (vite)', (context) => {
    const vite = join(process.cwd(), 'node_modules', '.bin', 'vite');
    if (!runs(vite, ['--version'])) return context.skip('needs vite (a devDependency of vitest)');
    const p = premise('vite');
    writeFileSync(join(p.dir, 'index.html'), '<html></html>\n');
    writeFileSync(join(p.dir, 'c.mjs'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(p.marker)}, '');\nexport default {};\n`);
    run(vite, ['build', '--config', join(p.dir, 'c.mjs'), '--logLevel', 'silent'], p.dir, p.env);
    expect(p.ran()).toBe(true);
  }, 120_000);
  test('premise: terraform -chdir=D runs the local-exec provisioner of D\'s configuration (terraform)', (context) => {
    if (!runs('terraform', ['version'])) return context.skip('needs terraform');
    const p = premise('terraform');
    const d = join(p.dir, 'd');
    mkdirSync(d);
    writeFileSync(join(d, 'main.tf'), `resource "terraform_data" "x" {\n  provisioner "local-exec" {\n    command = "touch '${p.marker}'"\n  }\n}\n`);
    const env = { ...p.env, TF_IN_AUTOMATION: '1', CHECKPOINT_DISABLE: '1' };
    run('terraform', ['-chdir=d', 'init', '-input=false'], p.dir, env, 120_000);
    run('terraform', ['-chdir=d', 'apply', '-auto-approve', '-input=false'], p.dir, env, 120_000);
    expect(p.ran()).toBe(true);
  }, 300_000);
});

describe('6 cmake -D<Pkg>_EXECUTABLE: the program a find module runs', () => {
  const RULES: Rules = { allow: ['Bash(cmake:*)'], deny: DENY };
  test.each(MODES)('%s: not allowed (they were allowed)', (mode) => {
    expectVerdict('deny', ['cmake -DGIT_EXECUTABLE=rm -S . -B b'], mode, RULES);
    for (const command of ['cmake -DGIT_EXECUTABLE=/tmp/x.sh -S . -B b', 'cmake -DPython_EXECUTABLE=~/x -S . -B b', 'cmake -D Doxygen_EXECUTABLE:FILEPATH=../x.sh -S . -B b', 'cmake -DFOO_PROGRAM=/tmp/x -S . -B b']) notAllowed(command, mode, RULES);
  });
  test('ordinary commands stay allowed', () => {
    for (const mode of MODES) expectVerdict('allow', ['cmake -DPython3_EXECUTABLE=/usr/bin/python3 -S . -B b', 'cmake -DGIT_EXECUTABLE=git -S . -B b', 'cmake -S . -B build -DCMAKE_BUILD_TYPE=Release'], mode, RULES);
  });
  test('premise: find_package(Git) runs -DGIT_EXECUTABLE=F for its version (cmake)', (context) => {
    if (!runs('cmake', ['--version'])) return context.skip('needs cmake');
    const p = premise('cmake-executable');
    mkdirSync(join(p.dir, 'src'));
    writeFileSync(join(p.dir, 'src', 'CMakeLists.txt'), 'cmake_minimum_required(VERSION 3.13)\nproject(x NONE)\nfind_package(Git)\n');
    writeFileSync(p.script, `#!/bin/sh\ntouch '${p.marker}'\necho 'git version 2.0.0'\n`);
    run('cmake', ['-S', 'src', '-B', 'b', `-DGIT_EXECUTABLE=${p.script}`], p.dir, p.env);
    expect(p.ran()).toBe(true);
  }, 120_000);
});

describe('files a program runs code from at its next start: asked as git\'s code files are', () => {
  const RULES: Rules = { allow: ['Edit(**)', 'Edit(~/**)', 'Bash(echo:*)', 'Bash(cp:*)'] };
  const PLANTED = ['.hg/hgrc', 'sub/.hg/hgrc', '~/.hgrc', '~/.subversion/config', 'latexmkrc', '.latexmkrc', '~/.latexmkrc', '.mvn/jvm.config', '.mvn/maven.config', '~/.mavenrc', '~/.lldbinit', '~/.gdbinit', '~/.local/share/pandoc/init.lua', '~/.local/share/pandoc/filters/x.lua', '~/.terraformrc', '.terraform/providers/registry.terraform.io/x/y/1.0.0/linux_amd64/terraform-provider-y'];
  test.each(MODES.filter((mode) => mode !== 'plan' && mode !== 'dontAsk'))('%s: a write asks even under an Edit allow rule (it was allowed)', (mode) => {
    expectVerdict('ask', PLANTED.map((file) => `echo x > ${file}`), mode, RULES);
  });
  test('other files there stay allowed', () => {
    expectVerdict('allow', ['echo x > .hg/notes', 'echo x > main.tex', 'echo x > .mvn/wrapper/maven-wrapper.properties', 'echo x > .terraform.lock.hcl'], 'acceptEdits', RULES);
  });
  test('premise: hg runs the hooks of the repository\'s .hg/hgrc, latexmk reads ./latexmkrc (Mercurial, latexmk)', (context) => {
    if (!runs('hg', ['--version']) || !runs('latexmk', ['-v'])) return context.skip('needs hg and latexmk');
    const p = premise('start-files');
    run('hg', ['init', 'r'], p.dir, p.env);
    writeFileSync(join(p.dir, 'r', '.hg', 'hgrc'), `[hooks]\npre-status = touch '${p.marker}'\n`);
    run('hg', ['status'], join(p.dir, 'r'), p.env);
    expect(p.ran(), 'hg status').toBe(true);
    writeFileSync(join(p.dir, 'latexmkrc'), `system("touch '${p.marker}'");\n`);
    run('latexmk', ['-v'], p.dir, p.env);
    run('latexmk', ['-C', 'none.tex'], p.dir, p.env);
    expect(p.ran(), 'latexmk').toBe(true);
  }, 120_000);
});

describe('cost: git branch NAME writes the config only when branch.autoSetupMerge is set', () => {
  const RULES: Rules = { allow: ['Bash(git:*)'], deny: ['Edit(**/.git/config)'] };
  const repo = (name: string, config = ''): string => {
    const dir = join(place.work, name);
    spawnSync('git', ['init', '-q', dir], { stdio: 'ignore', env: { ...process.env, HOME: place.home } });
    if (config !== '') writeFileSync(join(dir, '.git', 'config'), `[core]\n\trepositoryformatversion = 0\n${config}`);
    return name;
  };
  test.each(MODES)('%s: a new branch from HEAD is no write of the config without the setting (it was denied)', (mode) => {
    const plain = repo('plain-repo');
    expectVerdict('allow', [`cd ${plain} && git branch x`, `cd ${plain} && git checkout -b x`, `cd ${plain} && git switch -c x`, `cd ${plain} && git branch -f x`], mode, RULES);
  });
  test.each(MODES)('%s: still a write where a config sets it or includes another, from a start, or with -c', (mode) => {
    const always = repo('always-repo', '[branch]\n\tautoSetupMerge = always\n');
    const include = repo('include-repo', '[include]\n\tpath = ../x.conf\n');
    const plain = repo('plain-repo');
    expectVerdict('deny', [`cd ${always} && git branch x`, `cd ${always} && git checkout -b x`, `cd ${include} && git branch x`, `cd ${plain} && git branch x origin/main`, `cd ${plain} && git -c branch.autoSetupMerge=always branch x`, `cd ${plain} && git branch --track x`, `cd ${plain} && GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=branch.autoSetupMerge GIT_CONFIG_VALUE_0=always git branch x`, `cd ${plain} && export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=branch.autoSetupMerge GIT_CONFIG_VALUE_0=always && git branch x`], mode, RULES);
  });
  test('premise: git branch x writes branch.x.* only with autoSetupMerge=always (git)', (context) => {
    if (!runs('git', ['--version'])) return context.skip('needs git');
    const p = premise('git-branch');
    const env = { ...p.env, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'x', GIT_AUTHOR_EMAIL: 'x@example.com', GIT_COMMITTER_NAME: 'x', GIT_COMMITTER_EMAIL: 'x@example.com' };
    run('git', ['init', '-q', 'r'], p.dir, env);
    const r = join(p.dir, 'r');
    run('git', ['commit', '-q', '--allow-empty', '-m', 'x'], r, env);
    const config = (): string => spawnSync('git', ['config', '--list', '--local'], { cwd: r, env, encoding: 'utf8' }).stdout;
    run('git', ['branch', 'a'], r, env);
    expect(config()).not.toMatch(/branch\.a\./);
    run('git', ['-c', 'branch.autoSetupMerge=always', 'branch', 'b'], r, env);
    expect(config()).toMatch(/branch\.b\.remote=\./);
  }, 60_000);
});
