// The CPU a server's listing costs for its icons' hosts (src/downstream/icon-hosts.ts, round 24),
// once per listing read: 10,000 tools without icons, with a data: icon each, and with a named
// https icon each (one host, answered by test/fixtures/fake-dns.mjs). Median of process CPU.
//   npm run build && FAKE_DNS='{"cdn.example.test":["93.184.215.14"]}' node --import ./test/fixtures/fake-dns.mjs bench/icon-hosts.js
import { checkIconHosts } from '../dist/downstream/icon-hosts.js';

const logger = { warn() {}, info() {}, debug() {}, child: () => logger };
const plain = Array.from({ length: 10_000 }, (_, index) => ({ name: `t${index}`, description: 'x', inputSchema: { type: 'object' } }));
const cases = [
  ['no icons', plain, 41],
  ['a data: icon each', plain.map((tool) => ({ ...tool, icons: [{ src: 'data:image/png;base64,iVBORw0KGgo=' }] })), 41],
  ['a named https icon each, one host', plain.map((tool, index) => ({ ...tool, icons: [{ src: `https://cdn.example.test/icons/${index}.png` }] })), 9],
];
for (const [label, tools, runs] of cases) {
  const cpu = [];
  for (let run = 0; run < runs; run++) {
    const before = process.cpuUsage();
    // A server name per run: each run's lookups in a share of their own, its log line its own.
    await checkIconHosts({ tools, resources: [], templates: [], prompts: [] }, `s${run}`, logger);
    const spent = process.cpuUsage(before);
    cpu.push((spent.user + spent.system) / 1000);
  }
  cpu.sort((a, b) => a - b);
  console.log(`10,000 tools, ${label}: median ${cpu[runs >> 1].toFixed(3)} ms CPU (${runs} runs)`);
}
