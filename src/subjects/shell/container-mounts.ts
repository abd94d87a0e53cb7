import { RECURSIVE } from '../../policy/decide.js';
import type { CommandPath } from '../../policy/types.js';
import { pathOf, pushPath, staticWord, type Word } from './options.js';

/**
 * The host directories a container started by `docker|podman run|create` reads and writes (round 30
 * review R30-5; docs/threat-model.md "Round 30: the review of round 29"). A bind mount's source
 * (`-v SRC:DST[:OPTS]`, `--volume`, `--mount type=bind,source=SRC`) is every file below SRC, as
 * `cp -r SRC` reads it: `docker run -v ~:/h alpine cat /h/.ssh/id_rsa` was allowed past
 * `Read(~/.ssh/**)`, which met only a source that is itself below the rule (`-v ~/.ssh:/k`, a deny
 * candidate). An option that gives the container the host (`--privileged`: every device, so `mount
 * /dev/sda1`; `--pid=host` with `nsenter`; `--cap-add=SYS_ADMIN|DAC_READ_SEARCH|ALL`; `--device`)
 * is a read of every file under `/`. Each is a recursive read: a deny or ask rule matching a file
 * below makes it ask (docs/rules.md "Recursive reads"); outside the workspace it asks in default.
 * A named volume (`-v data:/var/lib/x`) is no host path.
 *
 * Round 32 (review R32-3): the container engine's socket mounted in (`-v /var/run/docker.sock:/s`,
 * `/run/containerd/containerd.sock`, podman's, a rootless `/run/user/N/docker.sock`, or `/run` or
 * `/var/run` holding it) lets the container start another one with `-v /:/host`: a read of `/`,
 * as `--privileged` is. So is `--device-cgroup-rule` (the device cgroup opened, the default
 * CAP_MKNOD makes the node: `mknod /dev/sda b 8 0`). `--volumes-from CTR` mounts what another
 * container mounted, host directories included, known only at run time.
 */
const RUNS = new Set(['run', 'create']);
const HOST = /^--privileged(?:=true)?$|^--(?:pid|ipc|userns|uts|cgroupns)=host$|^--cap-add=(?:ALL|SYS_ADMIN|DAC_READ_SEARCH|SYS_PTRACE|SYS_MODULE)$|^--device(?:=|$)|^--device-cgroup-rule(?:=|$)|^--security-opt=(?:apparmor|seccomp|label)[=:]unconfined$|^--security-opt=label[=:]disable$/i;

/** An engine's socket, or a run-time directory holding one (`/run`, `/var/run`, `/run/user/N`, `/run/docker`…). */
const ENGINE_SOCKET = /\.sock\/*$|^\/+(?:var\/+)?run(?:\/+(?:user(?:\/+\d+)?|docker|containerd|podman|crio|k3s)?)?\/*$/;
const unknownPlace: Word = { value: '<the host directories another container mounts>', raw: '<the host directories another container mounts>', isStatic: false, ansi: false };

export function containerMounts(name: string, args: readonly Word[], cwd: string | null): CommandPath[] {
  if (name !== 'docker' && name !== 'podman') return [];
  // The command: `run`/`create`, or `container run|create`, past the global options.
  let at = 0;
  while (at < args.length && args[at]!.isStatic && args[at]!.value.startsWith('-')) at += /^(?:-H|--host|-c|--context|--config|-l|--log-level|--tlscacert|--tlscert|--tlskey)$/.test(args[at]!.value) ? 2 : 1;
  if (args[at]?.isStatic && args[at]!.value === 'container') at++;
  if (!(args[at]?.isStatic && RUNS.has(args[at]!.value))) return [];
  const paths: CommandPath[] = [];
  const tree = (word: Word): void => {
    const path = pathOf(word, 'read', cwd, RECURSIVE);
    if (path) path.tree = { content: true, follows: true };
    pushPath(paths, path);
  };
  for (let i = at + 1; i < args.length; i++) {
    const word = args[i]!;
    if (!word.isStatic) continue;
    const value = word.value;
    if (!value.startsWith('-')) break; // the image: what follows is the container's command
    const pair = /^(-v|--volume|--mount)(?:=(.*))?$/.exec(value);
    // Two-word forms of the options taking a value (`-v SRC:DST`, `--cap-add ALL`, `--pid host`).
    const next = args[i + 1];
    if (HOST.test(value) || (/^--(?:cap-add|pid|ipc|userns|uts|cgroupns|device|device-cgroup-rule|security-opt)$/.test(value) && next?.isStatic && HOST.test(`${value}=${next.value}`))) tree(staticWord('/'));
    if (/^--volumes-from(?:=|$)/.test(value)) tree(unknownPlace);
    if (pair === null) {
      if (/^-[a-zA-Z]$|^--[\w-]+$/.test(value) && next !== undefined && !next.value.startsWith('-') && CONTAINER_TAKES_VALUE.test(value)) i++;
      continue;
    }
    const spec = pair[2] !== undefined ? { ...word, value: pair[2], raw: pair[2] } : args[++i];
    if (spec === undefined) continue;
    if (!spec.isStatic) {
      tree(spec); // known only at run time: asks
      continue;
    }
    const source = pair[1] === '--mount' ? (/(?:^|,)(?:source|src)=([^,]+)/.exec(spec.value)?.[1] ?? null) : spec.value.split(':')[0]!;
    if (pair[1] === '--mount' && !/(?:^|,)type=bind(?:,|$)/.test(spec.value)) continue;
    // A host path starts with `/`, `.` or `~`; another word is a named volume.
    if (source !== null && /^[/.~]/.test(source)) tree(staticWord(ENGINE_SOCKET.test(source) ? '/' : source));
  }
  return paths;
}

/** docker run's options that take the next word (docker run --help); a flag does not. */
export const CONTAINER_TAKES_VALUE = /^(?:-[aceghlmpuvw]|--(?:add-host|annotation|attach|blkio-weight|blkio-weight-device|cap-add|cap-drop|cgroup-parent|cgroupns|cidfile|cpu-period|cpu-quota|cpu-rt-period|cpu-rt-runtime|cpu-shares|cpus|cpuset-cpus|cpuset-mems|detach-keys|device|device-cgroup-rule|device-read-bps|device-read-iops|device-write-bps|device-write-iops|dns|dns-option|dns-search|domainname|entrypoint|env|env-file|expose|gpus|group-add|health-cmd|health-interval|health-retries|health-start-interval|health-start-period|health-timeout|hostname|ip|ip6|ipc|isolation|kernel-memory|label|label-file|link|link-local-ip|log-driver|log-opt|mac-address|memory|memory-reservation|memory-swap|memory-swappiness|mount|name|network|network-alias|oom-score-adj|pid|pids-limit|platform|publish|pull|restart|runtime|security-opt|shm-size|stop-signal|stop-timeout|storage-opt|sysctl|tmpfs|ulimit|user|userns|uts|volume|volume-driver|volumes-from|workdir))$/;
