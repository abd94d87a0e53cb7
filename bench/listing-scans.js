// node bench/listing-scans.js: CPU ms (median) of the description scan, the other-tools check and
// resource template matching on a hostile listing, r9's build (/work/wt/r9 or $A) against this one
// (docs/performance.md, "Round 10: a server's listing").
const A = await import(`${process.env.A ?? '/work/wt/r9'}/dist/pins/scan.js`);
const B = await import('../dist/pins/scan.js');
const { UriTemplate } = await import('@modelcontextprotocol/sdk/shared/uriTemplate.js');
const { compileTemplate } = await import('../dist/downstream/template-match.js');
const med = (f, n = 5) => { const t = []; for (let i = 0; i < n; i++) { const s = process.cpuUsage(); f(); const e = process.cpuUsage(s); t.push((e.user + e.system) / 1000); } t.sort((a, b) => a - b); return t[n >> 1].toFixed(1); };
const sp = 'send' + ' '.repeat(20000) + 'x', nl = '\n'.repeat(20000) + 'x';
console.log('send+20k spaces  r9', med(() => A.scanDefinition({ description: sp }), 3), 'ms  new', med(() => B.scanDefinition({ description: sp })), 'ms');
console.log('20k newlines     r9', med(() => A.scanDefinition({ description: nl }), 3), 'ms  new', med(() => B.scanDefinition({ description: nl })), 'ms');
const names = Array.from({ length: 10000 }, (_, i) => `other_tool_${i}`);
const props = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`p${i}`, { type: 'string', description: `Property ${i}.` }]));
const def = { name: 'echo', description: 'Echoes.', inputSchema: { type: 'object', properties: props } };
const idx = new B.ToolNames([{ server: 'o', names }]);
console.log('10-prop schema vs 10,000 names r9', med(() => A.scanDefinition(def, { otherTools: names }), 3), 'ms  new (index built once)', med(() => B.scanDefinition(def, { otherTools: idx, server: 's' })), 'ms  index build', med(() => new B.ToolNames([{ server: 'o', names }])), 'ms');
const tpl = Array.from({ length: 10 }, (_, i) => `{+v${i}}`).join('') + 'Z';
const u = 'a'.repeat(28);
console.log('{+v0}..{+v9}Z, 28-char URI  SDK', med(() => new UriTemplate(tpl).match(u), 1), 'ms  new', med(() => compileTemplate(tpl).matches('a'.repeat(8192))), 'ms (8192-char URI)');
const tpls = Array.from({ length: 10000 }, (_, i) => `test://t${i}/{id}`); const ms = tpls.map(compileTemplate);
console.log('10,000 templates, lookup of the last  SDK', med(() => tpls.find(t => new UriTemplate(t).match('test://t9999/7') !== null)), 'ms  new', med(() => ms.find(m => m.matches('test://t9999/7'))), 'ms');
