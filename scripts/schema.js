#!/usr/bin/env node
// Writes schema/mcp-latch.schema.json from the zod schema (src/config/schema.ts), so editors
// complete and check mcp-latch.json. Run by `npm run build`; a test checks it is up to date.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configJsonSchema } from '../dist/config/schema.js';

const target = fileURLToPath(new URL('../schema/mcp-latch.schema.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
