import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../log.js';
import type { PinStore } from '../store/pins.js';
import { pinState, type DefinitionReport, type DescriptionPolicy } from './check.js';
import { definitionDigest, serverIdentity, toolDefinition, type Definition } from './definition.js';
import { scanDefinition, type Finding } from './scan.js';

/**
 * The gateway's view of each listed tool's definition: digest and scan findings worked out once
 * per listing (they depend on every server's tools), the pin state read at each call (another
 * process may have accepted a change), findings logged once per definition.
 */
export interface ListedTool {
  exposed: string;
  server: string;
  tool: Tool;
}

interface Scanned {
  definition: Definition;
  digest: string;
  findings: Finding[];
}

export class DefinitionReports {
  private scanned = new Map<string, Scanned>();
  private readonly logged = new Set<string>();

  constructor(
    private readonly store: PinStore,
    private readonly logger: Logger,
  ) {}

  /** A server's listing changed: scans are redone on next use. */
  listChanged(): void {
    this.scanned.clear();
  }

  /** `all`: every listed tool, for the names a description must not reach for. */
  forTool(listed: ListedTool, all: () => readonly ListedTool[], policy: DescriptionPolicy): DefinitionReport {
    let scan = this.scanned.get(listed.exposed);
    if (!scan) {
      const definition = toolDefinition(listed.tool);
      const otherTools = all().filter((other) => other.server !== listed.server).flatMap((other) => [other.tool.name, other.exposed]);
      scan = { definition, digest: definitionDigest(definition), findings: scanDefinition(definition, { otherTools }) };
      this.scanned.set(listed.exposed, scan);
      if (scan.findings.length > 0 && !this.logged.has(scan.digest)) {
        this.logged.add(scan.digest);
        this.logger.warn({ tool: listed.exposed, findings: scan.findings.map((finding) => `${finding.code} in ${finding.where}`), policy }, 'a tool definition was flagged by the description scan');
      }
    }
    let pin = this.store.get('tool', listed.server, listed.tool.name);
    // A pin that differs may have been accepted meanwhile by `mcp-latch tools --accept`.
    if (pin && pin.digest !== scan.digest) {
      this.store.reload();
      pin = this.store.get('tool', listed.server, listed.tool.name);
    }
    return {
      kind: 'tool',
      server: listed.server,
      name: listed.tool.name,
      exposed: listed.exposed,
      definition: scan.definition,
      digest: scan.digest,
      pin: pinState(pin, scan.definition, scan.digest, this.store.unreadable()),
      findings: scan.findings,
    };
  }

  /** Pins the definition the report was made from (a first allowed call, or an accepted change). */
  async pin(report: DefinitionReport, server: { command?: string; args?: string[]; url?: string }): Promise<void> {
    await this.store.pin(report.kind, report.server, report.name, serverIdentity(server), report.definition);
    this.logger.info({ tool: report.exposed, digest: report.digest, was: report.pin.state }, 'tool definition pinned');
  }
}
