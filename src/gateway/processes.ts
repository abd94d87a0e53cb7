/**
 * The processes a server started for the calls this gateway forwarded (Desktop Commander's
 * start_process answers "Process started with PID N"), so that text typed into one is read as
 * what reads it, and a team member's process stays theirs (round 14 review T7, T12;
 * docs/threat-model.md#desktop-commanders-processes).
 *
 *   start_process {command: "bash"}          → pid 41: a bash reading commands: input is analysed as bash
 *   start_process {command: "xargs -L1 find"} → pid 42: input to it asks (kind all)
 *   bob's interact_with_process {pid: 41}     → refused: alice's session started it
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallFacts } from '../policy/decide.js';
import type { CommandInfo } from '../policy/types.js';
import { isSafeCommand } from '../policy/safe.js';
import { POSIX_SHELLS } from '../programs.js';
import type { ProcessView } from '../subjects/inspect.js';
import type { ProcessUse } from '../subjects/profiles.js';
import { head } from '../code-points.js';

interface Started {
  session: string;
  user: string | undefined;
  /** Null: a bash or sh reading commands from its input; else what reads it, for the reason shown. */
  reads: string | null;
  /** A line sent to the shell has not been answered yet: what reads the next one is not known. */
  busy: boolean;
}

/** A session as the book needs it. */
interface Owner {
  id: string;
  user?: string | undefined;
}

/** Processes kept per server; the oldest go first past this (a pid not found asks). */
const MAX_PROCESSES = 10_000;

/** Options of a shell that keep it reading commands from its input, and nothing else (no -c, no script, no --rcfile). */
const SHELL_READING = new Set(['-s', '--norc', '--noprofile', '--posix']);

/**
 * Builtins that change what a later line means (cd moves relative paths, export/alias/set/trap/
 * declare change what runs, read and friends store input): after one, the shell is not the one
 * the next line would be analysed in.
 */
const STATE_BUILTINS = new Set(['cd', 'pushd', 'popd', 'export', 'alias', 'unalias', 'source', '.', 'set', 'unset', 'declare', 'typeset', 'local', 'readonly', 'eval', 'exec', 'shopt', 'trap', 'umask', 'hash', 'enable', 'builtin', 'command', 'read', 'printf', 'mapfile', 'readarray', 'getopts', 'let', 'wait', 'ulimit', 'bind', 'complete', 'compgen', 'history', 'fc', 'jobs', 'fg', 'bg', 'disown', 'coproc']);

/**
 * A server as the book keys it: its Supervisor (a replaced server is a new object with no processes),
 * and which of its connections is current (Supervisor.connection): a server restarted under the same
 * entry (it crashed) is a new process whose pids are not those noted, and one the system gives again
 * was read as the old process was (round 31 review, P31-4).
 */
interface BookServer {
  readonly connection: number;
}

export class ProcessBook {
  /** Per server, the processes noted on its current connection. */
  private readonly servers = new WeakMap<BookServer, { connection: number; started: Map<number, Started> }>();

  /** The processes noted on the server's current connection; none (forgotten) once it has another. */
  private startedOn(server: BookServer): Map<number, Started> | undefined {
    const noted = this.servers.get(server);
    if (noted === undefined || noted.connection === server.connection) return noted?.started;
    this.servers.delete(server);
    return undefined;
  }

  /** The server's processes as `session` sees them. */
  view(server: BookServer, session: Owner): ProcessView {
    const started = this.startedOn(server);
    return {
      team: session.user !== undefined,
      find: (pid) => {
        const entry = started?.get(pid);
        if (!entry) return null;
        const owner = entry.session === session.id ? 'session' : entry.user !== session.user ? 'member' : 'user';
        return { owner, reads: entry.busy && entry.reads === null ? 'a shell still running an earlier line' : entry.reads };
      },
    };
  }

  /**
   * Before a line decided as a command for a shell (`asShell`) is sent: false when that shell is no
   * longer idle reading lines (a line of the same batch, decided before, was sent first and is still
   * running or changed it); the call is then refused. Else the shell is busy until the answer.
   */
  sending(server: BookServer, args: Record<string, unknown>, asShell: boolean): boolean {
    const pid = args['pid'];
    const entry = typeof pid === 'number' ? this.startedOn(server)?.get(pid) : undefined;
    if (!entry || entry.reads !== null) return !asShell;
    if (entry.busy) return false;
    entry.busy = true;
    return true;
  }

  /**
   * After a forwarded call's answer (null: it failed): a started process is noted, a shell typed into
   * may stop being one that reads lines as the model does, an ended one is dropped.
   */
  answered(server: BookServer, session: Owner, use: ProcessUse, args: Record<string, unknown>, facts: CallFacts | null, result: CallToolResult | null): void {
    let started = this.startedOn(server);
    if (use === 'starts') {
      const pid = result === null || result.isError ? null : pidIn(result);
      if (pid === null) return;
      if (!started) this.servers.set(server, { connection: server.connection, started: (started = new Map()) });
      started.delete(pid);
      started.set(pid, { session: session.id, user: session.user, reads: startedReader(facts), busy: false });
      if (started.size > MAX_PROCESSES) started.delete(started.keys().next().value as number);
      return;
    }
    const pid = args['pid'];
    const entry = typeof pid === 'number' ? started?.get(pid) : undefined;
    if (!entry) return;
    if (use === 'ends') started!.delete(pid as number);
    if (use !== 'input' || entry.reads !== null) return;
    entry.busy = false;
    if (result === null || !stillReading(facts?.commandInfo ?? null)) entry.reads = `a shell whose state or input reader an earlier line changed (${head(facts?.commandInfo?.raw ?? '', 60)})`;
  }
}

/** The pid a start_process answer names ("Process started with PID 41 (shell: /bin/bash)"; node:local's are negative). */
function pidIn(result: CallToolResult): number | null {
  for (const item of result.content ?? []) {
    if (item.type !== 'text') continue;
    const match = /\bstarted with PID (-?\d+)\b/.exec(item.text);
    if (match) return Number(match[1]);
  }
  return null;
}

/** What reads the input of the process a start command made: null for a lone bash or sh reading commands (in a shell the model reads). */
function startedReader(facts: CallFacts | null): string | null {
  const info = facts?.commandInfo ?? null;
  const shown = `${head(info?.raw ?? 'the started command', 80)}`;
  // A shell reading its input is 'interpreter' to the analyser (what it runs comes later): the lone segment below is all there is.
  if (facts?.kind !== 'command' || info === null || !info.parseOk || info.redirections.length > 0 || info.substitutions.length > 0 || info.segments.length !== 1) return shown;
  const segment = info.segments[0]!;
  const bare = segment.program !== null && (!segment.program.includes('/') || /^\/(usr\/)?bin\/[^/]+$/.test(segment.program));
  const plain = segment.assignments.length === 0 && segment.wrappers.length === 0 && segment.isStatic && bare;
  return plain && segment.name !== null && POSIX_SHELLS.has(segment.name) && segment.args.every((arg) => SHELL_READING.has(arg)) ? null : shown;
}

/**
 * After a line typed into a shell: the shell still reads the next line as the model would, when the
 * line changed none of its state and left no program reading its input that might run it (only the
 * read-only commands of the safe list, which run nothing they read).
 */
function stillReading(info: CommandInfo | null): boolean {
  if (info === null || !info.parseOk || info.unanalyzable.length > 0) return false;
  return info.segments.every((segment) => segment.context !== 'function' && segment.assignments.length === 0 && segment.wrappers.length === 0 && segment.name !== null && !STATE_BUILTINS.has(segment.name) && isSafeCommand(segment));
}
