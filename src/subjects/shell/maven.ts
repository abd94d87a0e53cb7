import type { CommandPath } from '../../policy/types.js';
import type { Nested } from './files.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * Maven's own command line (round 30 review R30-1; docs/threat-model.md "Round 30: the review of
 * round 29"). Under `Bash(mvn test:*)` any goal and property may follow `test`, and some run what
 * they name. From the plugins' descriptors (META-INF/maven/plugin.xml of exec-maven-plugin 3.5.0 and
 * maven-surefire-plugin 3.5.2): exec's goals run a program (`exec:exec`, `exec.executable`,
 * `exec.args`) or any class's main (`exec:java`, `exec.mainClass`); surefire's `jvm` is the program
 * it starts as the tests' JVM, `argLine` (also failsafe's) and `maven.surefire.debug` that JVM's
 * options (`-javaagent:F` loads F; memory, `-D`, `-XX:±Flag`, `--add-opens` stay plain),
 * `maven.test.additionalClasspath` classes from elsewhere. A goal
 * by coordinates (`g:a:v:goal`) fetches and runs any plugin; antrun, groovy and the scripting
 * plugins run scripts. Settings (`-s`, `-gs`), toolchains (`-t`: the JDK's programs), another pom
 * (`-f`), a local repository (`maven.repo.local`: the plugins' jars) or extension classpath
 * (`maven.ext.class.path`) outside the project pick the code Maven loads. Each is `interpreter`;
 * exec's program and arguments a nested command deny rules meet; `-l F`, `exec.outputFile` writes.
 * `mvn test`, `mvn -q -DskipTests package`, `mvn dependency:tree`, `mvn -pl app -am verify` stay.
 */
/** Options taking the next word (Maven 3's CLIManager, commons-cli: `-Dk=v` glued or `-D k=v`). */
const VALUE_OPTIONS = new Set(['-f', '--file', '-s', '--settings', '-gs', '--global-settings', '-t', '--toolchains', '-gt', '--global-toolchains', '-P', '--activate-profiles', '-pl', '--projects', '-rf', '--resume-from', '-D', '--define', '-l', '--log-file', '-T', '--threads', '-b', '--builder', '-emp', '--encrypt-master-password', '-ep', '--encrypt-password', '--color']);
/** Plugin prefixes whose goals run a program, a class's main or a script. */
const CODE_PLUGINS = /^(?:exec|antrun|groovy|gmavenplus|gplus|scripting|jshell|ant|shell|invoker|jython|beanshell|rhino|nashorn)$/;
/** Properties naming a program, JVM options or classes Maven's plugins run. */
const CODE_PROPERTIES = /^(?:exec\.(?:executable|args|arguments|mainClass|classpathScope|toolchain\w*|includePluginsDependencies)|jvm|maven\.(?:surefire|failsafe)\.debug|maven\.test\.additionalClasspath\w*|maven\.ext\.class\.path|maven\.repo\.local)$/;
/** The forked JVM's options (surefire's and failsafe's `argLine`). */
const JVM_OPTIONS = /^(?:argLine|surefire\.argLine|failsafe\.argLine)$/;
/** JVM options that size memory, set properties, flags and assertions, or open modules: nothing loaded from a file. */
const PLAIN_JVM_OPTION = /^(?:-X(?:mx|ms|ss|mn)\d+[kKmMgG]?|-(?:ea|da|esa|dsa|enableassertions|disableassertions)(?::[\w.$]+)?|-D[\w.-]+(?:=[\w.,:@%+-]*)?|-XX:[+-]\w+|-XX:(?!On|Flags|VMOptionsFile|CompileCommandFile|\w*Path)\w+=[\w.,%-]+|--add-(?:opens|exports|reads|modules)(?:=[\w.,/=-]+)?|[\w.]+\/[\w.]+=[\w.,-]+|--enable-preview|-Xshare:\w+|-server|-client|-Xint|-XX:\+\w+)$/;
/** Settings, toolchains and pom files: project-relative plainly spelled ones are the project's own. */
const FILE_OPTIONS = new Set(['-f', '--file', '-s', '--settings', '-gs', '--global-settings', '-t', '--toolchains', '-gt', '--global-toolchains']);

/** A path spelled plainly below the working directory (no `..`, `~`, `$` or absolute start). */
const plainInside = (word: Word): boolean => word.isStatic && !/^[/~$]|(^|\/)\.\.(\/|$)/.test(word.value) && word.value !== '';

export function maven(args: readonly Word[], cwd: string | null, paths: CommandPath[], nested: Nested[], reasons: string[]): void {
  const properties = new Map<string, Word>();
  let code = false;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      code = true; // a goal, a property or an option known only at run time may be any of them
      continue;
    }
    const value = word.value;
    let name = value;
    let attached: Word | null = null;
    if (value.startsWith('-D') && value.length > 2) {
      name = '-D';
      attached = { ...word, value: value.slice(2), raw: value.slice(2) };
    } else if (value.startsWith('--') && value.includes('=')) {
      name = value.slice(0, value.indexOf('='));
      attached = { ...word, value: value.slice(value.indexOf('=') + 1), raw: value.slice(value.indexOf('=') + 1) };
    }
    if (VALUE_OPTIONS.has(name)) {
      const operand = attached ?? args[++i];
      if (operand === undefined) continue;
      if (!operand.isStatic) {
        code = true;
        continue;
      }
      if (name === '-D' || name === '--define') {
        const eq = operand.value.indexOf('=');
        const key = eq === -1 ? operand.value : operand.value.slice(0, eq);
        const setting = eq === -1 ? staticWord('true') : { ...operand, value: operand.value.slice(eq + 1), raw: operand.value.slice(eq + 1) };
        properties.set(key, setting);
        if (CODE_PROPERTIES.test(key)) code = true;
        if (JVM_OPTIONS.test(key) && !setting.value.split(/\s+/).filter(Boolean).every((option) => PLAIN_JVM_OPTION.test(option))) code = true;
        if (key === 'exec.outputFile') pushPath(paths, pathOf(setting, 'write', cwd));
      } else if (FILE_OPTIONS.has(name)) {
        if (!plainInside(operand)) code = true;
        else pushPath(paths, pathOf(operand, 'read', cwd));
      } else if (name === '-l' || name === '--log-file') pushPath(paths, pathOf(operand, 'write', cwd));
      continue;
    }
    if (value.startsWith('-')) continue;
    // A goal: a phase (`test`), `prefix:goal`, or a plugin by coordinates (`g:a[:v]:goal`).
    const parts = value.split(':');
    if (parts.length >= 3 || (parts.length === 2 && CODE_PLUGINS.test(parts[0]!))) code = true;
  }
  if (code) reasons.push('interpreter');
  // What exec's goals (or an execution of the pom given these properties) run: deny rules meet it.
  const executable = properties.get('exec.executable');
  if (executable?.isStatic) {
    const rest = properties.get('exec.args') ?? properties.get('exec.arguments');
    const words = [executable.value, ...(rest?.isStatic ? rest.value.split(/\s+/).filter(Boolean) : [])];
    nested.push({ kind: 'argv', words: words.map(staticWord), cwd });
  }
  const jvm = properties.get('jvm');
  if (jvm?.isStatic) nested.push({ kind: 'argv', words: [staticWord(jvm.value)], cwd });
}
