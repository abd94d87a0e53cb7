import { LoggingLevelSchema, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';

/** debug (0) … emergency (7), the order of the MCP spec; made at the first use, not with the bundle (lazy-schema.ts). */
let severity: Map<LoggingLevel, number> | undefined;
const SEVERITY = () => (severity ??= new Map<LoggingLevel, number>(LoggingLevelSchema.options.map((level, index) => [level, index])));

/**
 * The `logging/setLevel` of each client session. The downstream servers are shared, so each is set
 * to the most detailed level any session asked for, and the log messages relayed to a session are
 * those at or above its own level (relay.ts): one session asking for debug does not flood another.
 */
export class LogLevels {
  private readonly bySession = new Map<string, LoggingLevel>();

  /** Records a session's level (null: the session ended); the most detailed level any session asks for, or null when none does. */
  set(session: string, level: LoggingLevel | null): LoggingLevel | null {
    if (level) this.bySession.set(session, level);
    else this.bySession.delete(session);
    let detailed: LoggingLevel | null = null;
    for (const each of this.bySession.values()) if (detailed === null || SEVERITY().get(each)! < SEVERITY().get(detailed)!) detailed = each;
    return detailed;
  }

  /** Whether a log message at `level` goes to the session: not when it is below the level the session asked for. */
  wants(session: string, level: LoggingLevel): boolean {
    const asked = this.bySession.get(session);
    return asked === undefined || SEVERITY().get(level)! >= SEVERITY().get(asked)!;
  }
}
