import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { RelayHooks } from '../downstream/connect.js';
import { errorMessage } from '../errors.js';
import type { Gateway } from './server.js';

/**
 * A server's own requests and notifications, passed up to the client (docs/design.md#the-gateway-as-a-proxy). Its elicitation is
 * shown with the server's name first, because the client shows the gateway as the one asking.
 */
export function createRelayHooks(gateway: Gateway): RelayHooks {
  const server = () => gateway.server;
  return {
    async elicit(name, params, signal): Promise<ElicitResult> {
      const prefixed = { ...params, message: `[${name}] ${params.message}` } as ElicitRequest['params'];
      return server().elicitInput(prefixed, { signal, timeout: gateway.config().approval.timeoutSeconds * 1000 });
    },
    sample(_name, params, signal) {
      return server().createMessage(params, { signal, timeout: gateway.config().timeouts.callSeconds * 1000 });
    },
    listRoots(_name, signal) {
      return server().listRoots(undefined, { signal, timeout: 30_000 });
    },
    onLog(name, params) {
      const logger = params.logger ? `${name}/${params.logger}` : name;
      void server()
        .sendLoggingMessage({ ...params, logger })
        .catch((error: unknown) => gateway.logger.debug({ err: errorMessage(error) }, 'could not relay a log message'));
    },
    onResourceUpdated(_name, uri) {
      void server().sendResourceUpdated({ uri }).catch(() => undefined);
    },
    onListChanged(name) {
      void gateway.registry.get(name)?.refresh();
    },
  };
}
