import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, McpError, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { RelayHooks } from '../downstream/connect.js';
import { errorMessage } from '../errors.js';
import type { GatewayCore } from './core.js';

/**
 * A server's own requests and notifications, passed up to the client (docs/design.md#the-gateway-as-a-proxy). Its elicitation is
 * shown with the server's name first, because the client shows the gateway as the one asking.
 *
 * `client()` is the one client session the servers belong to, or null when many clients share them
 * (HTTP): a shared server's requests have no one client to go to, its log messages could carry one
 * person's data to another and go to the gateway's log instead; resource updates go to every session.
 */
export function createRelayHooks(core: GatewayCore, client: () => Server | null, sessions: () => Server[]): RelayHooks {
  const server = (): Server => {
    const one = client();
    if (!one) throw new McpError(ErrorCode.MethodNotFound, 'mcp-latch shares this server between several clients and relays no requests from it');
    return one;
  };
  return {
    async elicit(name, params, signal): Promise<ElicitResult> {
      const prefixed = { ...params, message: `[${name}] ${params.message}` } as ElicitRequest['params'];
      return server().elicitInput(prefixed, { signal, timeout: core.config().approval.timeoutSeconds * 1000 });
    },
    sample(_name, params, signal) {
      return server().createMessage(params, { signal, timeout: core.config().timeouts.callSeconds * 1000 });
    },
    listRoots(_name, signal) {
      return server().listRoots(undefined, { signal, timeout: 30_000 });
    },
    onLog(name, params) {
      const logger = params.logger ? `${name}/${params.logger}` : name;
      const one = client();
      if (!one) {
        core.logger.debug({ server: name, level: params.level, data: params.data }, 'log message of a shared server');
        return;
      }
      void one.sendLoggingMessage({ ...params, logger }).catch((error: unknown) => core.logger.debug({ err: errorMessage(error) }, 'could not relay a log message'));
    },
    onResourceUpdated(_name, uri) {
      for (const each of sessions()) void each.sendResourceUpdated({ uri }).catch(() => undefined);
    },
    onListChanged(name) {
      void core.registry.get(name)?.refresh();
    },
  };
}
