import { CLIS } from '../../programs.js';
import { CONTAINER_TAKES_VALUE } from './container-mounts.js';
import type { Word } from './options.js';

/**
 * Commands that open this machine's loopback services, or a cluster's host, to what runs there
 * (round 33, rules33; docs/threat-model.md "Round 33: round 32's command-rule leftovers (rules33)"):
 *
 *   docker|podman run|create --network=host (`--net host`)   the container shares the host's network:
 *       every service bound to 127.0.0.1 (a database, the docker daemon's TCP port, a web server of a
 *       directory, the gateway's own page) answers it; podman's `slirp4netns:allow_host_loopback=true`
 *       and pasta's `--map-gw`/`--map-host-loopback` the same through an address; `ns:PATH`
 *       (`/proc/1/ns/net`) and `container:CTR` a namespace known only at run time
 *   kubectl port-forward|proxy --address A (A past loopback)   a listener on every address: the pod's
 *       port, or the cluster's API with the user's credentials (`proxy`), for whoever reaches this host
 *   kubectl debug node/N, --profile=sysadmin, --custom=F     a privileged pod on the node with its
 *       root file system at /host (kubectl debug's manual: "the container runs in the host namespaces")
 *
 * Each is `interpreter`: it asks under the program's own rule, and in bypassPermissions while deny or
 * ask rules exist; so is a word known only at run time among docker's run options or before
 * kubectl's verb (`docker run $OPT alpine` ran in bypassPermissions past `Read(~/.ssh/**)`).
 * `docker run -p 8080:80 nginx`, `kubectl port-forward svc/db 5432` stay allowed.
 */
export const HOST_NETWORK_PROGRAMS: ReadonlySet<string> = new Set(['docker', 'podman', 'kubectl']);

/** A network mode that reaches the host's loopback, or one known only at run time. */
const HOST_NETWORK = /^(?:host|ns:.*|container:.*|slirp4netns:.*allow_host_loopback=(?:true|1).*|pasta:.*(?:--map-gw|--map-host-loopback|-a\b).*)$/i;
/** kubectl's listening addresses that stay on this machine (its default is `localhost`). */
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|::1|\[::1\])$/;

/** True when the command reaches the host's loopback, listens past it, or runs a pod on a node's host. */
export function reachesHost(name: string, args: readonly Word[]): boolean {
  return name === 'kubectl' ? kubectlReaches(args) : containerHostNetwork(args);
}

/** `docker|podman [container] run|create … --network=host …` (the options before the image). */
function containerHostNetwork(args: readonly Word[]): boolean {
  let at = 0;
  while (at < args.length && args[at]!.isStatic && args[at]!.value.startsWith('-')) at += /^(?:-H|--host|-c|--context|--config|-l|--log-level|--tlscacert|--tlscert|--tlskey)$/.test(args[at]!.value) ? 2 : 1;
  if (args[at]?.isStatic && args[at]!.value === 'container') at++;
  if (args[at] !== undefined && !args[at]!.isStatic) return true; // the command known only at run time may be `run --network=host`
  if (!(args[at]?.isStatic && /^(?:run|create)$/.test(args[at]!.value))) return false;
  for (let i = at + 1; i < args.length; i++) {
    const word = args[i]!;
    // A word known only at run time where an option may stand may be `--network=host` (or `-v ~:/h`,
    // `--privileged`: container-mounts.ts reads only what is written), or the image: either way asks.
    if (!word.isStatic) return true;
    const value = word.value;
    if (!value.startsWith('-')) return false; // the image: what follows is the container's command
    const eq = /^--(?:network|net)=(.*)$/.exec(value);
    if (eq) {
      if (HOST_NETWORK.test(eq[1]!)) return true;
      continue;
    }
    if (/^--(?:network|net)$/.test(value)) {
      const next = args[++i];
      if (next === undefined || !next.isStatic || HOST_NETWORK.test(next.value)) return true;
      continue;
    }
    if (/^-[a-zA-Z]$|^--[\w-]+$/.test(value) && CONTAINER_TAKES_VALUE.test(value) && args[i + 1] !== undefined) i++;
  }
  return false;
}

/** kubectl's verb past its global options, and what it does with its words. */
function kubectlReaches(args: readonly Word[]): boolean {
  const values = new Set(CLIS.kubectl?.value ?? []);
  let verb = -1;
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) return true; // an option or the verb known only at run time: may be `port-forward --address=0.0.0.0`
    if (word.value.startsWith('-')) {
      if (values.has(word.value)) i++;
      continue;
    }
    verb = i;
    break;
  }
  if (verb === -1) return false;
  const rest = args.slice(verb + 1);
  switch (args[verb]!.value) {
    case 'port-forward':
    case 'proxy':
      return addresses(rest).some((address) => address === null || !LOOPBACK.test(address));
    case 'debug':
      return rest.some((word) => !word.isStatic || /^(?:nodes?|no)\//.test(word.value) || /^--profile=(?:sysadmin|netadmin)$/.test(word.value) || /^--custom(?:=|$)/.test(word.value)) || profileNext(rest);
    default:
      return false;
  }
}

/** Each `--address A` / `--address=A` (comma lists split); null for one known only at run time. */
function addresses(args: readonly Word[]): (string | null)[] {
  const out: (string | null)[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) {
      out.push(null); // may be `--address=0.0.0.0`
      continue;
    }
    const value = word.value.startsWith('--address=') ? word.value.slice(10) : word.value === '--address' ? (args[++i]?.isStatic ? args[i]!.value : null) : undefined;
    if (value === undefined) continue;
    if (value === null) out.push(null);
    else out.push(...value.split(','));
  }
  return out;
}

/** `--profile sysadmin` (two words). */
function profileNext(args: readonly Word[]): boolean {
  return args.some((word, i) => word.isStatic && word.value === '--profile' && (!args[i + 1]?.isStatic || /^(?:sysadmin|netadmin)$/.test(args[i + 1]!.value)));
}
