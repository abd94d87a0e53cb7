/**
 * The vocabulary of the policy engine (docs/design.md, docs/rules.md). Every other folder imports these
 * types; this file imports nothing.
 */

/** What a call does: observes, changes files or state, runs a process, or anything at all. */
export type Kind = 'read' | 'write' | 'command' | 'all';

/** How a path subject is touched. */
export type Access = 'read' | 'write';

/** The outcome for one subject or a whole call. */
export type Verdict = 'allow' | 'ask' | 'deny';

/** What an unmatched subject gets (docs/rules.md). */
export type DefaultMode = 'default' | 'acceptEdits' | 'plan' | 'dontAsk' | 'bypassPermissions';

export const VERDICT_RANK: Record<Verdict, number> = { allow: 0, ask: 1, deny: 2 };
export const KIND_RANK: Record<Kind, number> = { read: 0, write: 1, command: 2, all: 3 };

// ---------------------------------------------------------------------------------------------
// Shell commands (produced by subjects/shell/command.ts)
// ---------------------------------------------------------------------------------------------

/** Where in the syntax tree a simple command sits; `nested` = payload of sh -c / eval / find -exec / xargs. */
export type SegmentContext =
  | 'top'
  | 'pipeline'
  | 'subshell'
  | 'group'
  | 'substitution'
  | 'condition'
  | 'loop'
  | 'function'
  | 'case'
  | 'nested';

/** A path a command reads or writes, as written; canonicalised later against `base`. */
export interface CommandPath {
  /** The word after unquoting (static), or its raw source text when not static. */
  path: string;
  access: Access;
  /** Directory the shell would resolve a relative `path` against (cwd after `cd` steps); null = unknown. */
  base: string | null;
  /** False when the word contains expansions, globs or substitutions (its value is unknown). */
  isStatic: boolean;
  /** Where it came from, for the prompt: a redirection operator (`>`, `>>`, `<`) or `argument`. */
  via: string;
  /** The command reads the whole tree below this path (`grep -r`, `cp -r`, `tar c`, `find`). */
  tree?: TreeRead;
  /**
   * GIT_OBJECTS only: the operands of `git show`/`git diff` that may name a blob (any file git ever
   * stored); the read is dropped when each names a commit, a tree or a file on disk (subjects/git-objects.ts).
   */
  revisions?: string[];
  /** With `revisions`: the command prints a tree's files (`git diff T1 T2`), so only a commit or a file on disk drops the read. */
  treesPrinted?: true;
  /** With `revisions`: what a ref is set to (`git branch x C`, files.ts git-targets.ts), resolved as the call starts even when it changes refs (refs-changed.ts). */
  refTarget?: true;
  /** The path is a prefix: the command writes names starting with it in its directory (split, csplit), those there now among them (subjects/inspect.ts lists them). */
  prefix?: true;
  /** The path stands for the top of the git working tree it is in, which subjects/inspect.ts finds on disk (`git checkout main`), or for a directory below it (`checkout-index --prefix=x/`: `x`). */
  workTree?: true | string;
  /**
   * GIT_CONFIG_SETTING only: the config is written only when git guesses a branch of this name
   * (`git checkout NAME`, git-config-writes.ts branchGuess): dropped when NAME names a commit or a tag
   * there (or, with `pathsStop`, a file), which subjects/inspect.ts reads on disk.
   */
  branchGuess?: { name: string; pathsStop: boolean };
  /**
   * GIT_CONFIG_SETTING only: the config is written only when `branch.autoSetupMerge` is `always` or
   * `inherit` (a new branch from HEAD, git-config-writes.ts tracksBySettingOnly): dropped when no
   * config file git reads sets it or includes another, which subjects/inspect.ts reads on disk.
   */
  autoSetupMerge?: true;
}

/** How a command walks a directory tree. */
export interface TreeRead {
  /** It reads the files' content (`grep -r`, `cp -r`), not only their names and metadata (`du`, `ls -R`, `find` without `-exec`). */
  content: boolean;
  /** It follows symbolic links met inside the tree (`grep -R`, `find -L`, `cp -L`, `tar -h`, `rsync -L`, `diff -r`). */
  follows: boolean;
  /** grep's `--include`/`--exclude`/`--exclude-dir`, in order: files it does not read (subjects/tree-filter.ts). */
  filters?: TreeFilter[];
  /** A write that changes the files below rather than removing them (`chmod -R`): it can make a planted git hook runnable, so git's code-file rules count. */
  plants?: true;
  /**
   * A move's source (`mv`, a file tool's `move_file`): what is below leaves its place and is read
   * under its new name, so the rules on reading it count too, as for the path itself
   * (docs/threat-model.md#moving-a-directory-moves-what-is-below-it).
   */
  moved?: true;
  /**
   * Where a link the call makes (or carries to a new place) leads: a new name for it and for what is
   * below it, which a call decided before the link is there reaches after (round 30 review). The
   * rules on reading and writing count below, as for a move's source; it removes nothing, so the
   * rules on the directories above the gateway's own files do not (docs/threat-model.md#links-made-by-the-text).
   */
  linked?: true;
  /**
   * What git prints from its working tree, index and history (`git diff`, `git log -p`, `git grep`):
   * the files below are those git tracks (its index, subjects/git-index.ts), present on disk or not.
   */
  tracked?: true;
  /**
   * With `tracked`: what `git worktree add PATH` checks out, the commit HEAD names (or a branch named
   * `branch`, PATH's last name, when there is one): the index lists it only when it matches HEAD
   * (subjects/git-index.ts indexIsHead); otherwise the list is incomplete (round 32 review F32-3).
   */
  head?: { branch: string | null };
  /**
   * `git add` without `-f`, `git stash -u`: only what git does not ignore below (gitignore(5),
   * subjects/git-ignore.ts) is stored. Dropped when the same call may change what git ignores
   * (subjects/shell/ignores-changed.ts).
   */
  unignored?: true;
  /** It reads below an operand only when that is a directory (`diff` without `-r`): a file there now is read as itself. */
  onlyDirectories?: true;
  /**
   * `git diff A B` (round 12 review, S0): git runs it as `--no-index`, comparing A and B on disk,
   * outside a working tree or when A or B is outside the one git finds from `from` (git-diff(1));
   * else it prints tracked files only. `operands`: A and B as written, null when unknown.
   */
  noIndex?: { from: string | null; operands: Array<string | null> };
  /**
   * A recursive copy's destination: what the sources hold is made below it, names it does not hold
   * yet among them (`cp -r evil/. sub` made sub/.env and sub/.git/hooks/pre-commit; round 13,
   * docs/threat-model.md#copies-create-files). `sources`: each as written, resolved against the
   * path's base, null when known only at run time or remote; `follows`: `cp -L`, `rsync -L`;
   * `absentOnly`: they land there only when the destination is not there yet (`cp -r src new`).
   */
  copiedFrom?: { sources: Array<string | null>; follows: boolean; absentOnly?: true };
}

export interface TreeFilter {
  kind: 'include' | 'exclude' | 'exclude-dir';
  glob: string;
}

/**
 * What a bounded walk of a directory found (subjects/tree.ts): every entry below it, by its name
 * relative to the directory and its real path. `complete` is false when the walk stopped at its
 * bound, so the entries are only a part of the tree.
 */
export interface TreeWalk {
  entries: Array<{ rel: string; real: string; directory?: true }>;
  complete: boolean;
  /** Links met and not followed, by their name below the root (subjects/links-made.ts: a copy that keeps links makes them again). */
  links?: string[];
  /** TreeRead.plants: git's code-file rules count below. */
  plants?: true;
  /** TreeRead.moved: the rules on reading count below. */
  moved?: true;
  /** TreeRead.linked: a new name, not a removal. */
  linked?: true;
  /** A listing of names (server-filesystem's directory_tree): what a rule denies is reading a directory below, which lists its names. */
  names?: true;
}

/** One simple command the shell would run. */
export interface Segment {
  /** Every word as written, unquoted when static (raw source text when not), including assignments and wrappers. */
  words: string[];
  /** Leading `NAME=value` assignments (also those given to `env`). */
  assignments: string[];
  /** Wrappers stripped before the program (`sudo`, `timeout 5`, `env`, `nice -n 5`, …), as written. */
  wrappers: string[];
  /** The program word after assignments and wrappers, unquoted (`/bin/rm`); null when dynamic or absent. */
  program: string | null;
  /** Basename of `program` (`rm`); null when dynamic or absent. */
  name: string | null;
  /** Arguments after the program, unquoted when static. */
  args: string[];
  /** True when every word of the command (program and args) is a static literal. */
  isStatic: boolean;
  context: SegmentContext;
  /** Working directory in effect for this command, after `cd` steps; null = unknown. */
  cwd: string | null;
  /** Paths this command reads or writes (redirections and arguments of known file commands). */
  paths: CommandPath[];
  /**
   * Other word lists deny and ask rules are tried on: for a program the analyser does not know,
   * each of its words as the start of a command it may run (`parallel rm ::: x`, `toybox rm x`).
   */
  alternatives?: string[][];
  /**
   * The commands a runner or a package manager's fallback runs (`uv run env rm x`, `bun run npm exe
   * -- rm x`, `pnpm sh -c …`), each read as the same words at top level: deny and ask rules are tried
   * on their word lists too (policy/command-match.ts; subjects/shell/argv.ts describeRun).
   */
  runs?: Segment[];
  /** Why this command itself cannot be fully analysed (a subset of `CommandInfo.unanalyzable`); absent when it gives no reason. */
  unanalyzable?: string[];
}

export type RedirectionKind = 'write' | 'append' | 'read' | 'dup' | 'heredoc' | 'herestring';

export interface Redirection {
  /** Index into `CommandInfo.segments` of the command it applies to, or null for a compound statement. */
  segment: number | null;
  fd: string | null;
  op: string;
  kind: RedirectionKind;
  target: string;
  isStatic: boolean;
}

export type SubstitutionKind = 'command' | 'backtick' | 'process-in' | 'process-out' | 'prompt-expansion' | 'indirection' | 'heredoc';

export interface Substitution {
  kind: SubstitutionKind;
  text: string;
}

/** Everything the gateway worked out about one shell command string (docs/design.md). */
export interface CommandInfo {
  raw: string;
  /** False when the grammar reported an error, the input is incomplete, or the parser is unavailable. */
  parseOk: boolean;
  /** Reasons the command cannot be fully analysed; non-empty ⇒ never auto-allowed. */
  unanalyzable: string[];
  /** Every simple command at any depth, in source order (nested payloads included, context `nested`). */
  segments: Segment[];
  redirections: Redirection[];
  substitutions: Substitution[];
  /** Program plus subcommand of the first segment needing a rule (`npm run test`), for "always allow". */
  signature: string | null;
  /** True when a rule can be saved for this command (fully analysed, no interpreters or substitutions). */
  rememberable: boolean;
  /**
   * The call's stdin argument when what reads it runs it or takes words from it (`python3`, `bash`, `xargs`):
   * `arg` names the argument, `reader` the program. The prompt shows it (docs/approval.md "What the prompt shows").
   */
  stdin?: { arg: string; text: string; reader: string };
}

// ---------------------------------------------------------------------------------------------
// Subjects
// ---------------------------------------------------------------------------------------------

/** A path a call touches, canonicalised (docs/design.md). */
export interface PathSubject {
  type: 'path';
  access: Access;
  /** The value as the call supplied it. */
  input: string;
  /** Absolute, normalised lexical path; null when it could not be canonicalised. */
  path: string | null;
  /** The path after resolving symlinks; null when it could not be canonicalised. */
  realPath: string | null;
  /** Why the path could not be canonicalised or is suspicious (NUL byte, `~user`, UNC, …) ⇒ ask. */
  problem?: string;
  /** Both the lexical and the real path are inside a workspace root. */
  inWorkspace: boolean;
  /**
   * A read of a regular file with more than one name (st_nlink > 1): its `dev:ino`, looked for among
   * the files deny and ask rules cover (policy/match.ts RuleSet.linkedFiles): a hard link made by
   * another process is a name no rule matches (round 32 review F32-5).
   */
  inode?: string;
  /** Where the path came from (argument name, `>` redirection, …). */
  via: string;
  /** For a read of a whole tree: what a walk of it found (deny and ask rules are tried on each entry). */
  tree?: TreeWalk;
  /** A write to a file git runs code from (config, hooks/, info/attributes) of this git directory: a built-in ask. */
  gitDirectory?: string;
  /** `gitDirectory` is a configuration file the same call points git at (`GIT_CONFIG_GLOBAL=F`, `HOME=D`), not a directory. */
  gitConfigNamed?: true;
  /** `gitDirectory` is the hooks directory the repository's `core.hooksPath` names (subjects/git-dir.ts hooksDirectoryOf). */
  gitHooks?: true;
  /** `gitDirectory` is a file the repository's git config includes (`include.path`, `includeIf.*.path`; subjects/git-dir.ts hooksDirectoryOf). */
  gitInclude?: true;
}

/** One shell simple command of a command-kind call. */
export interface CommandSubject {
  type: 'command';
  segment: Segment;
  /** The analysis of the whole command string this segment belongs to. */
  info: CommandInfo;
}

/** The tool itself, for calls whose kind is not fully described by paths and commands. */
export interface ToolSubject {
  type: 'tool';
  kind: Kind;
  /**
   * A verdict the gateway's own knowledge gives the call in every mode, before rules and grants
   * (Desktop Commander's set_config_value of defaultShell asks: kind.ts ToolClass.asks; another team
   * member's process is refused: subjects/inspect.ts processUse); `ask` is a denial in dontAsk.
   */
  refused?: { verdict: 'deny' | 'ask'; rule: string; reason: string };
}

export type Subject = PathSubject | CommandSubject | ToolSubject;

// ---------------------------------------------------------------------------------------------
// Rules
// ---------------------------------------------------------------------------------------------

/** What the user wrote, e.g. `Bash(npm run test *)`. */
export type RuleText = string;

export type RuleList = 'allow' | 'ask' | 'deny';

// ---------------------------------------------------------------------------------------------
// Decisions
// ---------------------------------------------------------------------------------------------

/** Who or what settled a decision, for the prompt, the denial text and the audit ('pin': a tool changed since it was pinned, or its description was flagged). */
export type DecidedBy = 'rule' | 'mode' | 'grant' | 'user' | 'timeout' | 'fallback' | 'error' | 'pin';

/** The decision for one subject. */
export interface SubjectDecision {
  subject: Subject;
  verdict: Verdict;
  /** The rule that decided, or null when the mode did. */
  rule: RuleText | null;
  by: DecidedBy;
  reason: string;
}

/** A path as shown to a person and recorded in the audit. */
export interface PathReport {
  path: string;
  realPath: string | null;
  access: Access;
  inWorkspace: boolean;
  input: string;
  via: string;
  problem?: string;
}

/** The decision for a whole call: the strictest of its subjects (docs/rules.md), with what a person needs. */
export interface Decision {
  verdict: Verdict;
  kind: Kind;
  /** The deciding rule: of the subjects with the strictest verdict, a rule-decided command first; null when a mode decided. */
  rule: RuleText | null;
  by: DecidedBy;
  /** One line: why. */
  reason: string;
  subjects: SubjectDecision[];
  paths: PathReport[];
  commandInfo: CommandInfo | null;
}
