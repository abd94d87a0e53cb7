#!/usr/bin/env node
// node bench/prompt-render.js --dist A [--dist B]... [--runs N] [--renders N]
//
// Time to render an approval prompt's message (src/latch/prompt.ts renderMessage) in each build's
// dist/, for three calls: a write whose diff is 40 lines of 500 characters (cut to fit the height:
// docs/approval.md "How tall the prompt is"), a read of 81 paths (cut too), a write of a 3-line
// diff (whole). Each render gets a fresh input (renderings are cached per input). The builds take
// turns, `--runs` times each (2), and print the median of `--renders` renders (300) per call.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { dist: { type: 'string', multiple: true }, runs: { type: 'string', default: '2' }, renders: { type: 'string', default: '300' } } });
const dists = values.dist ?? ['dist'];
const renders = Number(values.renders);

const words = (n) => 'the quick brown fox jumps over the lazy dog '.repeat(Math.ceil(n / 44)).slice(0, n);
const diff = ['--- /dev/null', '+++ /w/n.md', '@@ -1,0 +1,37 @@', ...Array.from({ length: 37 }, (_, i) => `+${i} ${words(495)}`)].join('\n');
const decision = (kind, paths) => ({ verdict: 'ask', kind, rule: null, by: 'mode', reason: 'no rule matched (mode default)', subjects: [], paths, commandInfo: null });
const path = (i, inWorkspace = true, access = 'read') => ({ path: `/w/proj/chapter-${i}.md`, realPath: null, access, inWorkspace, input: 'x', via: 'argument' });
const change = (text, bytes) => ({ action: 'create', path: '/w/n.md', from: null, bytesBefore: null, bytesAfter: bytes, diff: text, diffMore: 0, cutLines: 0, note: null, contentArgs: ['content'] });
const calls = {
  'write, diff of 40 lines of 500 characters': () => ({ server: 'fs', tool: 'write_file', kind: 'write', decision: decision('write', [path(0, true, 'write')]), args: { path: '/w/n.md', content: 'x'.repeat(18000) }, argsDigest: 'd', rememberRules: null, offerSession: true, change: change(diff, 18000) }),
  'read of 81 paths': () => ({ server: 'fs', tool: 'read_multiple_files', kind: 'read', decision: decision('read', [...Array.from({ length: 80 }, (_, i) => path(i)), path(80, false)]), args: { paths: [] }, argsDigest: 'd', rememberRules: null, offerSession: true }),
  'write, diff of 3 lines': () => ({ server: 'fs', tool: 'write_file', kind: 'write', decision: decision('write', [path(0, true, 'write')]), args: { path: '/w/n.md', content: 'b\n' }, argsDigest: 'd', rememberRules: ['Edit(/w/n.md)'], offerSession: true, change: change('--- a\n+++ b\n@@ -1 +1 @@\n-a\n+b', 2) }),
};

const builds = await Promise.all(dists.map(async (dist) => ({ dist, ...(await import(pathToFileURL(resolve(dist, 'latch/prompt.js')).href)) })));
for (let run = 1; run <= Number(values.runs); run++) {
  for (const { dist, renderMessage } of builds) {
    const medians = Object.entries(calls).map(([name, make]) => {
      for (let i = 0; i < 50; i++) renderMessage(make());
      const times = [];
      for (let i = 0; i < renders; i++) {
        const input = make();
        const start = process.hrtime.bigint();
        renderMessage(input);
        times.push(Number(process.hrtime.bigint() - start) / 1e3);
      }
      times.sort((a, b) => a - b);
      return `${name} ${times[Math.floor(times.length / 2)].toFixed(0)} µs`;
    });
    console.log(`run ${run} ${dist}: ${medians.join('; ')}`);
  }
}
