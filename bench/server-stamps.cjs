// Loaded into mcp-server-commands by the benches' shell part (node --require, bench/shell-start.js):
// notes, on CLOCK_MONOTONIC, when each tools/call line reaches the server's stdin listeners and when
// the server writes its answer, to the file named by MCP_LATCH_BENCH_STAMPS. A command's wall time
// minus the server's own span is what is outside the server (the client, the pipes, and the gateway
// when there is one): what the gateway adds is then told from the server's own first command, which
// varies by milliseconds between fresh servers (docs/performance.md, "Round 20: first shell command").
// Loaded the same way in front of a server started directly and behind the gateway.
'use strict';
const { openSync, writeSync } = require('node:fs');

const file = process.env.MCP_LATCH_BENCH_STAMPS;
if (file) {
  const fd = openSync(file, 'a');
  const now = () => process.hrtime.bigint();
  // Wrapped rather than listened to: a listener added here would start the stream flowing before the
  // server's own listener exists, and the client's first lines would be lost.
  const emit = process.stdin.emit;
  process.stdin.emit = function (event, chunk, ...rest) {
    if (event === 'data') {
      const at = now();
      const calls = String(chunk).split('"method":"tools/call"').length - 1;
      for (let i = 0; i < calls; i++) writeSync(fd, `in ${at}\n`);
    }
    return emit.call(this, event, chunk, ...rest);
  };
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => {
    const at = now();
    const written = write(chunk, ...rest);
    if (String(chunk).includes('"content"')) writeSync(fd, `out ${at}\n`);
    return written;
  };
}
