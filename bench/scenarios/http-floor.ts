import { runLoad } from '../lib/load.js';
import { benchDatabase, startPlatform, stopPlatform } from '../lib/platform-process.js';
import { figure, type Scenario } from '../lib/scenario.js';
import { timingFor } from '../lib/timing.js';

const CONSTANT_SERVER = new URL('../processes/constant-server.ts', import.meta.url);
const CONNECTIONS = 32;

/**
 * The HTTP floor: a bare Fastify route returning a constant (the baseline the
 * list API is compared with), and the platform's own `GET /health` (the whole
 * app: its hooks, request ids, one tiny query) against it.
 */
export const httpFloor: Scenario = {
  id: 'http-floor',
  title: 'HTTP floor (Fastify constant route)',
  async unavailable() {
    return null;
  },
  async run(ctx) {
    const timing = timingFor(ctx.mode);
    const plan = (origin: string, path: string) => ({
      origin,
      connections: CONNECTIONS,
      warmupMs: timing.warmupMs,
      durationMs: timing.durationMs,
      requests: [{ method: 'GET' as const, path }],
    });
    const constant = await ctx.children.start<{ port: number }>('fastify constant', CONSTANT_SERVER);
    const floor = await runLoad(ctx.children, plan(`http://127.0.0.1:${constant.info.port}`, '/constant'));
    ctx.peakRssBytes['fastify constant'] = constant.peakRss();
    await constant.stop();

    const database = await benchDatabase(ctx, 'sqlite', 'http-floor');
    const platform = await startPlatform(ctx, database);
    const health = await runLoad(ctx.children, plan(platform.origin, '/health'));
    await stopPlatform(ctx, platform, 'platform (sqlite)');
    ctx.notes.push(`${CONNECTIONS} connections, closed loop`);
    if (floor.errors || health.errors)
      ctx.notes.push(`errors: constant ${floor.errors}, health ${health.errors} (${health.firstError ?? floor.firstError})`);

    const base = (name: string, value: number, unit: string) => ({ baseline: { name, value, unit } });
    return [
      figure('Fastify constant route', floor.requestsPerSecond, 'req/s'),
      figure('Fastify constant route p50', floor.latency.p50Ms, 'ms'),
      figure('Fastify constant route p99', floor.latency.p99Ms, 'ms'),
      figure(
        'platform GET /health (SQLite)',
        health.requestsPerSecond,
        'req/s',
        base('constant route', floor.requestsPerSecond, 'req/s'),
      ),
      figure('platform GET /health p50', health.latency.p50Ms, 'ms', base('constant route p50', floor.latency.p50Ms, 'ms')),
      figure('platform GET /health p99', health.latency.p99Ms, 'ms', base('constant route p99', floor.latency.p99Ms, 'ms')),
    ];
  },
};
