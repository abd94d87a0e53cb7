import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, test } from 'vitest';
import { configJsonSchema, configSchemas } from '../../src/config/schema.js';
import { fullCollection } from '../../src/gateway/idle-collector.js';
import { parseConfigText } from '../../src/config/load.js';
import { ruleIssues } from '../../src/policy/policy.js';
import { ROOT } from '../helpers/gateway.js';

/** The JSON Schema shipped for editors agrees with the zod schema the gateway enforces. */
const shipped = JSON.parse(readFileSync(join(ROOT, 'schema/mcp-latch.schema.json'), 'utf8')) as Record<string, unknown>;
const examples = readdirSync(join(ROOT, 'examples')).filter((name) => name.endsWith('.json'));

describe('config JSON Schema', () => {
  test('the shipped file is generated from the current zod schema (run npm run build)', () => {
    expect(shipped).toEqual(JSON.parse(JSON.stringify(configJsonSchema())));
  });

  // Formats (uri) are left to the gateway's own check; editors treat them as hints.
  const validate = new Ajv2020({ strict: false, allErrors: true, validateFormats: false }).compile(shipped);

  test.each(examples)('examples/%s is valid for the JSON Schema and for the gateway', (name) => {
    const path = join(ROOT, 'examples', name);
    const text = readFileSync(path, 'utf8');
    expect(validate(JSON.parse(text)), JSON.stringify(validate.errors)).toBe(true);
    expect(() => parseConfigText(text, path, ruleIssues)).not.toThrow();
  });

  test('a config without http has its defaults, the only place they are written (src/team/http.ts reads them)', () => {
    const parsed = configSchemas().config.parse({ mcpServers: {} });
    expect(parsed.http).toMatchObject({ tokens: [], sessionIdleSeconds: 3600, maxSessions: 1000, maxSessionsPerUser: 100, maxWaitingCallsPerUser: 20, maxWaitingMBPerUser: 50 });
  });

  test('rejects a broken config', () => {
    const broken = { mcpServers: { fs: { command: 'npx', args: 'not-a-list' } }, permissions: { defaultMode: 'yolo' }, unknownKey: true };
    expect(validate(broken)).toBe(false);
    const paths = (validate.errors ?? []).map((error) => error.instancePath);
    expect(paths).toContain('/permissions/defaultMode');
  });
});

describe('the config schema is not kept', () => {
  // Kept, it and what zod adds at its first parse held ~0.4 MiB of an idle gateway (docs/performance.md, "Round 11: idle memory").
  test('each read makes its own, and what a read used is collected once the read is over', async () => {
    // Made and used in a function of its own, so that no variable of this test holds it.
    const used = (() => {
      const made = configSchemas().config;
      expect(made.safeParse({ mcpServers: { fs: { command: 'npx' } } }).success).toBe(true);
      expect(configSchemas().config === made).toBe(false);
      return new WeakRef(made);
    })();
    const path = join(ROOT, 'examples', examples[0]!);
    parseConfigText(readFileSync(path, 'utf8'), path, ruleIssues);
    // A WeakRef's target lives at least until the end of the job that made or read it.
    await new Promise((resolve) => setImmediate(resolve));
    fullCollection();
    fullCollection();
    expect(used.deref()).toBeUndefined();
  });
});

describe("a read makes the sections a file leaves out only when it has them", () => {
  // zod returns a section's default without parsing it, and a read made ~120 of its ~370 schemas for
  // sections a file usually leaves out, at every start beside the booting servers (docs/performance.md,
  // "Round 26: the ten-server start"). Notes the options of each enum zod makes while `run` runs (zod
  // defines each schema's internals, `_zod`, with Object.defineProperty).
  function enumsMadeBy(run: () => void): string[] {
    const made: string[] = [];
    const define = Object.defineProperty;
    Object.defineProperty = function (target: object, key: PropertyKey, descriptor: PropertyDescriptor) {
      const def = key === '_zod' ? (descriptor.value as { def?: { type?: string; entries?: Record<string, string> } }).def : undefined;
      if (def?.type === 'enum') made.push(...Object.values(def.entries ?? {}));
      return define(target, key, descriptor);
    } as typeof Object.defineProperty;
    try {
      run();
    } finally {
      Object.defineProperty = define;
    }
    return made;
  }
  const bare = { mcpServers: { fs: { command: 'npx' } }, permissions: { allow: ['Read(src/**)'] } };
  const full = {
    ...bare,
    approval: { timeoutSeconds: 5, fallback: 'browser-manual' },
    audit: { enabled: false },
    timeouts: { callSeconds: 3 },
    limits: { messageMB: 2 },
    policy: { toolDescriptions: 'hide' },
    tools: { fs__read: { kind: 'read', paths: ['path', { arg: 'to', access: 'write' }] } },
    scopes: { one: { servers: ['fs'] } },
    users: { alice: { permissions: { allow: ['Bash(ls)'] } } },
    store: { url: 'redis://localhost' },
    http: { tokens: [{ user: 'alice', role: 'approver', sha256: 'a'.repeat(64) }], oauth: { issuer: 'https://issuer.example', jwksUrl: 'https://issuer.example/jwks' } },
  };

  test('a file without approval, tools, users or http tokens makes none of their schemas; one with them does, and the read gives what the whole schema gives', () => {
    const leftOut = enumsMadeBy(() => expect(parseConfigText(JSON.stringify(bare), '/x/mcp-latch.json', ruleIssues).file.approval.fallback).toBe('browser'));
    for (const option of ['browser-manual', 'batch', 'approver', 'hide', 'hold']) expect(leftOut).not.toContain(option);
    // The probe sees them: the permissions' mode, which every file parses.
    expect(leftOut).toContain('bypassPermissions');
    const present = enumsMadeBy(() => parseConfigText(JSON.stringify(full), '/x/mcp-latch.json', ruleIssues));
    for (const option of ['browser-manual', 'batch', 'approver', 'hide']) expect(present).toContain(option);
    for (const file of [bare, full, { ...full, approval: { timeoutSeconds: -1 } }, { ...full, tools: { a: { kind: 'nope' } } }, { ...full, store: { passwordEnv: 'A', passwordFile: 'b' } }, { ...full, http: { oauth: { issuer: 'x' } } }]) {
      const whole = configSchemas().config.safeParse(file, { jitless: true });
      const read = configSchemas({ lazySections: true }).config.safeParse(file, { jitless: true });
      expect(read.success).toBe(whole.success);
      if (read.success && whole.success) expect(read.data).toEqual(whole.data);
      else expect(read.error!.issues).toEqual(whole.error!.issues);
    }
  });
});
