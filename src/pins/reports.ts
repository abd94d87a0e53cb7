import type { Prompt, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.js';
import type { ListedNow, Pin, PinStore } from '../store/pins.js';
import { pinState, type DefinitionReport, type DescriptionPolicy } from './check.js';
import { definitionDigest, entryDefinition, legacyDigest, pinMatches, promptDefinition, serverIdentity, templateDefinition, toolDefinition, type Definition, type PinKind } from './definition.js';
import { scanParts, ToolNames, withToolNames, type Finding, type TextFindings } from './scan.js';

/** How many flagged definitions a log line names; the rest are counted (as gateway/listing-notes.ts). */
const NAMED_IN_LINE = 3;

/**
 * The gateway's view of each listed tool's (prompt's, resource template's) definition: digest and
 * scan findings worked out once per listing (they depend on every server's tools), the pin state
 * read at each use (another process may have accepted a change), findings logged once per definition.
 */
export interface ListedTool {
  exposed: string;
  server: string;
  tool: Tool;
}

export interface ListedPrompt {
  exposed: string;
  server: string;
  prompt: Prompt;
}

export interface ListedTemplate {
  server: string;
  template: ResourceTemplate;
}

/** The name `mcp-latch tools` shows for a resource template and `--accept` takes: templates keep their URIs, not a prefixed name. */
function templateExposedName(server: string, template: ResourceTemplate): string {
  return `${server}__${template.name}`;
}

interface Listed {
  kind: PinKind;
  exposed: string;
  server: string;
  name: string;
  /** The entry as its server listed it: a re-listing gives new objects. */
  source: object;
  definition: () => Definition;
  /** `kind server name`: where its scan is kept. */
  key: string;
}

interface Scanned {
  source: object;
  definition: Definition;
  digest: string;
  /** Its digest as a lock file of before round 24 has it (without icons: definition.ts legacyDigest), once asked. */
  legacy?: string;
  /** What the definition's own text gave: kept while it is listed. */
  text: TextFindings;
  /** The names it was checked against (other-tools). */
  names: ToolNames;
  findings: Finding[];
  /** The last report and the pin it was made from: the same pin gives the same report (no garbage per call). */
  last?: { pin: Pin | undefined; unreadable: string | null; added: boolean; report: DefinitionReport };
}

export class DefinitionReports {
  private scanned = new Map<string, Scanned>();
  /** The scans of the listing before the last change: one whose entry is still listed is taken over (listChanged). */
  private previous = new Map<string, Scanned>();
  /** Every listed tool's names, for the other-tools check: indexed once per listing, not per definition. */
  private names: ToolNames | undefined;
  /** What `names` was made of (a listing with the same names keeps the same index), and whether it was compared with the listing since its last change. */
  private namesKey = '';
  private namesChecked = false;
  private readonly logged = new Set<string>();
  /** Flagged definitions not logged yet, by `kind server`: told together once the pass that scanned them is over (noteFlagged). */
  private readonly flagged = new Map<string, { kind: PinKind; server: string; policy: DescriptionPolicy; count: number; named: Array<{ exposed: string; findings: string[] }> }>();
  /**
   * Pins being written, by definition: every call that comes while the first write is under way
   * sees the tool still "new" and would write the lock file again (at 16 calls in flight, dozens
   * of read-write-fsync-rename rounds queued behind each other). They wait for the one write.
   */
  private readonly pinning = new Map<string, Promise<void>>();
  /**
   * Each listed tool's Listed, made once for the object its server listed (a re-listing gives new
   * objects): a report is made for every call, and its key string, object and closure were made
   * for each (docs/performance.md, "Round 14: the warm path").
   */
  private readonly tools = new WeakMap<Tool, Listed>();

  /**
   * Whether a tool, prompt or template with no pin was added by its server after its first listing,
   * or `entry` differs from the definition first listed under its name
   * (the gateway knows its servers' listings: core.ts addedLater); none in `mcp-latch tools`, whose
   * run lists each server once.
   */
  addedLater: (kind: PinKind, server: string, name: string, entry: object) => boolean = () => false;

  constructor(
    private readonly store: PinStore,
    private readonly logger: Logger,
  ) {}

  /** The names of `kind` recorded for `server` at its last listing (store/pins.ts listedNames); undefined when none. */
  recordedNames(kind: PinKind, server: string): ReadonlySet<string> | undefined {
    return this.store.listedNames(kind, server);
  }

  /** The digest each name of `kind` was recorded with for `server` (store/pins.ts listedDigests); undefined when the file has none for it. */
  recordedDigests(kind: PinKind, server: string): ReadonlyMap<string, string> | undefined {
    return this.store.listedDigests(kind, server);
  }

  /**
   * What the lock file records `server`'s `name` of `kind` as listed with (docs/pins.md, "A tool
   * added later"): its digest; null when recorded without one (a lock file of before round 20);
   * undefined when not recorded; false when nothing is recorded for the server.
   */
  recordedAs(kind: PinKind, server: string, name: string): string | null | undefined | false {
    const names = this.store.listedNames(kind, server);
    const digests = this.store.listedDigests(kind, server);
    if (names === undefined && digests === undefined) return false;
    const digest = digests?.get(name);
    if (digest !== undefined) return digest;
    return names?.has(name) === true ? null : undefined;
  }

  /**
   * addedLater for a run that lists each server once (`mcp-latch tools`): that listing is checked
   * against the lock file's record only, as a gateway's first listing is (a server with no record is
   * its own baseline). An entry held by a gateway shows as held here too, so `--changed` lists it.
   */
  addedSinceRecorded(kind: PinKind, server: string, name: string, entry: object): boolean {
    if (!this.serverHasPins(server)) return false;
    const known = this.recordedAs(kind, server, name);
    if (known === false) return false;
    if (typeof known !== 'string') return true;
    const definition = entryDefinition(kind, entry);
    const digest = definitionDigest(definition);
    // Recorded before round 24, without icons: the definition listed now without its icons is what was recorded.
    return digest !== known && (this.recordedWithIcons(server) || legacyDigest(definition, digest) !== known);
  }

  /** The digest of the team's pin of `name`, if any. */
  pinDigest(kind: PinKind, server: string, name: string): string | undefined {
    return this.store.get(kind, server, name)?.digest;
  }

  /** Records the names `server` was listed under without being held, with their digests (store/pins.ts recordListed). */
  recordListed(server: string, config: { command?: string; args?: string[]; url?: string }, names: Record<PinKind, string[]>, digests: Record<PinKind, ReadonlyMap<string, string>>, now?: ListedNow): Promise<void> {
    return this.store.recordListed(server, serverIdentity(config), names, digests, now);
  }

  /** Whether the digests recorded for `server` are of definitions with their icons (store/pins.ts listedWithIcons; round 24). */
  recordedWithIcons(server: string): boolean {
    return this.store.listedWithIcons(server);
  }

  /** Whether `server` has pins of before round 24, which recordListed rewrites with their icons (store/pins.ts). */
  hasLegacyPins(server: string): boolean {
    return this.store.hasLegacyPins(server);
  }

  /** Whether the lock file holds a pin of any tool, prompt or template of `server` (the team's): something of it was allowed. */
  serverHasPins(server: string): boolean {
    return this.store.hasAny('tool', server) || this.store.hasAny('prompt', server) || this.store.hasAny('template', server);
  }

  /**
   * A server's listing (or a server's state, or the config) changed. Scans are kept for the entries
   * still listed as they were: clearing them all made every server's definitions scanned again
   * after any one server's list change. A scan is redone when its server listed the entry anew,
   * and only its other-tools check when the listed names changed (docs/pins.md, "The description scan").
   */
  listChanged(): void {
    // Nothing reported since the last change: the scans before it are still the ones to take over.
    if (this.scanned.size > 0) {
      this.previous = this.scanned;
      this.scanned = new Map();
      // Flagged definitions are remembered as logged only while listed: a server listing fresh
      // flagged tools at each listing grew the set for the gateway's life (round 19 review, as
      // F-heldlog for held tools). One that comes back is logged again.
      const listed = new Set<string>();
      for (const scan of this.previous.values()) listed.add(scan.digest);
      for (const digest of this.logged) if (!listed.has(digest)) this.logged.delete(digest);
    }
    this.namesChecked = false;
  }

  /** The lock file's path. */
  get path(): string {
    return this.store.path;
  }

  /** Whether the lock file changed since a watcher last asked, other than by this process's record of listings (store/pins.ts changedForWatcher). */
  changedForWatcher(): boolean {
    return this.store.changedForWatcher();
  }

  /** Once this process's lock file writes queued so far are over. */
  writesSettled(): Promise<unknown> {
    return this.store.settled();
  }

  /** Reads the lock file again if it changed since it was last read; true when it was. */
  refreshPins(): boolean {
    return this.store.refresh();
  }

  /** `all`: every listed tool, for the names a description must not reach for. */
  /** Whether a tool of `server` has a pin (only such a tool can have changed), one another gateway of the config wrote included (a stat). */
  hasPin(kind: PinKind, server: string, name: string): boolean {
    return this.store.get(kind, server, name) !== undefined || (this.store.refresh() && this.store.get(kind, server, name) !== undefined);
  }

  /**
   * hasPin for a whole list: the lock file is looked at (one stat) once, not once per name without
   * a pin (10,000 stats for each tools/list of a server of 10,000 tools; docs/performance.md,
   * "Round 18: list_changed storms"). The answers are hasPin's within one synchronous pass.
   */
  pinLookup(): (kind: PinKind, server: string, name: string) => boolean {
    this.store.refresh();
    return (kind, server, name) => this.store.get(kind, server, name) !== undefined;
  }

  forTool(listed: ListedTool, all: () => readonly ListedTool[], policy: DescriptionPolicy): DefinitionReport {
    return this.toolReport(listed.exposed, listed.server, listed.tool, all, policy);
  }

  /**
   * forTool without a ListedTool made for the call. `user`: a member of a team gateway, for whom a
   * definition they accepted themselves is pinned (docs/team.md, "Pins").
   */
  toolReport(exposed: string, server: string, tool: Tool, all: () => readonly ListedTool[], policy: DescriptionPolicy, user?: string): DefinitionReport {
    let listed = this.tools.get(tool);
    if (listed === undefined || listed.exposed !== exposed || listed.server !== server || listed.name !== tool.name) {
      listed = { kind: 'tool', exposed, server, name: tool.name, source: tool, definition: () => toolDefinition(tool), key: `tool ${server} ${tool.name}` };
      this.tools.set(tool, listed);
    }
    return this.report(listed, all, policy, user);
  }

  forPrompt(listed: ListedPrompt, all: () => readonly ListedTool[], policy: DescriptionPolicy): DefinitionReport {
    const { exposed, server, prompt } = listed;
    return this.report({ kind: 'prompt', exposed, server, name: prompt.name, source: prompt, definition: () => promptDefinition(prompt), key: `prompt ${server} ${prompt.name}` }, all, policy);
  }

  forTemplate(listed: ListedTemplate, all: () => readonly ListedTool[], policy: DescriptionPolicy): DefinitionReport {
    const { server, template } = listed;
    const exposed = templateExposedName(server, template);
    return this.report({ kind: 'template', exposed, server, name: template.name, source: template, definition: () => templateDefinition(template), key: `template ${server} ${template.name}` }, all, policy);
  }

  private report(listed: Listed, all: () => readonly ListedTool[], policy: DescriptionPolicy, user?: string): DefinitionReport {
    const key = listed.key;
    let scan = this.scanned.get(key);
    if (!scan) {
      const names = this.toolNames(all);
      const before = this.previous.get(key);
      if (before?.source === listed.source) {
        scan = before;
        if (scan.names !== names) {
          scan.findings = withToolNames(scan.definition, scan.text, { otherTools: names, server: listed.server });
          scan.names = names;
          delete scan.last;
        }
      } else {
        const definition = listed.definition();
        const { text, findings } = scanParts(definition, { otherTools: names, server: listed.server });
        scan = { source: listed.source, definition, digest: definitionDigest(definition), text, names, findings };
      }
      this.scanned.set(key, scan);
      if (scan.findings.length > 0 && !this.logged.has(scan.digest)) {
        this.logged.add(scan.digest);
        this.noteFlagged(listed, scan.findings, policy);
      }
    }
    // First: a lock file that was unreadable and has changed since is read again here (pins.ts).
    this.store.unreadable();
    let pin = this.currentPin(listed, scan, user);
    // A pin that differs may have been accepted meanwhile by `mcp-latch tools --accept`.
    if (pin && !this.matches(pin, scan)) {
      this.store.reload();
      pin = this.currentPin(listed, scan, user);
    }
    // No pin here: another gateway of this config may have pinned it since the file was read, and
    // a pin it wrote is a pin (docs/pins.md, "Several gateways"). One stat while the tool is new.
    if (!pin && this.store.refresh()) pin = this.currentPin(listed, scan, user);
    // A pin of before round 24 that stands for this definition but for its icons (unknown then) is
    // this definition's, until the lock file is rewritten with them (store/pins.ts recordListed).
    if (pin && pin.digest !== scan.digest && this.matches(pin, scan)) pin = this.upgraded(pin, scan);
    const unreadable = this.store.unreadable();
    const added = pin === undefined && this.addedLater(listed.kind, listed.server, listed.name, listed.source);
    if (scan.last && scan.last.pin === pin && scan.last.unreadable === unreadable && scan.last.report.exposed === listed.exposed && scan.last.added === added) return scan.last.report;
    const report: DefinitionReport = {
      kind: listed.kind,
      server: listed.server,
      name: listed.name,
      exposed: listed.exposed,
      definition: scan.definition,
      digest: scan.digest,
      pin: pinState(pin, scan.definition, scan.digest, unreadable, added),
      ...(unreadable === null && pin && pin.digest !== scan.digest ? { pinned: pin.definition } : {}),
      findings: scan.findings,
    };
    scan.last = { pin, unreadable, added, report };
    return report;
  }

  /**
   * Logs a flagged definition with the others of its server and kind flagged in the same pass (a
   * list answer, a listing's calls): one line for them, told once the pass is over (a microtask).
   * A line per definition made a server listing fresh flagged tools at each listing write a line for
   * each, each time (round 20, as round 19's F-heldlog for held ones; docs/pins.md, "The description
   * scan"). Only the first few are named.
   */
  private noteFlagged(listed: Listed, findings: readonly Finding[], policy: DescriptionPolicy): void {
    const key = `${listed.kind} ${listed.server}`;
    let group = this.flagged.get(key);
    if (group === undefined) {
      group = { kind: listed.kind, server: listed.server, policy, count: 0, named: [] };
      this.flagged.set(key, group);
    }
    group.count += 1;
    if (group.named.length < NAMED_IN_LINE) group.named.push({ exposed: listed.exposed, findings: findings.map((finding) => `${finding.code} in ${finding.where}`) });
    if (this.flagged.size === 1 && group.count === 1) queueMicrotask(() => this.tellFlagged());
  }

  private tellFlagged(): void {
    const groups = [...this.flagged.values()];
    this.flagged.clear();
    for (const { kind, server, policy, count, named } of groups) {
      const first = named[0]!;
      if (count === 1) {
        this.logger.warn({ [kind]: first.exposed, findings: first.findings, policy }, `a ${kind} definition was flagged by the description scan`);
        continue;
      }
      const names = named.map((entry) => entry.exposed).join(', ');
      const more = count > named.length ? ` and ${(count - named.length).toLocaleString('en-US')} more` : '';
      this.logger.warn(
        { server, [`${kind}s`]: count, named: named.map((entry) => entry.exposed), findings: first.findings, policy },
        `${server}: ${count.toLocaleString('en-US')} ${kind} definitions were flagged by the description scan (${names}${more}); ${first.exposed}'s findings: ${first.findings.join(', ')} (mcp-latch tools shows each)`,
      );
    }
  }

  /** The team's pin; when it differs, the definition `user` accepted for themselves, if it is this one (docs/team.md, "Pins"). */
  private currentPin(listed: Listed, scan: Scanned, user: string | undefined): Pin | undefined {
    const team = this.store.get(listed.kind, listed.server, listed.name);
    if (!team || user === undefined || this.matches(team, scan)) return team;
    const accepted = this.store.get(listed.kind, listed.server, listed.name, user);
    return accepted && this.matches(accepted, scan) ? accepted : team;
  }

  /** Whether `pin` stands for the definition scanned: the same digest, or a pin of before round 24 of it without its icons (definition.ts pinMatches). */
  private matches(pin: Pin, scan: Scanned): boolean {
    // Asked at every call: the common case decided without a closure or a digest.
    if (pin.digest === scan.digest) return true;
    if (pin.withIcons === true) return false;
    return pinMatches(pin, scan.digest, () => (scan.legacy ??= legacyDigest(scan.definition, scan.digest)));
  }

  /** A pin of before round 24 as the definition it stands for (one object per pin and definition: a report is kept while its pin is the same). */
  private upgraded(pin: Pin, scan: Scanned): Pin {
    const made = this.upgrades.get(pin);
    if (made?.digest === scan.digest) return made;
    const upgraded: Pin = { digest: scan.digest, pinnedAt: pin.pinnedAt, definition: scan.definition, withIcons: true };
    this.upgrades.set(pin, upgraded);
    return upgraded;
  }
  private readonly upgrades = new WeakMap<Pin, Pin>();

  /** Every listed tool's names, indexed once per listing; the same index while the names are the same (the scans made with it stand). */
  private toolNames(all: () => readonly ListedTool[]): ToolNames {
    if (this.namesChecked && this.names) return this.names;
    const listed = all().map((tool) => ({ server: tool.server, names: [tool.tool.name, tool.exposed] }));
    const key = JSON.stringify(listed);
    if (key !== this.namesKey || !this.names) this.names = new ToolNames(listed);
    this.namesKey = key;
    this.namesChecked = true;
    return this.names;
  }

  /**
   * Pins the definition the report was made from (a first allowed use, or with `accept` a change a
   * person accepted: only that replaces a pin of another definition), for the team, or for one
   * member only (`user`: their "Accept the new definition" on a team gateway).
   */
  pin(report: DefinitionReport, server: { command?: string; args?: string[]; url?: string }, user?: string, accept = false): Promise<void> {
    const identity = serverIdentity(server);
    // Calls that started while the tool was new each ask for its pin after their own answer.
    if (this.store.get(report.kind, report.server, report.name, user)?.digest === report.digest && this.store.identity(report.server, user, report.kind, report.name) === identity) return Promise.resolve();
    const key = `${user ?? ''} ${report.kind} ${report.server} ${report.name} ${report.digest} ${identity} ${accept}`;
    let written = this.pinning.get(key);
    if (!written) {
      written = this.store
        .pin(report.kind, report.server, report.name, identity, report.definition, user, accept)
        .then(() => this.logger.info({ [report.kind]: report.exposed, digest: report.digest, was: report.pin.state, ...(user !== undefined ? { forUser: user } : {}) }, user !== undefined ? `${report.kind} definition accepted for one user` : `${report.kind} definition pinned`))
        .finally(() => this.pinning.delete(key));
      this.pinning.set(key, written);
    }
    return written;
  }
}
