// What `serve` loads once its servers are spawned: the schema, the policy and the gateway. `npm run
// build` bundles it on its own (dist/serve/gateway.cjs, scripts/bundle.js), compiled with V8's code
// cache (code-cache.ts); the modules it shares with serve.ts are taken from serve's bundle, so there
// is one copy of each (one LatchError, one ChildTransport class). zod-jitless comes first: zod reads
// its setting when a schema is made.
import './zod-jitless.js';

export { loadConfig, serversToRun } from '../config/load.js';
export { messageBytes } from '../config/schema.js';
export { ruleIssues } from '../policy/policy.js';
export { Gateway } from '../gateway/server.js';
export { StdioUpstream } from '../gateway/stdio-upstream.js';
export { clientInput } from '../gateway/client-input.js';
export { IdleCollector } from '../gateway/idle-collector.js';
export { noteCompiledSchemas } from '../downstream/listing.js';
