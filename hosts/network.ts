// Test hosts of the harness's own: one network namespace per host, two
// bridges (the database network and the service network) in the root
// namespace, a veth pair per host and network. Only addresses inside
// 10.251.0.0/16 that this file assigns, on links it made, are ever used; the
// root namespace (where the test runs: the clients and the operator) takes .1
// on each bridge. Needs root and iproute2; nothing here falls back to loopback.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/** Every name this harness makes starts with this, so a sweep never touches anything else. */
export const PREFIX = 'feira-h-';
const LOCK_DIR = '/run';

export type Net = 'db' | 'svc';

export interface HostSpec {
  name: string;
  /** The last octet of its address on each network it is on. */
  octet: number;
  nets: Net[];
}

export function ip(args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function tryIp(args: string[]): void {
  try {
    ip(args);
  } catch {
    // Already gone.
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills every process inside namespace `ns` (they are the harness's own: it started everything there). */
export function killNamespace(ns: string): void {
  let pids: string[] = [];
  try {
    pids = ip(['netns', 'pids', ns]).split('\n').filter(Boolean);
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Exited meanwhile.
    }
  }
}

export class Network {
  readonly id: number;
  readonly hosts: Map<string, HostSpec>;
  readonly #lock: string;

  private constructor(id: number, hosts: HostSpec[], lock: string) {
    this.id = id;
    this.hosts = new Map(hosts.map((h) => [h.name, h]));
    this.#lock = lock;
  }

  /** The third octet of a network: 10.251.<2·id>.0/24 for the database, 10.251.<2·id+1>.0/24 for services. */
  subnet(net: Net): string {
    return `10.251.${net === 'db' ? 2 * this.id : 2 * this.id + 1}`;
  }

  address(host: string, net: Net): string {
    const spec = this.hosts.get(host);
    if (!spec?.nets.includes(net)) throw new Error(`host ${host} is not on the ${net} network`);
    return `${this.subnet(net)}.${spec.octet}`;
  }

  /** The root namespace's address on a network (where the test's clients run). */
  rootAddress(net: Net): string {
    return `${this.subnet(net)}.1`;
  }

  namespace(host: string): string {
    return `${PREFIX}${this.id}-${host}`;
  }

  bridge(net: Net): string {
    return `${PREFIX}${this.id}${net === 'db' ? 'd' : 's'}`;
  }

  /** The root-side end of a host's veth on a network (15 characters at most). */
  #rootEnd(host: string, net: Net): string {
    return `fh${this.id}${host.slice(0, 8)}${net === 'db' ? 'd' : 's'}`;
  }

  /**
   * Builds the hosts. Throws, saying why, when namespaces cannot be made (not root, no iproute2, a kernel
   * without network namespaces): the caller fails rather than testing on loopback.
   */
  static build(hosts: HostSpec[]): Network {
    if (process.getuid?.() !== 0)
      throw new Error('the multi-host harness needs root (ip netns add); it does not fall back to loopback');
    Network.sweep();
    // A free id: no lock file and no bridge of that number (another engineer's run may hold one).
    let id = -1;
    let lock = '';
    for (let candidate = 1 + (process.pid % 100); candidate < 1 + (process.pid % 100) + 100; candidate++) {
      const n = ((candidate - 1) % 100) + 1;
      const file = `${LOCK_DIR}/${PREFIX}${n}.lock`;
      try {
        writeFileSync(file, String(process.pid), { flag: 'wx' });
      } catch {
        continue;
      }
      id = n;
      lock = file;
      break;
    }
    if (id < 0) throw new Error('no free harness network id (100 runs hold one?)');
    const network = new Network(id, hosts, lock);
    try {
      network.#create();
    } catch (error) {
      network.destroy();
      throw new Error(`cannot build the test hosts (network namespaces, veth, bridges): ${(error as Error).message}`);
    }
    return network;
  }

  #create(): void {
    for (const net of ['db', 'svc'] as const) {
      const br = this.bridge(net);
      ip(['link', 'add', br, 'type', 'bridge']);
      ip(['addr', 'add', `${this.rootAddress(net)}/24`, 'dev', br]);
      ip(['link', 'set', br, 'up']);
    }
    for (const host of this.hosts.values()) {
      const ns = this.namespace(host.name);
      ip(['netns', 'add', ns]);
      ip(['-n', ns, 'link', 'set', 'lo', 'up']);
      for (const net of host.nets) {
        const outside = this.#rootEnd(host.name, net);
        const inside = `${net}0`;
        ip(['link', 'add', outside, 'type', 'veth', 'peer', 'name', inside, 'netns', ns]);
        ip(['link', 'set', outside, 'master', this.bridge(net)]);
        ip(['link', 'set', outside, 'up']);
        ip(['-n', ns, 'addr', 'add', `${this.address(host.name, net)}/24`, 'dev', inside]);
        ip(['-n', ns, 'link', 'set', inside, 'up']);
      }
    }
  }

  /**
   * Cuts a host's link to a network without telling it: its end stays up, the bridge no longer carries its
   * frames, so its packets vanish and its connections hang as across a real partition.
   */
  cut(host: string, net: Net): void {
    ip(['link', 'set', this.#rootEnd(host, net), 'nomaster']);
  }

  heal(host: string, net: Net): void {
    ip(['link', 'set', this.#rootEnd(host, net), 'master', this.bridge(net)]);
  }

  /** Kills every process in the hosts, deletes namespaces, veths and bridges. Safe to call twice. */
  destroy(): void {
    for (const host of this.hosts.keys()) killNamespace(this.namespace(host));
    for (const host of this.hosts.values()) {
      for (const net of host.nets) tryIp(['link', 'del', this.#rootEnd(host.name, net)]);
      tryIp(['netns', 'del', this.namespace(host.name)]);
    }
    for (const net of ['db', 'svc'] as const) tryIp(['link', 'del', this.bridge(net)]);
    rmSync(this.#lock, { force: true });
  }

  /** Removes what an earlier run of this harness left behind when its process died (its lock's pid is gone). */
  static sweep(): void {
    if (!existsSync(LOCK_DIR)) return;
    for (const file of readdirSync(LOCK_DIR)) {
      const match = new RegExp(`^${PREFIX}(\\d+)\\.lock$`).exec(file);
      if (!match) continue;
      const pid = Number(readFileSync(`${LOCK_DIR}/${file}`, 'utf8'));
      if (alive(pid)) continue;
      const id = match[1];
      const namespaces = ip(['netns', 'list'])
        .split('\n')
        .map((line) => line.split(' ')[0] ?? '')
        .filter((ns) => ns.startsWith(`${PREFIX}${id}-`));
      for (const ns of namespaces) {
        killNamespace(ns);
        tryIp(['netns', 'del', ns]);
      }
      const links = ip(['-o', 'link', 'show'])
        .split('\n')
        .map((line) => /^\d+: ([^:@]+)/.exec(line)?.[1] ?? '')
        .filter((name) => new RegExp(`^fh${id}[a-z]`).test(name) || name === `${PREFIX}${id}d` || name === `${PREFIX}${id}s`);
      for (const link of links) tryIp(['link', 'del', link]);
      rmSync(`${LOCK_DIR}/${file}`, { force: true });
    }
  }
}
