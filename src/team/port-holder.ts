import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { endianness } from 'node:os';
import { isIPv4, isIPv6 } from 'node:net';

/**
 * Who holds a loopback port the gateway could not bind (EADDRINUSE). A fixed port on 127.0.0.1 can
 * be taken by any local user while the gateway is down; MCP clients configured for it then send
 * their `Authorization` header (an `http.tokens` token) to that process (round 18 review, L6). The
 * socket's owner is in /proc/net/tcp and tcp6 (its `uid` column, readable by every user), so the
 * gateway can say so. Linux only; elsewhere, and when nothing matches, null.
 */
export interface PortHolder {
  uid: number;
  user: string | null;
  /** The process with the socket open, when /proc lets us see its fds (our own, or root); else null. */
  pid: number | null;
}

const LISTEN = '0A';

export function portHolder(host: string, port: number): PortHolder | null {
  if (process.platform !== 'linux') return null;
  const wanted = addressesFor(host);
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid …
      const [local, state, uidText] = [fields[1], fields[3], fields[7]];
      if (!local || state !== LISTEN || uidText === undefined) continue;
      const [hexAddress, hexPort] = local.split(':');
      if (!hexAddress || !hexPort || parseInt(hexPort, 16) !== port) continue;
      if (!wanted.has(addressOf(hexAddress))) continue;
      const uid = Number(uidText);
      return { uid, user: userName(uid), pid: socketOwner(fields[9]) };
    }
  }
  return null;
}

/** The addresses whose listener keeps `host` from being bound: itself and its family's wildcard. */
function addressesFor(host: string): Set<string> {
  const names = host === 'localhost' ? ['127.0.0.1', '::1'] : [host];
  const out = new Set<string>();
  for (const name of names) {
    if (isIPv4(name)) out.add(name).add('0.0.0.0').add('::').add(`::ffff:${name}`);
    else if (isIPv6(name)) out.add(name === '::1' || name === '0:0:0:0:0:0:0:1' ? '::1' : name).add('::');
  }
  return out;
}

/** A /proc/net address (hex, each 32-bit word in host byte order) as text: `127.0.0.1`, `::1`, `::`, `::ffff:127.0.0.1`. */
function addressOf(hex: string): string {
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const chunk = hex.slice(word, word + 8).match(/../g)?.map((pair) => parseInt(pair, 16)) ?? [];
    bytes.push(...(endianness() === 'LE' ? chunk.reverse() : chunk));
  }
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.every((byte) => byte === 0)) return '::';
  if (bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1) return '::1';
  if (bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${bytes.slice(12).join('.')}`;
  return bytes.map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The pid with `socket:[inode]` among its fds: best effort, another user's fds are unreadable unless root. */
function socketOwner(inode: string | undefined): number | null {
  if (!inode || inode === '0') return null;
  const target = `socket:[${inode}]`;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return Number(pid);
      } catch {
        // Closed meanwhile.
      }
    }
  }
  return null;
}

function userName(uid: number): string | null {
  try {
    for (const line of readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (name && Number(id) === uid && id !== '') return name;
    }
  } catch {
    // No passwd file to read: the uid alone.
  }
  return null;
}

/** What the gateway says when a loopback port is taken (docs/team.md#listening). */
export function portInUseMessage(host: string, port: number, holder: PortHolder | null, ownUid = process.getuid?.()): string {
  const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (holder && holder.uid !== ownUid) {
    const who = `${holder.pid !== null ? `process ${holder.pid}, ` : ''}uid ${holder.uid}${holder.user ? ` (${holder.user})` : ''}`;
    return (
      `${where} is in use by ${who}, not by you: MCP clients configured for this address may have sent their Authorization header to that process. ` +
      `If they carry http.tokens tokens, make new ones (mcp-latch token) and remove the old entries; run the gateway as a service that holds the port (docs/team.md#listening)`
    );
  }
  if (holder) return `${where} is in use by another process of yours${holder.pid !== null ? ` (process ${holder.pid})` : ''} (another gateway?); stop it or choose another --port`;
  return `${where} is in use (listen EADDRINUSE). If another user holds it, MCP clients configured for this address may be sending their token there (docs/team.md#listening)`;
}
