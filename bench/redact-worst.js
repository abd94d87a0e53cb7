#!/usr/bin/env node
// node bench/redact-worst.js DIST [DIST_B] [--size N] [--top K] [--runs R] [--only TEXT]
//
// Redaction's worst case (docs/performance.md "Round 26: redaction's worst case"): redactText and
// redactLogRecord (the text as a string and as a key of a log record) on every text of the hostile
// corpus (test/fixtures/hostile-texts.mjs: each recogniser's literals repeated with a separator, to
// N characters, default 16,384, the most redaction reads of one text), the builds in turns; the
// fastest of R runs (default 3) for each text; the total, the median, and the K worst (default 10)
// with the time of the same text at a quarter of the size (4× is linear, 16× quadratic). --only
// runs the texts whose name contains TEXT.
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { hostileText, hostileTexts } from '../test/fixtures/hostile-texts.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const size = Number(option('--size', 16_384));
const top = Number(option('--top', 10));
const runs = Number(option('--runs', 3));
const only = option('--only', null);
const dists = args.filter((arg, index) => !arg.startsWith('--') && !args[index - 1]?.startsWith('--'));
const builds = await Promise.all(dists.map((dist) => import(resolve(dist, 'redact.js'))));

/** The fastest of `runs` runs of redacting `text` both ways, in ms. */
function time(build, text) {
  let best = Infinity;
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    build.redactText(text);
    build.redactLogRecord({ stderr: text, [text]: 1 });
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

const texts = [...hostileTexts(size)].filter(({ name }) => only === null || name.includes(only));
const results = builds.map(() => []);
const started = loadavg()[0];
for (const { name, text } of texts) {
  builds.forEach((build, index) => results[index].push({ name, ms: time(build, text) }));
}
console.log(`${texts.length} texts of ${size} characters, fastest of ${runs}; load ${started.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`);
builds.forEach((build, index) => {
  const sorted = [...results[index]].sort((a, b) => b.ms - a.ms);
  const total = sorted.reduce((sum, { ms }) => sum + ms, 0);
  console.log(`\n${dists[index]}: total ${total.toFixed(0)} ms, median ${sorted[Math.floor(sorted.length / 2)].ms.toFixed(2)} ms, worst ${sorted[0].ms.toFixed(1)} ms`);
  for (const { name, ms } of sorted.slice(0, top)) {
    const { context, unit } = texts.find((entry) => entry.name === name);
    const small = time(build, hostileText(context, unit, Math.ceil(size / 4)));
    console.log(`  ${ms.toFixed(1).padStart(8)} ms  (${Math.ceil(size / 4)}: ${small.toFixed(1)} ms)  ${name}`);
  }
});
