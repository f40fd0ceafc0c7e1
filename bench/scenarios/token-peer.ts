import { readFileSync } from 'node:fs';
import type { ChildHandle } from '../lib/child-process.js';
import { type LoadGenerator, startLoadGenerator } from '../lib/load.js';
import type { LoadResult } from '../lib/load-plan.js';
import {
  type BenchDatabase,
  benchDatabase,
  type DatabaseKind,
  postgresMissing,
  profiled,
  startPlatform,
  stopPlatform,
} from '../lib/platform-process.js';
import { type Figure, figure, type Scenario, type ScenarioContext } from '../lib/scenario.js';
import { round } from '../lib/stats.js';
import { timingFor } from '../lib/timing.js';
import type { PreparedCodes } from '../processes/fixtures/authorization-codes.js';
import type { PeerCodes } from '../processes/oidc-peer-server.js';
import type { OAuthFormOptions } from '../processes/workloads/oauth-form.js';

const CODE_FIXTURES = new URL('../processes/fixtures/authorization-codes.ts', import.meta.url).href;
const PEER = new URL('../processes/oidc-peer-server.ts', import.meta.url);
const WORKLOAD = new URL('../processes/workloads/oauth-form.ts', import.meta.url).href;
const CONNECTIONS = 16;
/** Codes per second of load, warm-up included: above what 2 cores exchange, so none is reused (D31). */
const CODES_PER_SECOND = 8_000;

/** Busy CPU time of the whole machine so far (µs): /proc/stat, every CPU, all but idle and iowait. Linux only. */
function machineBusyMicros(): number | null {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    return ((total - idle) * 1_000_000) / 100;
  } catch {
    return null;
  }
}

/** Codes issued for one client, all bound to one PKCE verifier. */
interface Batch {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  codeVerifier: string;
  codes: string[];
}

interface Side {
  label: string;
  exchanges: LoadResult;
  refreshes: LoadResult;
  /** CPU µs of the server process per exchange and per refresh. */
  processCpuPerExchange: number | null;
  processCpuPerRefresh: number | null;
  machineCpuPerExchange: number | null;
}

/** Exchanges then refreshes against one server, with its process's and the machine's CPU over each. */
async function measureSide(
  ctx: ScenarioContext,
  generator: LoadGenerator,
  server: ChildHandle<{ port: number }>,
  label: string,
  path: string,
  exchangeCodes: Batch,
  refreshCodes: Batch,
): Promise<Side> {
  const timing = timingFor(ctx.mode);
  const origin = `http://127.0.0.1:${server.info.port}`;
  const run = async (mode: OAuthFormOptions['mode'], batch: Batch) => {
    const cpu0 = await server.call<number>('cpuMicros');
    const machine0 = machineBusyMicros();
    const result = await generator.run({
      origin,
      connections: CONNECTIONS,
      warmupMs: timing.warmupMs,
      durationMs: timing.durationMs,
      workload: {
        module: WORKLOAD,
        options: {
          mode,
          path,
          clientId: batch.clientId,
          clientSecret: batch.clientSecret,
          redirectUri: batch.redirectUri,
          codeVerifier: batch.codeVerifier,
          codes: batch.codes,
        } satisfies OAuthFormOptions,
      },
    });
    const cpu1 = await server.call<number>('cpuMicros');
    const machine1 = machineBusyMicros();
    // CPU spans the warm-up too: divide by every request answered in it, estimated from the measured rate.
    const answered = result.requestsPerSecond * ((timing.warmupMs + timing.durationMs) / 1000);
    const per = (micros: number) => (answered > 0 ? round(micros / answered, 0) : null);
    if (result.errors) ctx.notes.push(`${label} ${mode}: ${result.errors} errors (${result.firstError})`);
    return {
      result,
      processCpu: per(cpu1 - cpu0),
      machineCpu: machine0 === null || machine1 === null ? null : per(machine1 - machine0),
    };
  };
  ctx.log(`${label}: code exchanges`);
  const exchanges = await run('exchange', exchangeCodes);
  ctx.log(`${label}: refreshes`);
  const refreshes = await run('refresh', refreshCodes);
  return {
    label,
    exchanges: exchanges.result,
    refreshes: refreshes.result,
    processCpuPerExchange: exchanges.processCpu,
    processCpuPerRefresh: refreshes.processCpu,
    machineCpuPerExchange: exchanges.machineCpu,
  };
}

async function measureDialect(ctx: ScenarioContext, generator: LoadGenerator, kind: DatabaseKind): Promise<Figure[]> {
  const timing = timingFor(ctx.mode);
  const label = kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const codeCount = Math.ceil(((timing.warmupMs + timing.durationMs) / 1000) * CODES_PER_SECOND);

  // Feira first, then the peer, each on a fresh database of its own kind, one server running at a time.
  const feiraDb: BenchDatabase = await benchDatabase(ctx, kind, 'token-peer-feira');
  let feira: Side;
  try {
    const platform = await startPlatform(ctx, feiraDb, { fixtures: [CODE_FIXTURES] });
    try {
      ctx.log(`${label}: issuing ${codeCount} Feira codes`);
      const prepared = await platform.call<PreparedCodes>('issueCodes', { count: codeCount, pkce: true }, 600_000);
      const refresh = await platform.call<PreparedCodes>('issueCodes', { count: CONNECTIONS, pkce: true }, 60_000);
      // With FEIRA_BENCH_CPU_PROF, Feira's process is profiled over its exchanges and refreshes.
      feira = await profiled(ctx, platform, `token-peer-feira-${kind}`, () =>
        measureSide(
          ctx,
          generator,
          platform,
          `Feira (${label})`,
          '/oauth/token',
          { ...prepared, codeVerifier: prepared.codeVerifier as string },
          // Each issueCodes call registers a client of its own: the refresh chains use theirs.
          { ...refresh, codeVerifier: refresh.codeVerifier as string },
        ),
      );
    } finally {
      await stopPlatform(ctx, platform, `platform (${label})`);
    }
  } finally {
    await feiraDb.drop();
  }

  const peerDb: BenchDatabase = await benchDatabase(ctx, kind, 'token-peer-oidc-provider');
  let peer: Side;
  try {
    const server = await ctx.children.start<{ port: number }>(`node-oidc-provider (${label})`, PEER, {
      options: { databaseUrl: peerDb.url, ...(peerDb.searchPath ? { searchPath: peerDb.searchPath } : {}) },
      readyTimeoutMs: 60_000,
    });
    try {
      ctx.log(`${label}: issuing ${codeCount} node-oidc-provider codes`);
      const prepared = await server.call<PeerCodes>('issueCodes', { count: codeCount }, 600_000);
      const refresh = await server.call<PeerCodes>('issueCodes', { count: CONNECTIONS }, 60_000);
      peer = await measureSide(ctx, generator, server, `node-oidc-provider (${label})`, '/token', prepared, refresh);
    } finally {
      ctx.peakRssBytes[`node-oidc-provider (${label})`] = server.peakRss();
      await server.stop();
    }
  } finally {
    await peerDb.drop();
  }

  const peerRate = (name: string, r: LoadResult, unit: string) => ({ baseline: { name, value: r.requestsPerSecond, unit } });
  const atLeastPeer = (ours: LoadResult, theirs: LoadResult) => ({
    target: { text: '≥ 1.0× node-oidc-provider', met: ours.requestsPerSecond >= theirs.requestsPerSecond },
  });
  const ms = (name: string, value: number) => ({ baseline: { name, value, unit: 'ms' } });
  const cpu = (name: string, value: number | null) => (value === null ? {} : { baseline: { name, value, unit: 'µs' } });
  return [
    figure(`${label} Feira code exchanges`, feira.exchanges.requestsPerSecond, 'exchanges/s', {
      ...peerRate('node-oidc-provider', peer.exchanges, 'exchanges/s'),
      ...atLeastPeer(feira.exchanges, peer.exchanges),
    }),
    figure(
      `${label} Feira code exchange p50`,
      feira.exchanges.latency.p50Ms,
      'ms',
      ms('node-oidc-provider p50', peer.exchanges.latency.p50Ms),
    ),
    figure(
      `${label} Feira code exchange p99`,
      feira.exchanges.latency.p99Ms,
      'ms',
      ms('node-oidc-provider p99', peer.exchanges.latency.p99Ms),
    ),
    figure(`${label} Feira refreshes`, feira.refreshes.requestsPerSecond, 'refreshes/s', {
      ...peerRate('node-oidc-provider', peer.refreshes, 'refreshes/s'),
      ...atLeastPeer(feira.refreshes, peer.refreshes),
    }),
    figure(
      `${label} Feira refresh p50`,
      feira.refreshes.latency.p50Ms,
      'ms',
      ms('node-oidc-provider p50', peer.refreshes.latency.p50Ms),
    ),
    figure(
      `${label} Feira refresh p99`,
      feira.refreshes.latency.p99Ms,
      'ms',
      ms('node-oidc-provider p99', peer.refreshes.latency.p99Ms),
    ),
    figure(
      `${label} server process CPU per exchange`,
      feira.processCpuPerExchange,
      'µs',
      cpu('node-oidc-provider process', peer.processCpuPerExchange),
    ),
    figure(
      `${label} server process CPU per refresh`,
      feira.processCpuPerRefresh,
      'µs',
      cpu('node-oidc-provider process', peer.processCpuPerRefresh),
    ),
    figure(
      `${label} machine CPU per exchange`,
      feira.machineCpuPerExchange,
      'µs',
      cpu('node-oidc-provider', peer.machineCpuPerExchange),
    ),
  ];
}

/**
 * BENCHMARKS.md, "Token endpoint against node-oidc-provider" (D80): Feira's token endpoint and
 * node-oidc-provider configured like it (code + PKCE S256, ES256 JWT access tokens, rotating refresh
 * tokens, a durable adapter in the same database), one after the other in the same run, on the same wire
 * format (form bodies, client_secret_post, the PKCE verifier): exchanges/s and refreshes/s on 16
 * connections, p50/p99, and the CPU each server process and the machine spent per exchange.
 */
export const tokenPeer: Scenario = {
  id: 'token-peer',
  title: 'Token endpoint vs node-oidc-provider',
  async unavailable() {
    try {
      await import('oidc-provider');
    } catch {
      return 'node-oidc-provider is not installed (node peers/install.mjs installs the peers)';
    }
    return null;
  },
  async run(ctx) {
    ctx.notes.push(
      `${CONNECTIONS} connections, closed loop; Feira signs an ES256 access JWT and an HS256 refresh JWT per exchange and refresh, ` +
        'node-oidc-provider signs the access JWT and stores an opaque refresh token; both store the code, grant and refresh state in the database',
    );
    if (/^v20\./.test(process.version)) {
      ctx.notes.push(`node-oidc-provider supports Node 22 and later; it ran on ${process.version} with its warning`);
    }
    const generator = await startLoadGenerator(ctx.children);
    const figures: Figure[] = [];
    try {
      figures.push(...(await measureDialect(ctx, generator, 'sqlite')));
      const pgMissing = ctx.mode === 'quick' ? 'quick mode runs SQLite only' : await postgresMissing(ctx);
      if (pgMissing) ctx.notes.push(`PostgreSQL variant not run: ${pgMissing}`);
      else figures.push(...(await measureDialect(ctx, generator, 'postgres')));
    } finally {
      await generator.stop();
    }
    return figures;
  },
};
