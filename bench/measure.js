// What the benches (and the conformance script) measure with, in one place.
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';

/** CPU time (ns) used so far by every thread of a process, from the scheduler's own accounting; NaN off Linux. */
export function cpuNs(pid) {
  try {
    return readdirSync(`/proc/${pid}/task`).reduce((sum, task) => sum + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]), 0);
  } catch {
    return NaN;
  }
}

/** The p-th percentile of an ascending array (nearest rank). */
export function percentile(sorted, p) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** A loopback port nobody listens on right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}
