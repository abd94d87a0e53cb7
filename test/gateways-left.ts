import { readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * vitest globalSetup: every gateway a test starts is listed in one file (test/helpers/gateway.ts),
 * and whatever of them still runs when the run ends is killed. A test that times out is abandoned
 * without its `finally`, and a gateway that hung (round 10: a naming loop spun for ever) outlived
 * the run at 100 % CPU. Only a process whose command line is still this repository's gateway is
 * killed, so a number the system gave again is left alone.
 */
export default function setup(): () => void {
  devNullIsADevice('before the run');
  const file = join(tmpdir(), `mcp-latch-test-gateways-${process.pid}`);
  process.env.MCP_LATCH_TEST_GATEWAYS = file;
  return () => {
    let pids: string[] = [];
    try {
      pids = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    } catch {
      return;
    }
    for (const pid of pids) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(join('bin', 'mcp-latch.js'))) process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone, or no /proc here
      }
    }
    rmSync(file, { force: true });
    devNullIsADevice('after the run: a test replaced it');
  };
}

/**
 * Many cases write to /dev/null through real programs run as this user; one that replaces it (a
 * `sed -i` or an `install` onto it, as root) leaves a regular file, and bash's `>/dev/null` and tmux's
 * daemon() then fail elsewhere, far from the cause (round 11: a proof run by hand did this).
 */
function devNullIsADevice(when: string): void {
  if (process.platform === 'win32') return;
  if (!statSync('/dev/null').isCharacterDevice()) throw new Error(`/dev/null is not a character device ${when} (as root: rm /dev/null && mknod -m 666 /dev/null c 1 3)`);
}
