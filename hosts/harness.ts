// The multi-host harness (docs/deploy.md, "The topology the harness proves"):
// a PostgreSQL host running a private cluster behind a delaying TCP proxy, two
// API hosts (`feira start --workers auto --no-dispatcher`), two dispatcher
// hosts (`feira dispatch`), a webhook receiver host and a seller quote host,
// each in a network namespace of its own (network.ts). `Hosts.start()` builds
// and starts everything; `stop()` tears it all down, also after a failure.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  appendFileSync,
  chownSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { type HostSpec, killNamespace, Network } from './network.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** The root of this build (the repository the harness runs from). */
export const THIS_BUILD = ROOT;
/** The `feira` command of the build in `root` (this one, or a previous release's: hosts/release.ts). */
const feiraIn = (root: string) => join(root, 'packages/cli/bin/feira.js');
const PROXY = join(ROOT, 'hosts/tcp-proxy.mjs');

/** Shared by every Feira process, through the environment (docs/deploy.md, "What processes must share"). */
export const SECRET_KEY = 'hosts-harness-secret-key-not-for-production';
export const ADMIN_TOKEN = 'hosts-harness-admin-token-0123456789';

export const API_HOSTS = ['api1', 'api2'] as const;
export const DISPATCHER_HOSTS = ['disp1', 'disp2'] as const;
export type FeiraHost = (typeof API_HOSTS)[number] | (typeof DISPATCHER_HOSTS)[number];

export const HOSTS: HostSpec[] = [
  { name: 'pg', octet: 10, nets: ['db'] },
  { name: 'api1', octet: 21, nets: ['db', 'svc'] },
  { name: 'api2', octet: 22, nets: ['db', 'svc'] },
  { name: 'disp1', octet: 31, nets: ['db', 'svc'] },
  { name: 'disp2', octet: 32, nets: ['db', 'svc'] },
  { name: 'receiver', octet: 41, nets: ['svc'] },
  { name: 'seller', octet: 51, nets: ['svc'] },
];

const PG_PORT = 5433;
const PROXY_PORT = 5432;
const PROXY_CONTROL_PORT = 9000;
const API_PORT = 8080;
const RECEIVER_PORT = 7001;
const SELLER_PORT = 7002;
/** Where each Feira host reaches the receiver and the seller: a forwarder on its own loopback (see `start`). */
export const RECEIVER_URL = `http://127.0.0.1:${RECEIVER_PORT}/hooks`;
export const SELLER_QUOTE_URL = `http://127.0.0.1:${SELLER_PORT}/quote`;

/** Debian's PostgreSQL server binaries, newest version first. */
function postgresBin(): string {
  const base = '/usr/lib/postgresql';
  const versions = readdirSync(base)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error(`no PostgreSQL server under ${base}`);
  return join(base, versions[0], 'bin');
}

export async function waitUntil<T>(what: string, deadlineMs: number, probe: () => Promise<T | undefined | false>): Promise<T> {
  const end = performance.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (performance.now() > end) throw new Error(`${what}: not within ${deadlineMs} ms${last ? ` (${String(last)})` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Running {
  child: ChildProcess;
  log: string;
}

export class Hosts {
  readonly network: Network;
  readonly dir: string;
  readonly #running = new Map<string, Running>();
  readonly #pgBin = postgresBin();
  readonly #pgData: string;
  /** The build each Feira host runs (its root folder), and the one a host starts with unless told. */
  readonly #builds = new Map<FeiraHost, string>();
  readonly #defaultBuild: string;

  private constructor(network: Network, dir: string, build: string) {
    this.network = network;
    this.dir = dir;
    this.#pgData = join(dir, 'pgdata');
    this.#defaultBuild = build;
  }

  /**
   * Builds the hosts and starts every process, in the order docs/deploy.md gives; tears down on failure.
   * `build` is the root of the Feira build every host starts with (default: this one).
   */
  static async start(options: { build?: string } = {}): Promise<Hosts> {
    const network = Network.build(HOSTS);
    const dir = mkdtempSync(join(tmpdir(), 'feira-h-'));
    const hosts = new Hosts(network, dir, options.build ?? ROOT);
    try {
      await hosts.#startAll();
      return hosts;
    } catch (error) {
      const logs = hosts.logTails();
      await hosts.stop();
      throw new Error(`${(error as Error).message}\n${logs}`);
    }
  }

  /** The database URL every Feira host uses: through the delaying proxy on the PostgreSQL host. */
  get databaseUrl(): string {
    return `postgres://postgres@${this.network.address('pg', 'db')}:${PROXY_PORT}/feira`;
  }

  /** The same database reached directly (no added delay), for the test's own checks. */
  get directDatabaseUrl(): string {
    return `postgres://postgres@${this.network.address('pg', 'db')}:${PG_PORT}/feira`;
  }

  apiOrigin(host: (typeof API_HOSTS)[number]): string {
    return `http://${this.network.address(host, 'svc')}:${API_PORT}`;
  }

  /** Every API host answers for this one public URL, as behind a load balancer. */
  get publicUrl(): string {
    return this.apiOrigin('api1');
  }

  get receiverOrigin(): string {
    return `http://${this.network.address('receiver', 'svc')}:${RECEIVER_PORT}`;
  }

  get sellerOrigin(): string {
    return `http://${this.network.address('seller', 'svc')}:${SELLER_PORT}`;
  }

  /** Sets the round trip the proxy adds to every exchange with PostgreSQL. */
  async setDatabaseDelay(ms: number): Promise<void> {
    const res = await request(`http://${this.network.address('pg', 'db')}:${PROXY_CONTROL_PORT}/delay?ms=${ms}`, {
      method: 'PUT',
    });
    if (res.statusCode !== 200) throw new Error(`proxy delay: HTTP ${res.statusCode}`);
    await res.body.dump();
  }

  /** Runs `command` inside host `host`'s namespace, detached (its own process group), output to a log file. */
  #spawn(key: string, host: string, command: string[], env: Record<string, string> = {}): ChildProcess {
    const log = join(this.dir, `${key}.log`);
    const fd = openSync(log, 'a');
    const child = spawn('ip', ['netns', 'exec', this.network.namespace(host), ...command], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/root', ...env },
      stdio: ['ignore', fd, fd],
      detached: true,
    });
    closeSync(fd);
    this.#running.set(key, { child, log });
    return child;
  }

  #log(key: string): string {
    const running = this.#running.get(key);
    if (!running) return '';
    try {
      return readFileSync(running.log, 'utf8');
    } catch {
      return '';
    }
  }

  /** The last lines each process wrote (for a failure's message). */
  logTails(lines = 15): string {
    return [...this.#running.keys()]
      .map((key) => `--- ${key} ---\n${this.#log(key).split('\n').slice(-lines).join('\n')}`)
      .join('\n');
  }

  async #waitForLine(key: string, pattern: RegExp, deadlineMs = 60_000): Promise<void> {
    await waitUntil(`${key}: ${pattern}`, deadlineMs, async () => {
      const running = this.#running.get(key);
      if (running && running.child.exitCode !== null) throw new Error(`${key} exited (${running.child.exitCode})`);
      return pattern.test(this.#log(key));
    });
  }

  #pgCtl(args: string[]): void {
    execFileSync(
      'ip',
      ['netns', 'exec', this.network.namespace('pg'), 'runuser', '-u', 'postgres', '--', join(this.#pgBin, 'pg_ctl'), ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
    );
  }

  /** Starts the private cluster: listening on the PostgreSQL host's address only, as the postgres user (initdb refuses root). */
  startPostgres(): void {
    const options = [
      `-c listen_addresses=${this.network.address('pg', 'db')}`,
      `-p ${PG_PORT}`,
      `-c unix_socket_directories=${this.#pgData}`,
      '-c max_connections=300',
    ].join(' ');
    this.#pgCtl(['-D', this.#pgData, '-l', join(this.dir, 'postgres.log'), '-o', options, '-w', '-t', '60', 'start']);
  }

  /** Restarts PostgreSQL (a fast shutdown: every connection cut), as a host restart would. */
  restartPostgres(): void {
    this.#pgCtl(['-D', this.#pgData, '-m', 'fast', '-w', '-t', '60', 'stop']);
    this.startPostgres();
  }

  async #startAll(): Promise<void> {
    const { network } = this;
    // The PostgreSQL host: a private cluster in a folder of the postgres user's.
    mkdirSync(this.#pgData, { mode: 0o700 });
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(this.dir, uid, gid);
    chownSync(this.#pgData, uid, gid);
    execFileSync(
      'runuser',
      [
        '-u',
        'postgres',
        '--',
        join(this.#pgBin, 'initdb'),
        '-D',
        this.#pgData,
        '-U',
        'postgres',
        '--auth=trust',
        '-E',
        'UTF8',
        '--no-sync',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // Trust only the database network the harness made (the hosts and the test runner on it).
    appendFileSync(join(this.#pgData, 'pg_hba.conf'), `host all all ${network.subnet('db')}.0/24 trust\n`);
    this.startPostgres();
    const pgAddress = network.address('pg', 'db');
    execFileSync(
      'ip',
      [
        'netns',
        'exec',
        network.namespace('pg'),
        join(this.#pgBin, 'createdb'),
        '-h',
        pgAddress,
        '-p',
        String(PG_PORT),
        '-U',
        'postgres',
        'feira',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.#spawn('proxy', 'pg', [
      process.execPath,
      PROXY,
      `${pgAddress}:${PROXY_PORT}`,
      `${pgAddress}:${PG_PORT}`,
      `${pgAddress}:${PROXY_CONTROL_PORT}`,
    ]);
    this.#spawn('receiver', 'receiver', [
      process.execPath,
      join(ROOT, 'hosts/receiver.mjs'),
      `${network.address('receiver', 'svc')}:${RECEIVER_PORT}`,
    ]);
    this.#spawn('seller', 'seller', [
      process.execPath,
      join(ROOT, 'hosts/seller.mjs'),
      `${network.address('seller', 'svc')}:${SELLER_PORT}`,
    ]);
    // Feira refuses private addresses for outbound calls (spec-notes W9) and allows loopback in sandbox mode: each
    // Feira host reaches the receiver and the seller through a forwarder on its own loopback, as through an egress proxy.
    for (const host of [...API_HOSTS, ...DISPATCHER_HOSTS]) {
      this.#spawn(`${host}-to-receiver`, host, [
        process.execPath,
        PROXY,
        `127.0.0.1:${RECEIVER_PORT}`,
        `${network.address('receiver', 'svc')}:${RECEIVER_PORT}`,
      ]);
      this.#spawn(`${host}-to-seller`, host, [
        process.execPath,
        PROXY,
        `127.0.0.1:${SELLER_PORT}`,
        `${network.address('seller', 'svc')}:${SELLER_PORT}`,
      ]);
    }
    for (const key of ['proxy', 'receiver', 'seller']) await this.#waitForLine(key, /ready/);
    for (const host of [...API_HOSTS, ...DISPATCHER_HOSTS]) {
      await this.#waitForLine(`${host}-to-receiver`, /ready/);
      await this.#waitForLine(`${host}-to-seller`, /ready/);
    }
    // Start order (docs/deploy.md): one process first on the empty database, then the rest.
    await this.startFeira('api1');
    await Promise.all([this.startFeira('api2'), this.startFeira('disp1'), this.startFeira('disp2')]);
  }

  /** The root of the build a host runs (or last ran). */
  buildOf(host: FeiraHost): string {
    return this.#builds.get(host) ?? this.#defaultBuild;
  }

  /** Starts Feira on a host as docs/deploy.md says (from `build`, default the hosts' own), and waits until it is ready. */
  async startFeira(host: FeiraHost, build = this.#defaultBuild): Promise<void> {
    this.#builds.set(host, build);
    const feira = feiraIn(build);
    const env = { FEIRA_SECRET_KEY: SECRET_KEY, FEIRA_ADMIN_TOKEN: ADMIN_TOKEN, FEIRA_DATABASE: this.databaseUrl };
    const dataDir = join(this.dir, `data-${host}`);
    mkdirSync(dataDir, { recursive: true });
    const common = ['--data-dir', dataDir, '--log-level', 'warn', '--api-rate-limit', '100000', '--api-burst', '1000000'];
    if (host === 'api1' || host === 'api2') {
      this.#spawn(
        host,
        host,
        [
          process.execPath,
          feira,
          'start',
          '--workers',
          'auto',
          '--no-dispatcher',
          '--host',
          this.network.address(host, 'svc'),
          '--port',
          String(API_PORT),
          '--public-url',
          this.publicUrl,
          '--seed',
          'none',
          // Plain HTTP between hosts, TLS ending in front of them as docs/deploy.md puts it; the sandbox's
          // own HTTPS (its data folder's CA) is for one machine.
          '--http',
          ...common,
        ],
        env,
      );
      await waitUntil(`${host} /health/ready`, 180_000, async () => {
        const running = this.#running.get(host);
        if (running && running.child.exitCode !== null) throw new Error(`${host} exited (${running.child.exitCode})`);
        const res = await request(`${this.apiOrigin(host)}/health/ready`, { headersTimeout: 2_000, bodyTimeout: 2_000 });
        await res.body.dump();
        return res.statusCode === 200;
      });
    } else {
      this.#spawn(host, host, [process.execPath, feira, 'dispatch', '--data-dir', dataDir], env);
      await this.#waitForLine(host, /Dispatching webhooks/, 180_000);
    }
  }

  /** Stops Feira on a host: SIGTERM (it finishes what it holds), SIGKILL after `graceMs`. */
  async stopFeira(host: FeiraHost, graceMs = 30_000): Promise<void> {
    const running = this.#running.get(host);
    if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
    const pid = running.child.pid as number;
    const exited = new Promise((resolve) => running.child.once('exit', resolve));
    process.kill(-pid, 'SIGTERM');
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }, graceMs);
    await exited;
    clearTimeout(timer);
    // A cluster's workers are in the process group: none may outlive the primary.
    await waitUntil(`${host}'s processes gone`, graceMs, async () => {
      try {
        process.kill(-pid, 0);
        return false;
      } catch {
        return true;
      }
    });
  }

  /** Freezes every process of a Feira host (SIGSTOP to its process group), as a stalled host. */
  pause(host: FeiraHost): void {
    const pid = this.#running.get(host)?.child.pid;
    if (pid) process.kill(-pid, 'SIGSTOP');
  }

  resume(host: FeiraHost): void {
    const pid = this.#running.get(host)?.child.pid;
    if (pid) process.kill(-pid, 'SIGCONT');
  }

  /** Tears everything down: processes (the namespaces' every pid), PostgreSQL, namespaces, veths, bridges, folders. */
  async stop(): Promise<void> {
    for (const { child } of this.#running.values()) {
      try {
        if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone.
      }
    }
    for (const host of this.network.hosts.keys()) killNamespace(this.network.namespace(host));
    this.network.destroy();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
