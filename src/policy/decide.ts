import { posix } from 'node:path';
import { otherGhCommand, otherGitCommand, wideCandidates, wideHeads } from './command-match.js';
import { GIT_LATER_COMMANDS } from '../programs.js';
import { MAX_LINKED_NAMES_WALK, MAX_LINKED_WALK, type RuleSet } from './match.js';
import type { Rule } from './rule.js';
import { isSafeCommand } from './safe.js';
import type { Digest } from './digest.js';
import {
  VERDICT_RANK,
  type CommandInfo,
  type CommandSubject,
  type DecidedBy,
  type Decision,
  type DefaultMode,
  type Kind,
  type PathReport,
  type PathSubject,
  type Subject,
  type SubjectDecision,
  type ToolSubject,
  type Verdict,
} from './types.js';

/**
 * The decision function (docs/rules.md): every subject is decided by deny → ask → allow → mode, and the
 * call gets the strictest. Pure: the same facts, rules and grants always give the same decision.
 */

/** What the gateway worked out about one call (subjects/inspect.ts). */
export interface CallFacts {
  server: string;
  /** The server's own tool name (mcp__ rules match it). */
  tool: string;
  kind: Kind;
  /** True when the kind comes from a `tools` override or a built-in profile, not a guess. */
  kindTrusted: boolean;
  subjects: Subject[];
  commandInfo: CommandInfo | null;
  /** Canonical-args digest, for exact-call session grants; computed on first use (a hash per call is not free). */
  digest: () => Digest | '';
}

export interface PolicyState {
  mode: DefaultMode;
  rules: RuleSet;
}

/** "Allow for this session" answers: allow rules, and exact calls for what cannot be a rule. */
export interface Grants {
  rules: RuleSet | null;
  digests: ReadonlySet<string>;
}

/**
 * The `via` of a read of a whole directory tree's content (`grep -r x dir`, `rg x`, `cp -r`): a deny
 * or ask rule matching a file below it makes it ask (subjects/tree.ts walks it).
 */
export const RECURSIVE = 'argument (recursive)';
/**
 * Where a link the call makes, or carries to a new place, leads: a new name for that path and for what
 * is below it (types.ts TreeRead.linked). Its tree's rules count as a move's source's; it removes nothing.
 */
export const LINK_TARGET = 'where a link the call makes leads';

/**
 * The `via` of a word that may name a file a command reads (`paste .env`, `curl -d @~/.ssh/k`):
 * deny rules are tried on it; otherwise it changes nothing (subjects/shell/candidates.ts).
 */
export const DENY_CANDIDATE = 'operand (deny rules only)';

/**
 * The `via` of a directory a program installs into, named by a variable given to it (make's `PREFIX`,
 * `DESTDIR`, `bindir`…: subjects/shell/make.ts installWrites): deny and ask rules on it or on what
 * may be written below it are met; inside the workspace nothing else counts (which target installs
 * is known only from the makefile, as `make install` with no such variable is), outside it is then
 * a write as any other (round 28: allow rules, the mode).
 */
export const INSTALL_PLACE = 'installation directory (deny and ask rules, on it and below it, only)';

/**
 * The `via` of a path-looking string among a prompt's or a completion's arguments
 * (gateway/request-arguments.ts): deny and ask rules are tried on it, and nothing else (a prompt
 * was never decided by mode); otherwise it changes nothing.
 */
export const RULE_CANDIDATE = 'argument (deny and ask rules only)';

/**
 * The `via` of what git rewrites in a working tree (`git checkout main`, `git restore data`, `git
 * reset --hard`): content git puts back from the repository, which the command's own rule allows
 * (`Bash(git checkout:*)`), as before. Deny and ask rules on it and below it count; nothing else does
 * (docs/threat-model.md#git-rewrites-tracked-files). Where it is not known, it asks.
 */
export const GIT_REWRITE = 'working tree git rewrites';

/**
 * The `via` of what a repository's objects may hold, printed by a command that names objects by id
 * or exports them (`git cat-file -p 3f1c…`, `git archive HEAD`, `git bundle create`): any file ever
 * stored from below the working tree, present now or not (`git add -f .env` then `git rm --cached`).
 * Deny and ask rules that could match below the top count; nothing else does
 * (docs/threat-model.md#git-rewrites-tracked-files). Where the top is not known, it asks.
 */
export const GIT_OBJECTS = 'files git stored below the working tree';

/**
 * The `via` of the repository's own configuration file that `git config KEY VALUE` changes (no
 * `--global`, `--system` or `--file`; subjects/inspect.ts finds it on disk: the common directory's
 * `config`, with `--worktree` also the git directory's `config.worktree`), for a setting that runs
 * nothing and names no other host (`user.name`): git's own update of its repository, as `git remote
 * add` and `git branch -u` write the same file. Deny and ask rules on it count (`Edit(.git/**)`),
 * the built-in ask on git's code files does not (the setting plants no code); nothing else does
 * (docs/rules.md "git's configuration"). A setting that runs code or redirects a URL is a plain write
 * of the file (subjects/git-dir.ts GIT_CONFIG_CODE), which that built-in ask meets in every mode.
 */
export const GIT_CONFIG_SETTING = 'repository configuration git config changes';

/**
 * The `via` of the user's or the project's .npmrc that `npm config set|delete` (`npm set`) changes
 * with a setting that runs nothing (those that do are `interpreter`: package-managers.ts): npm's own
 * update of its settings, as GIT_CONFIG_SETTING is git's. Deny and ask rules on it count
 * (`Edit(~/.npmrc)`: round 28 review R28-6), the built-in ask on a package manager's program files does not.
 */
export const MANAGER_CONFIG_SETTING = 'configuration file the package manager changes';

/** The `via` of DEST/NAME written by a copy into a directory: not an operand (subjects/inspect.ts and subjects/links-made.ts look at those). */
export const INTO_DIRECTORY = 'name inside the destination directory';

const NO_GRANTS: Grants = { rules: null, digests: new Set() };

interface Verdictish {
  verdict: Verdict;
  rule: string | null;
  by: DecidedBy;
  reason: string;
}

export function decide(facts: CallFacts, policy: PolicyState, grants: Grants = NO_GRANTS): Decision {
  const { rules, mode } = policy;
  const subjects = facts.subjects.length > 0 ? facts.subjects : [{ type: 'tool', kind: facts.kind } satisfies ToolSubject];
  const toolName = toolNameOf(facts.server, facts.tool);

  const toolDeny = rules.matchTool('deny', facts.server, facts.tool);
  const toolAsk = rules.matchTool('ask', facts.server, facts.tool);
  const toolAllow = rules.matchTool('allow', facts.server, facts.tool);
  // "Allow for this session" on a call with no path or command grants the tool's rule (latch/remember.ts).
  const toolGrant = grants.rules?.matchTool('allow', facts.server, facts.tool) ?? null;
  const exactGrant = grants.digests.size > 0 && grants.digests.has(facts.digest());

  const decisions: SubjectDecision[] = subjects.map((subject) => {
    const outcome =
      subject.type === 'path'
        ? decidePath(subject, rules, mode, toolAllow, grants, exactGrant)
        : subject.type === 'command'
          ? decideCommand(subject, rules, mode, toolAllow, grants, exactGrant)
          : decideTool(subject, facts.kindTrusted, rules, mode, toolAllow, toolGrant !== null, exactGrant, toolName, facts.commandInfo);
    return { subject, verdict: outcome.verdict, rule: outcome.rule, by: outcome.by, reason: outcome.reason };
  });

  // An mcp__ deny or ask decides the call before subject rules can allow it (docs/rules.md).
  if (toolDeny) decisions.unshift({ subject: { type: 'tool', kind: facts.kind }, verdict: 'deny', rule: toolDeny.text, by: 'rule', reason: `deny rule ${toolDeny.text} matches ${toolName}` });
  else if (toolAsk) decisions.unshift({ subject: { type: 'tool', kind: facts.kind }, verdict: 'ask', rule: toolAsk.text, by: 'rule', reason: `ask rule ${toolAsk.text} matches ${toolName}` });

  // The strictest verdict decides. Among its subjects a rule explains more than a path problem,
  // which explains more than a mode; then a command more than a write, more than a read (so
  // `npm run test` names `Bash(npm run test *)`, not the `Read(./**)` that covered its workdir).
  let decisive = decisions[0]!;
  for (const decision of decisions) {
    const stricter = VERDICT_RANK[decision.verdict] > VERDICT_RANK[decisive.verdict];
    if (stricter || (decision.verdict === decisive.verdict && explainsMore(decision, decisive))) decisive = decision;
  }

  return {
    verdict: decisive.verdict,
    kind: facts.kind,
    rule: decisive.rule,
    by: decisive.by,
    reason: decisive.reason,
    subjects: decisions,
    paths: pathReports(subjects),
    commandInfo: facts.commandInfo,
  };
}

/**
 * The last tool's `server__tool`, and the last allow rule's reason for it: a tool's calls come one
 * after another, and the same text objects each time let the audit see a reason unchanged without
 * comparing it character by character (store/audit.ts; docs/performance.md, "Round 25: per-call
 * latency"). Made afresh, the two texts cost a concatenation each and ~3k instructions of string
 * comparison a call.
 */
let lastServer = '';
let lastTool = '';
let lastToolName = '__';
let lastAllowRule: Rule | null = null;
let lastAllowTool = '';
let lastAllowReason = '';

function toolNameOf(server: string, tool: string): string {
  if (server !== lastServer || tool !== lastTool) {
    lastToolName = `${server}__${tool}`;
    lastServer = server;
    lastTool = tool;
  }
  return lastToolName;
}

function allowReason(rule: Rule, toolName: string): string {
  if (rule !== lastAllowRule || toolName !== lastAllowTool) {
    lastAllowReason = `allow rule ${rule.text} matches ${toolName}`;
    lastAllowRule = rule;
    lastAllowTool = toolName;
  }
  return lastAllowReason;
}

const BY_RANK: Partial<Record<DecidedBy, number>> = { rule: 3, error: 2, grant: 1 };

function subjectRank(subject: Subject): number {
  if (subject.type === 'command') return 3;
  if (subject.type === 'tool') return 2;
  return subject.access === 'write' ? 1 : 0;
}

function explainsMore(a: SubjectDecision, b: SubjectDecision): boolean {
  const by = (BY_RANK[a.by] ?? 0) - (BY_RANK[b.by] ?? 0);
  return by !== 0 ? by > 0 : subjectRank(a.subject) > subjectRank(b.subject);
}

function pathReports(subjects: Subject[]): PathReport[] {
  return subjects
    .filter((subject): subject is PathSubject => subject.type === 'path' && subject.via !== DENY_CANDIDATE && subject.via !== RULE_CANDIDATE && (subject.via !== INSTALL_PLACE || !subject.inWorkspace))
    .map((subject) => ({
      path: subject.path ?? subject.input,
      realPath: subject.realPath,
      access: subject.access,
      inWorkspace: subject.inWorkspace,
      input: subject.input,
      via: subject.via,
      ...(subject.problem ? { problem: subject.problem } : {}),
    }));
}

/** The rule text of the built-in ask on writes to a git directory's code files. */
const GIT_DIRECTORY_RULE = 'built-in: git runs code named in a git directory';

function ruled(verdict: Verdict, rule: Rule, reason: string): Verdictish {
  return { verdict, rule: rule.text, by: 'rule', reason };
}

function byMode(verdict: Verdict, mode: DefaultMode, what: string): Verdictish {
  return { verdict, rule: null, by: 'mode', reason: `${what} (mode ${mode})` };
}

// ---------------------------------------------------------------------------------------------

function decidePath(subject: PathSubject, rules: RuleSet, mode: DefaultMode, toolAllow: Rule | null, grants: Grants, exactGrant: boolean): Verdictish {
  const forms = formsOf(subject);
  const shown = subject.path ?? subject.input;
  // An unknown program's operand (a candidate written as well as read) is shown as what it may be.
  const verb = subject.access === 'read' ? 'read' : subject.via === DENY_CANDIDATE || subject.via === RULE_CANDIDATE ? 'possible read or write' : 'write';

  // Security: deny if the lexical OR the real path matches; a symlink cannot dodge a deny rule.
  // A relative path whose directory is unknown (`cd /x; cat .env`: cd may have failed) still meets
  // the rules that match at any depth (`Read(.env)`), tried on a stand-in directory.
  const ruleForms = forms.length > 0 ? forms : unknownBaseForms(subject.input);
  // A removal (`rm -r`, a move's source) takes what is below the path with it: the rules on the
  // directories above a protected file count (policy.ts ancestorRules); a write into it does not.
  const removes = subject.via === RECURSIVE && subject.access === 'write' && subject.tree?.plants !== true;
  for (const form of ruleForms) {
    const rule = rules.matchPath('deny', subject.access, form, true, removes);
    if (rule) return ruled('deny', rule, `deny rule ${rule.text} matches ${verb} of ${forms.length > 0 ? form : subject.input}`);
  }
  // Another name (a hard link another process made) of a file a deny or ask rule covers (F32-5).
  if (subject.inode !== undefined) {
    const linked = rules.linkedFiles(subject.access);
    if (linked === null) return { verdict: 'ask', rule: null, by: 'error', reason: `${shown} has other names (hard links), and the files deny and ask rules cover could not all be looked at (${MAX_LINKED_WALK.toLocaleString('en-US')} entries, ${MAX_LINKED_NAMES_WALK.toLocaleString('en-US')} below node_modules and .git) to tell whether it is one of them` };
    const other = linked.get(subject.inode);
    if (other) return ruled(other.rule.list === 'deny' ? 'deny' : 'ask', other.rule, `${shown} is another name (a hard link) of ${other.path}; ${other.rule.list} rule ${other.rule.text} matches it`);
  }
  if (subject.via === DENY_CANDIDATE) return { verdict: 'allow', rule: null, by: 'mode', reason: `no deny rule matches ${shown}` };
  const setting = subject.via === GIT_CONFIG_SETTING || subject.via === MANAGER_CONFIG_SETTING;
  for (const form of ruleForms) {
    const rule = rules.matchPath('ask', subject.access, form, true, removes, !setting);
    if (rule) return ruled('ask', rule, `ask rule ${rule.text} matches ${verb} of ${forms.length > 0 ? form : subject.input}`);
  }
  if (setting) {
    if (subject.problem || forms.length === 0) return { verdict: 'ask', rule: null, by: 'error', reason: `cannot check write of ${JSON.stringify(subject.input)}: ${subject.problem ?? 'unresolved path'}` };
    return { verdict: 'allow', rule: null, by: 'mode', reason: `no deny or ask rule matches ${shown}, the ${subject.via === GIT_CONFIG_SETTING ? 'repository configuration git config changes' : 'configuration npm config changes'}` };
  }
  if (subject.via === RULE_CANDIDATE) return { verdict: 'allow', rule: null, by: 'mode', reason: `no deny or ask rule matches ${shown}` };
  if (subject.via === INSTALL_PLACE) {
    // Outside the workspace it is also a write there as any other (round 28): an Edit allow rule or the mode's writes outside the workspace.
    const below = installPlace(subject, forms, rules);
    if (below.verdict !== 'allow' || subject.inWorkspace) return below;
  }
  // Like the built-in `**/.git/config` rules, for git directories found on disk (a bare repository, a `--git-dir`).
  if (subject.gitDirectory) return { verdict: 'ask', rule: GIT_DIRECTORY_RULE, by: 'rule', reason: `${verb} of ${shown}: ${gitCodeReason(subject)}` };
  const git = subject.via === GIT_REWRITE || subject.via === GIT_OBJECTS;
  if (subject.via === RECURSIVE || (subject.via === LINK_TARGET && subject.tree) || git) {
    const below = treeRule(subject, forms, rules);
    if (below) return below;
  }
  if (git && !subject.problem && forms.length > 0) return { verdict: 'allow', rule: null, by: 'mode', reason: `no deny or ask rule matches what git ${subject.via === GIT_REWRITE ? 'rewrites' : 'stored'} in ${shown}` };
  if (subject.problem || forms.length === 0) {
    return { verdict: 'ask', rule: null, by: 'error', reason: `cannot check ${verb} of ${JSON.stringify(subject.input)}: ${subject.problem ?? 'unresolved path'}` };
  }
  // Allow only if every form (lexical and real) is allowed.
  const allowRules = forms.map((form) => rules.matchPath('allow', subject.access, form));
  if (allowRules.every((rule) => rule !== null)) return ruled('allow', allowRules[0]!, `allow rule ${allowRules[0]!.text} matches ${verb} of ${shown}`);
  if (grants.rules && forms.every((form) => grants.rules!.matchPath('allow', subject.access, form) !== null)) {
    return { verdict: 'allow', rule: null, by: 'grant', reason: `allowed for this session: ${verb} of ${shown}` };
  }
  if (toolAllow) return ruled('allow', toolAllow, `allow rule ${toolAllow.text} matches the tool`);
  if (exactGrant) return { verdict: 'allow', rule: null, by: 'grant', reason: 'this exact call was allowed for this session' };

  const where = subject.inWorkspace ? 'inside the workspace' : 'outside the workspace';
  if (mode === 'bypassPermissions') return byMode('allow', mode, `no rule matched ${verb} of ${shown}`);
  if (subject.access === 'read') {
    if (subject.inWorkspace) return byMode('allow', mode, `read inside the workspace: ${shown}`);
    return unmatched(mode, `no rule matched ${verb} of ${shown} (${where})`);
  }
  if (mode === 'plan') return byMode('deny', mode, `writes are not allowed in plan mode: ${shown}`);
  if (mode === 'acceptEdits' && subject.inWorkspace) return byMode('allow', mode, `write inside the workspace: ${shown}`);
  return unmatched(mode, `no rule matched ${verb} of ${shown} (${where})`);
}

/** An INSTALL_PLACE the deny and ask rules on it did not meet: those that may match a file below it (Edit rules, as a tree's writes). */
function installPlace(subject: PathSubject, forms: string[], rules: RuleSet): Verdictish {
  const shown = subject.path ?? subject.input;
  if (subject.problem || forms.length === 0) return { verdict: 'ask', rule: null, by: 'error', reason: `cannot check write of ${JSON.stringify(subject.input)}: ${subject.problem ?? 'unresolved path'}` };
  for (const form of forms) {
    const could = rules.matchPathBelow('deny', 'write', form, true) ?? rules.matchPathBelow('ask', 'write', form, true);
    if (could) return ruled('ask', could, `install of files under ${form}; ${could.list} rule ${could.text} covers some of them`);
  }
  return { verdict: 'allow', rule: null, by: 'mode', reason: `no deny or ask rule matches ${shown} or what is installed below it` };
}

/**
 * `grep -r x .` also reads `./.env`: a deny or ask rule matching a file below the directory makes
 * the read ask. When the walk saw the whole tree, only the files really there count (`grep -r TODO
 * src` does not ask under `Read(**\/.env)` when src holds no .env); otherwise any rule that could
 * match below does.
 */
function treeRule(subject: PathSubject, forms: string[], rules: RuleSet): Verdictish | null {
  // A removal (`rm -r`, `find -delete`) meets the rules for what may be changed below it (Edit), not
  // those for what may be read (its operand itself still meets both); what is not a directory, or
  // not there, removes nothing below it.
  const removes = subject.access === 'write';
  const plants = subject.tree?.plants === true;
  // A move takes what is below to a new name, where it is read (docs/threat-model.md#moving-a-directory-moves-what-is-below-it):
  // the rules on reading count, as they do for a write of the path itself.
  const reads = !removes || subject.tree?.moved === true;
  const verb = plants ? 'change' : subject.tree?.linked ? 'new name (a link)' : subject.tree?.moved ? 'move' : removes ? 'removal' : 'read';
  if (subject.tree?.names) return listedRule(subject, forms, rules);
  for (const form of forms) {
    const could = rules.matchPathBelow('deny', subject.access, form, removes, plants, reads) ?? rules.matchPathBelow('ask', subject.access, form, removes, plants, reads);
    if (!could) continue;
    // git creates what the tree it checks out holds, absent now or not (`git checkout HEAD -- data`
    // with data/secret deleted made it again): any rule that could match below asks, git's own code
    // files aside (matchPathBelow leaves them out of a write's rules; docs/threat-model.md#git-rewrites-tracked-files).
    if (subject.via === GIT_REWRITE) return ruled('ask', could, `git rewrite of every file under ${form}, present or not; ${could.list} rule ${could.text} could match one`);
    if (subject.via === GIT_OBJECTS) return ruled('ask', could, `git may print any file it ever stored under ${form}, present or not; ${could.list} rule ${could.text} could match one`);
    if (removes && subject.tree === undefined && subject.path !== null && !subject.problem) return null;
    if (!subject.tree?.complete || subject.path === null) return ruled('ask', could, `${verb} of every file under ${form}; ${could.list} rule ${could.text} covers some of them`);
    const lexical = matchForm(subject.path).replace(/\/$/, '');
    for (const entry of subject.tree.entries) {
      const spelled = `${lexical}/${entry.rel}`;
      const real = matchForm(entry.real);
      // The two forms are one string for most entries (a tracked file below the real top): tried once.
      for (const path of real === spelled ? [spelled] : [spelled, real]) {
        const rule = rules.matchPath('deny', subject.access, path, reads) ?? notPlanting(removes && !plants, rules.matchPath('ask', subject.access, path, reads));
        if (rule) return ruled('ask', rule, `${verb} of every file under ${form}, ${path} among them; ${rule.list} rule ${rule.text} matches it`);
      }
    }
    return null;
  }
  return null;
}

/**
 * A listing of the names below a directory (types.ts TreeWalk.names): each directory below is read
 * as `list_directory` reads it; a deny or ask rule on one asks. A name a rule matches in a
 * directory no rule covers is listed as `ls` lists it (`Read(**\/.env)` protects the content).
 */
function listedRule(subject: PathSubject, forms: string[], rules: RuleSet): Verdictish | null {
  const tree = subject.tree!;
  for (const form of forms) {
    if (!tree.complete) {
      const could = rules.matchPathBelow('deny', 'read', form) ?? rules.matchPathBelow('ask', 'read', form);
      if (could) return ruled('ask', could, `listing of every name under ${form}; ${could.list} rule ${could.text} covers some of them`);
      continue;
    }
    const lexical = matchForm(subject.path ?? form).replace(/\/$/, '');
    for (const entry of tree.entries) {
      for (const path of new Set([`${lexical}/${entry.rel}`, matchForm(entry.real)])) {
        const rule = rules.matchPath('deny', 'read', path) ?? rules.matchPath('ask', 'read', path);
        if (rule) return ruled('ask', rule, `listing of every name under ${form}, the directory ${path} among them; ${rule.list} rule ${rule.text} matches it`);
      }
    }
  }
  return null;
}

/** Removing a file plants no code for git to run: the built-in rules for git's code files do not ask about it. */
function notPlanting(removes: boolean, rule: Rule | null): Rule | null {
  return removes && rule?.type === 'path' && rule.codeFile ? null : rule;
}

/**
 * An allow rule that names the git word itself (`Bash(git lg *)`, not `Bash(git:*)`) and matches the
 * command as written (no assignments, wrappers or `-c`, which could define the word: alias.* is a
 * code key) says what the word is: the user's alias or extension, not a typo git corrects. Without
 * it `git lg` asked for good under `ask: Bash(git push *)`, whatever the user allowed (round 21
 * late review L4, docs/rules.md).
 */
function namedByAllow(segment: CommandSubject['segment'], info: CommandSubject['info'], rules: RuleSet, word: string): boolean {
  if (info.unanalyzable.length > 0 || !info.parseOk) return false;
  return segment.name === 'git' && rules.allowNaming(segment, word) !== null;
}

/**
 * Why a gh command (or one a runner runs) cannot be seen: its words name an alias or extension
 * (command-match.ts otherGhCommand), which an earlier call may have made (`gh alias set co '!…'`, `gh
 * extension install`; docs/rules.md). An allow rule naming those words (`Bash(gh co *)`, not
 * `Bash(gh:*)`) matching the command as written says what it is, as for git's (namedByAllow). Null otherwise.
 */
function ghAlias(segment: CommandSubject['segment'], info: CommandSubject['info'], rules: RuleSet): string | null {
  const why = (ran: CommandSubject['segment'], words: readonly string[]): string =>
    `\`${words.join(' ')}\` in \`${joinWords(ran.words)}\` is not one of gh's commands: gh runs an alias from its config or an extension's program for it, set up outside this call; an allow rule naming it (\`Bash(gh ${words.join(' ')} *)\`) says what it is`;
  if (segment.name === 'gh') {
    const words = otherGhCommand(segment.args);
    if (words !== null && (info.unanalyzable.length > 0 || !info.parseOk || rules.allowNaming(segment, words) === null)) return why(segment, words);
  }
  if (segment.runs) {
    for (const ran of segment.runs) {
      const words = ran.name === 'gh' ? otherGhCommand(ran.args) : null;
      if (words !== null) return why(ran, words);
    }
  }
  return null;
}

/** What would ask: `dontAsk` turns it into a denial. */
function unmatched(mode: DefaultMode, what: string): Verdictish {
  return byMode(mode === 'dontAsk' ? 'deny' : 'ask', mode, what);
}

function decideCommand(subject: CommandSubject, rules: RuleSet, mode: DefaultMode, toolAllow: Rule | null, grants: Grants, exactGrant: boolean): Verdictish {
  const { segment, info } = subject;
  const shown = joinWords(segment.words);
  const candidates = candidatesOf(segment, rules);
  if (candidates !== null) {
    const deny = rules.matchCommandWide('deny', candidates);
    if (deny) return ruled('deny', deny, `deny rule ${deny.text} matches \`${shown}\``);
    const ask = rules.matchCommandWide('ask', candidates);
    if (ask) return ruled('ask', ask, `ask rule ${ask.text} matches \`${shown}\``);
    // git may run another command than the word names: any rule naming git may name it (round 21 review, B1).
    const other = otherGitCommand(candidates);
    const named = other === null || namedByAllow(segment, info, rules, other) ? null : rules.firstCommandRule('git');
    if (named) return ruled('ask', named, `\`${other}\` in \`${shown}\` is ${GIT_LATER_COMMANDS.has(other!) ? 'a git command only in gits newer than 2.39, and an older git' : "not one of git's commands: git"} runs it as an alias from its config, a git-${other} program, or the command help.autocorrect takes it for, which ${named.list} rule ${named.text} may name`);
  }

  // Security: nothing that could not be fully analysed is allowed by a rule or the safe list. In
  // bypassPermissions only deny and ask rules stop a call, and they can only meet what the analyser
  // found: what it could not see (`$x -rf y`, `eval "$c"`) may be just what a rule is there to stop,
  // or a rewrite of the config that holds the rules. So it is allowed only when there is no such rule.
  // gh runs a word that is none of its commands as an alias or extension set up outside this call: as unseen (round 28).
  const alias = ghAlias(segment, info, rules);
  if (info.unanalyzable.length > 0 || !info.parseOk || alias !== null) {
    const why = alias ?? `the command cannot be fully analysed (${info.unanalyzable.join(', ') || 'parse error'})`;
    if (mode === 'bypassPermissions' && !rules.limited) return byMode('allow', mode, why);
    if (mode === 'dontAsk' || mode === 'plan') return byMode('deny', mode, why);
    if (exactGrant) return { verdict: 'allow', rule: null, by: 'grant', reason: 'this exact call was allowed for this session' };
    if (mode === 'bypassPermissions') return byMode('ask', mode, `${why}; deny and ask rules cannot see what it hides`);
    return { verdict: 'ask', rule: null, by: 'mode', reason: why };
  }

  const allow = rules.matchCommandNarrow(segment);
  if (allow) return ruled('allow', allow, `allow rule ${allow.text} matches \`${shown}\``);
  if (grants.rules?.matchCommandNarrow(segment)) return { verdict: 'allow', rule: null, by: 'grant', reason: `allowed for this session: \`${shown}\`` };
  if (toolAllow) return ruled('allow', toolAllow, `allow rule ${toolAllow.text} matches the tool`);
  if (exactGrant) return { verdict: 'allow', rule: null, by: 'grant', reason: 'this exact call was allowed for this session' };

  if (mode === 'bypassPermissions') return byMode('allow', mode, `no rule matched \`${shown}\``);
  if (isSafeCommand(segment)) return byMode('allow', mode, `read-only command \`${shown}\``);
  if (mode === 'plan') return byMode('deny', mode, `commands are not allowed in plan mode: \`${shown}\``);
  return unmatched(mode, `no rule matched \`${shown}\``);
}

function decideTool(subject: ToolSubject, kindTrusted: boolean, rules: RuleSet, mode: DefaultMode, toolAllow: Rule | null, toolGrant: boolean, exactGrant: boolean, toolName: string, info: CommandInfo | null): Verdictish {
  const { refused } = subject;
  if (refused) return { verdict: refused.verdict === 'ask' && mode === 'dontAsk' ? 'deny' : refused.verdict, rule: refused.rule, by: 'rule', reason: refused.reason };
  const bareKind = subject.kind === 'all' ? null : subject.kind;
  if (bareKind) {
    const deny = rules.bareRule('deny', bareKind);
    if (deny) return ruled('deny', deny, `deny rule ${deny.text} matches every ${bareKind}`);
    const ask = rules.bareRule('ask', bareKind);
    if (ask) return ruled('ask', ask, `ask rule ${ask.text} matches every ${bareKind}`);
    const allow = rules.bareRule('allow', bareKind);
    if (allow) return ruled('allow', allow, `allow rule ${allow.text} matches every ${bareKind}`);
  }
  if (toolAllow) return ruled('allow', toolAllow, allowReason(toolAllow, toolName));
  if (toolGrant) return { verdict: 'allow', rule: null, by: 'grant', reason: `allowed for this session: ${toolName}` };
  if (exactGrant) return { verdict: 'allow', rule: null, by: 'grant', reason: 'this exact call was allowed for this session' };
  const what = `${toolName} (kind ${subject.kind}${kindTrusted ? '' : ', guessed'})`;
  // A command with no simple command in it can still run code (`for f in *; do (( f )); done`
  // evaluates file names): the same rule as for a command that cannot be fully analysed.
  if (mode === 'bypassPermissions' && rules.limited && info !== null && (info.unanalyzable.length > 0 || !info.parseOk)) {
    return byMode('ask', mode, `the command cannot be fully analysed (${info.unanalyzable.join(', ') || 'parse error'}); deny and ask rules cannot see what it hides`);
  }
  if (mode === 'bypassPermissions') return byMode('allow', mode, `no rule matched ${what}`);
  // A read that touches no path observes only; trusted only when the kind is not a guess.
  if (subject.kind === 'read' && kindTrusted) return byMode('allow', mode, `read-only tool ${what}`);
  if (mode === 'plan') return byMode('deny', mode, `only reads are allowed in plan mode: ${what}`);
  return unmatched(mode, `no rule matched ${what}`);
}

/** A directory no rule can name: only rules that match at any depth can match below it. */
const UNKNOWN_DIR = '/\u0000unknown';

/** Why a write of a git code file asks: a file the command points git at, a git directory itself, or a file in one. */
function gitCodeReason(subject: PathSubject): string {
  const dir = subject.gitDirectory!;
  if (subject.gitConfigNamed) return 'git runs code named in this configuration file, which the command points git at';
  if (subject.gitInclude) return `the repository's git config includes ${dir}: git runs code its settings name (core.fsmonitor, core.hooksPath, aliases)`;
  if (subject.gitHooks) return `it is in ${dir}, the hooks directory the repository's core.hooksPath names: git runs the hooks there`;
  if (dir === subject.path || dir === subject.realPath) return `it is the git directory ${dir} itself, and git runs code named in its config, hooks/ and info/attributes`;
  return `git runs code named in the config, hooks/ and info/attributes of the git directory ${dir}`;
}

/** `.env`, `sub/.env` with an unknown base → `/<unknown>/.env`; nothing for absolute, `~` or odd input. */
function unknownBaseForms(input: string): string[] {
  if (input === '' || /^([/\\~]|[A-Za-z]:|file:)/i.test(input) || input.includes('\u0000')) return [];
  // `..` above the unknown directory leads to another unknown one.
  const relative = posix.normalize(matchForm(input)).replace(/^(\.\.(\/|$))+/, '');
  return relative === '' || relative === '.' ? [] : [`${UNKNOWN_DIR}/${relative.replace(/\/+$/, '')}`];
}

/** The lexical and the real path in match form, each once (most paths are one string). */
function formsOf(subject: PathSubject): string[] {
  const forms = subject.path === null ? [] : [matchForm(subject.path)];
  const real = subject.realPath === null ? null : matchForm(subject.realPath);
  if (real !== null && real !== forms[0]) forms.push(real);
  return forms;
}

/** Paths are matched in forward-slash form (Windows paths included). */
function matchForm(path: string): string {
  const slashed = path.includes('\\') ? path.replace(/\\/g, '/') : path;
  // ASCII text is its own NFC form; normalize() costs about as much as the rest of a path's lookup.
  return NON_ASCII.test(slashed) ? slashed.normalize('NFC') : slashed;
}

const NON_ASCII = /[^\x00-\x7f]/;

/** `words.join(' ')`, which V8 makes slowly for short arrays (and much more slowly for frozen ones). */
function joinWords(words: readonly string[]): string {
  let out = words[0] ?? '';
  for (let i = 1; i < words.length; i++) out += ' ' + words[i];
  return out;
}

/**
 * The wide candidates of a segment; null when no deny or ask rule is filed under any of their
 * programs (wideHeads), which is most segments: their lists are then not made. A frozen segment
 * belongs to an analysis kept for texts met again (subjects/shell/analysis-cache.ts) and never
 * changes, so its candidates are made once and kept with it; slicing frozen arrays is also several
 * times slower than slicing others.
 */
const keptCandidates = new WeakMap<CommandSubject['segment'], string[][]>();

function candidatesOf(segment: CommandSubject['segment'], rules: RuleSet): string[][] | null {
  if (!Object.isFrozen(segment)) return rules.wideRulesFor(wideHeads(segment)) ? wideCandidates(segment) : null;
  let kept = keptCandidates.get(segment);
  if (kept === undefined) {
    kept = wideCandidates(segment);
    keptCandidates.set(segment, kept);
  }
  return kept;
}
