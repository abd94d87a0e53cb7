import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { parseConfigText } from '../../src/config/load.js';
import { watchConfig } from '../../src/config/watch.js';
import type { ConfigInput } from '../../src/config/schema.js';
import { Gateway } from '../../src/gateway/server.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { ruleIssues } from '../../src/policy/policy.js';
import { tempDir, testClient, writeConfig, type Harness, type HarnessOptions } from './gateway.js';

/**
 * The call pipeline in this test's process: the Gateway on one end of the SDK's InMemoryTransport
 * pair, an SDK Client on the other, no build and no spawn of the gateway. Downstream servers are
 * still real processes; a server without a `cwd` runs in the test's directory, as it does behind
 * `startGateway` (whose gateway runs there). The config is written as `startGateway` writes it
 * (writeConfig's test defaults). Spawn tests remain for exit codes, signals and processes.
 */
export interface InProcessHarness extends Omit<Harness, 'transport'> {
  gateway: Gateway;
}

export interface InProcessOptions extends Omit<HarnessOptions, 'args' | 'env'> {
  /** Keep the log and the prompts for assertions (default); false for heap measurements. */
  keep?: boolean;
}

export async function inProcessGateway(config: ConfigInput, options: InProcessOptions = {}): Promise<InProcessHarness> {
  const keep = options.keep ?? true;
  const dir = options.dir ?? tempDir();
  const servers = Object.fromEntries(Object.entries(config.mcpServers ?? {}).map(([name, server]) => [name, 'command' in server && server.cwd === undefined ? { ...server, cwd: dir } : server]));
  const configPath = writeConfig(dir, { ...config, mcpServers: servers }, 'mcp-latch.json', options.productDefaults);
  let logs = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs += chunk.toString();
      done();
    },
  });
  const gateway = new Gateway({ config: parseConfigText(readFileSync(configPath, 'utf8'), configPath, ruleIssues), logger: keep ? createLogger({ level: 'debug', destination: sink }) : silentLogger() });

  const { client, elicitations } = testClient(options, keep);
  // The config file is watched as `serve` watches it: editing it reloads the gateway.
  const watcher = watchConfig(configPath, (text) => gateway.reload(text, 'file changed'), () => undefined);
  const [clientSide, gatewaySide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(gatewaySide);
  await client.connect(clientSide);
  return {
    client,
    gateway,
    dir,
    configPath,
    stderr: () => logs,
    elicitations,
    close: async () => {
      watcher.close();
      await client.close().catch(() => undefined);
      await gateway.close();
    },
  };
}
