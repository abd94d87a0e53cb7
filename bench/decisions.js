// The decision-time workload of `npm run bench` (part 5), for one build: 1,005 rules and the three
// calls it times. Shared by bench/run.js and bench/decisions-ab.js, which loads two builds at once.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The calls decided with 1,005 rules, using the build whose `dist/index.js` and
 * `dist/subjects/paths.js` are given (as imported modules); `work` is a real, existing directory.
 * Returns `command` (a shell command met before), `fresh` (the same with a new word each time, so
 * analysed in full), `path` (a path-only read), `decideOnly` (decide alone, on the facts of one new
 * text inspected once), `text(template)` (another text, new each time) and the rule count.
 */
export async function decisionCalls(api, paths, work) {
  const { decide, inspectCall, initShellParser, RuleSet, parseRule, classifyTool, identifyServer } = api;
  await initShellParser();
  const pathEnv = paths.defaultPathEnv();
  const env = { home: pathEnv.home, roots: [work], platform: pathEnv.platform };
  // 1,000 rules of the kinds users write: commands, paths, tools, spread over allow / ask / deny.
  const texts = [];
  for (let i = 0; i < 1000; i++) {
    const list = i % 10 === 0 ? 'deny' : i % 7 === 0 ? 'ask' : 'allow';
    switch (i % 4) {
      case 0:
        texts.push([`Bash(tool${i} run task${i} *)`, list]);
        break;
      case 1:
        texts.push([`Read(${work}/area${i}/**)`, list]);
        break;
      case 2:
        texts.push([`Edit(src/module${i}/**/*.ts)`, list]);
        break;
      default:
        texts.push([`mcp__server${i}__tool_*`, list]);
    }
  }
  texts.push(['Bash(npm run test *)', 'allow'], ['Bash(git status)', 'allow'], ['Read(**/.env)', 'deny'], ['Bash(rm -rf *)', 'deny'], [`Read(${work}/**)`, 'allow']);
  const rules = new RuleSet(texts.map(([text, list]) => parseRule(text, list)), env);
  const policy = { mode: 'default', rules };
  const context = { workspace: [work], clientRoots: [], pathEnv };

  const shellIdentity = identifyServer({ command: 'npx', args: ['-y', 'mcp-server-commands'] }, work);
  const shellClass = classifyTool({ identity: shellIdentity, tool: { name: 'run_command' } });
  const fsIdentity = identifyServer({ command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', work] }, work);
  const fsClass = classifyTool({ identity: fsIdentity, tool: { name: 'read_text_file' } });
  writeFileSync(join(work, 'notes.md'), 'x');

  const commandArgs = { command: 'git status && npm run test -- --run 2>&1 | tail -n 20', workdir: work };
  const pathArgs = { path: join(work, 'notes.md') };
  let fresh = 0;
  // The new text's facts, inspected once: deciding them again measures decide alone (its analysis is not kept, so not frozen).
  const freshFacts = inspectCall('shell', 'run_command', { command: 'git status && npm run test -- --run once 2>&1 | tail -n 20', workdir: work }, shellClass, context);
  return {
    rules: rules.size,
    command: () => decide(inspectCall('shell', 'run_command', commandArgs, shellClass, context), policy),
    fresh: () => decide(inspectCall('shell', 'run_command', { command: `git status && npm run test -- --run t${fresh++} 2>&1 | tail -n 20`, workdir: work }, shellClass, context), policy),
    path: () => decide(inspectCall('fs', 'read_text_file', pathArgs, fsClass, context), policy),
    decideOnly: () => decide(freshFacts, policy),
    // Another command text, new each time: `{n}` in it is a counter (bench/decisions-ab.js --text).
    text: (template) => {
      let n = 0;
      return () => decide(inspectCall('shell', 'run_command', { command: template.replaceAll('{n}', String(n++)), workdir: work }, shellClass, context), policy);
    },
  };
}
