// A same-run A/B of two builds of the platform on the read path, for finding a regression one cause at a
// time on a shared, noisy host. Both builds run as processes of their own over one seeded database; the
// load generator alternates short slices between them (A B, B A, A B …), and each slice reports the API's
// p50 on one connection and the platform's CPU time per request (process.cpuUsage, user + system), which
// a busy neighbour moves far less than a wall-clock figure. The verdict is the median of the per-round
// ratios B ÷ A.
//
//   cp -r packages/platform/dist <snapshot dir>/before/dist   # snapshot the build before a change
//   (edit, npm run build)
//   node --import tsx bench/tools/ab.ts --a <snapshot dir>/before/dist --b current --case cursor1
//
// --a/--b: `current` (packages/platform/dist through @feira/platform) or a snapshot directory holding
// index.js, whose node_modules resolve to the repository's. --db sqlite|postgres,
// --orders N (default 20,000), --rounds N (6), --slice ms (1500), --connections N (1),
// --case cursor1|offset1|record|all (cursor1), --profile <file.cpuprofile>: a V8 CPU profile of B over
// the whole comparison (its idle time while A is measured shows as idle).
//
// The token endpoint: --case exchange|refresh|tokens (both), the token-peer scenario's requests (form
// bodies, client_secret_post, PKCE; a refresh slice runs one rotation chain per connection), with fresh
// codes for every slice; no orders are seeded. Use --connections 16, as token-peer does.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { ChildRegistry } from '../lib/child-process.js';
import { DEFAULT_POSTGRES_URL } from '../lib/cli-options.js';
import { startLoadGenerator } from '../lib/load.js';
import { createScratchSchema } from '../lib/postgres-schema.js';
import { percentile } from '../lib/stats.js';
import type { PreparedCodes } from '../processes/fixtures/authorization-codes.js';
import type { OAuthFormOptions } from '../processes/workloads/oauth-form.js';

const { values } = parseArgs({
  options: {
    a: { type: 'string', default: 'current' },
    b: { type: 'string', default: 'current' },
    db: { type: 'string', default: 'sqlite' },
    orders: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '6' },
    slice: { type: 'string', default: '1500' },
    connections: { type: 'string', default: '1' },
    case: { type: 'string', default: 'cursor1' },
    postgres: { type: 'string' },
    profile: { type: 'string' },
  },
});

const SERVER = new URL('../processes/platform-server.ts', import.meta.url);
const SEEDER = new URL('../processes/list-seeder.ts', import.meta.url);
const SELLER_ACCESS = new URL('../processes/fixtures/seller-access.ts', import.meta.url).href;
const CODE_FIXTURES = new URL('../processes/fixtures/authorization-codes.ts', import.meta.url).href;
const OAUTH_FORM = new URL('../processes/workloads/oauth-form.ts', import.meta.url).href;
const TOKEN_CASES = ['exchange', 'refresh'];
/** Codes one exchange slice may use (warm-up included): above what 2 cores exchange in a slice. */
const CODES_PER_SECOND = 2_500;
const BASE = '/v1/orders?status=approved&_sort=created_at:desc&_limit=20';

function moduleOf(spec: string): string | undefined {
  return spec === 'current' ? undefined : pathToFileURL(join(resolve(spec), 'index.js')).href;
}

const children = new ChildRegistry();
process.on('exit', () => children.killAllNow());
const scratch = mkdtempSync(join(tmpdir(), 'feira-ab-'));
const chosen =
  values.case === 'all' ? ['cursor1', 'offset1', 'record'] : values.case === 'tokens' ? TOKEN_CASES : [values.case as string];
const tokenCases = chosen.every((name) => TOKEN_CASES.includes(name));
if (!tokenCases && chosen.some((name) => TOKEN_CASES.includes(name))) throw new Error('token and list cases run apart');
const schemas: Array<{ drop(): Promise<void> }> = [];
try {
  // Each build gets its own database, seeded by its own seedRecords: builds of other commits may hold
  // other migrations. The same orders count and the same filters give pages of the same shape.
  const start = async (side: string, spec: string) => {
    const platformModule = moduleOf(spec);
    const pg =
      values.db === 'postgres'
        ? await createScratchSchema(values.postgres ?? process.env.FEIRA_TEST_DATABASE_URL ?? DEFAULT_POSTGRES_URL)
        : null;
    if (pg) schemas.push(pg);
    const where = {
      databaseUrl: pg ? pg.url : `sqlite:${join(scratch, `${side}.db`)}`,
      ...(pg ? { searchPath: pg.schema } : {}),
      ...(platformModule ? { platformModule } : {}),
    };
    if (tokenCases) {
      // The token endpoint needs no orders: a client, a seller and codes, issued by the fixture.
      const handle = await children.start<{ port: number }>(`platform ${side}`, SERVER, {
        options: { ...where, fixtures: [CODE_FIXTURES] },
        readyTimeoutMs: 60_000,
      });
      return Object.assign(handle, { origin: `http://127.0.0.1:${handle.info.port}`, accessToken: '' });
    }
    const seeder = await children.start('seeder', SEEDER, { options: where });
    const seeded = await seeder.call<{ tenantId: string }>('seedOrders', { orders: Number(values.orders) }, 600_000);
    await seeder.stop();
    const handle = await children.start<{ port: number }>(`platform ${side}`, SERVER, {
      options: { ...where, fixtures: [SELLER_ACCESS] },
      readyTimeoutMs: 60_000,
    });
    const { accessToken } = await handle.call<{ accessToken: string }>('createSellerAccess', {
      scopes: ['open:order-order:read'],
      tenantId: seeded.tenantId,
    });
    return Object.assign(handle, { origin: `http://127.0.0.1:${handle.info.port}`, accessToken });
  };
  const a = await start('A', values.a as string);
  const b = await start('B', values.b as string);
  const headersOf = (target: typeof a) => ({ authorization: `Bearer ${target.accessToken}` });
  const sliceMs = Number(values.slice);
  const connections = Number(values.connections);
  if (tokenCases) {
    await compareTokenCases(a, b, chosen, sliceMs, connections);
  } else {
    const firstIdOf = async (target: typeof a) => {
      const first = await request(`${target.origin}${BASE}&_paginate=cursor`, { headers: headersOf(target) });
      return ((await first.body.json()) as { results: Array<{ id: string }> }).results[0]?.id as string;
    };
    const recordIds = new Map([
      [a, await firstIdOf(a)],
      [b, await firstIdOf(b)],
    ]);
    const pathOf = (name: string, target: typeof a): string | undefined =>
      ({ cursor1: `${BASE}&_paginate=cursor`, offset1: BASE, record: `/v1/orders/${recordIds.get(target)}` })[name];
    const generator = await startLoadGenerator(children);
    for (const name of chosen) {
      const path = pathOf(name, a);
      if (!path) throw new Error(`unknown case ${name}`);
      for (const target of [a, b]) {
        const probe = await request(`${target.origin}${pathOf(name, target)}`, { headers: headersOf(target) });
        const body = await probe.body.text();
        if (probe.statusCode !== 200) throw new Error(`${target.role}: HTTP ${probe.statusCode} ${body.slice(0, 200)}`);
      }
      const ratios = { p50: [] as number[], cpu: [] as number[], rps: [] as number[] };
      console.log(`\n${name}: ${path} (${connections} connection(s), ${sliceMs} ms slices, ${values.db})`);
      console.log('round  A p50 ms  A cpu µs/req  A req/s | B p50 ms  B cpu µs/req  B req/s | B/A p50  B/A cpu');
      if (values.profile) await b.call('profileStart');
      for (let round = 0; round < Number(values.rounds); round++) {
        const order = round % 2 === 0 ? [a, b] : [b, a];
        const got = new Map<unknown, { p50: number; cpu: number; rps: number }>();
        for (const target of order) {
          const cpu0 = await target.call<number>('cpuMicros');
          const result = await generator.run({
            origin: target.origin,
            connections,
            warmupMs: 300,
            durationMs: sliceMs,
            requests: [{ method: 'GET', path: pathOf(name, target) as string, headers: headersOf(target) }],
          });
          const cpu1 = await target.call<number>('cpuMicros');
          if (result.errors) throw new Error(`${target.role}: ${result.errors} errors (${result.firstError})`);
          // CPU over the whole slice (warm-up included) ÷ every request the slice answered.
          const answered = result.requests / (sliceMs / (sliceMs + 300));
          got.set(target, { p50: result.latency.p50Ms, cpu: (cpu1 - cpu0) / answered, rps: result.requestsPerSecond });
        }
        const ga = got.get(a) as { p50: number; cpu: number; rps: number };
        const gb = got.get(b) as { p50: number; cpu: number; rps: number };
        ratios.p50.push(gb.p50 / ga.p50);
        ratios.cpu.push(gb.cpu / ga.cpu);
        ratios.rps.push(gb.rps / ga.rps);
        const f = (n: number, d = 3) => n.toFixed(d).padStart(8);
        console.log(
          `${String(round + 1).padStart(5)} ${f(ga.p50)} ${f(ga.cpu, 0).padStart(13)} ${f(ga.rps, 0)} | ${f(gb.p50)} ${f(gb.cpu, 0).padStart(13)} ${f(gb.rps, 0)} | ${f(gb.p50 / ga.p50)} ${f(gb.cpu / ga.cpu)}`,
        );
      }
      if (values.profile) {
        const file = resolve(
          chosen.length > 1 ? values.profile.replace(/(\.cpuprofile)?$/, `-${name}.cpuprofile`) : values.profile,
        );
        await b.call('profileStop', { file });
        console.log(`profile of B: ${file}`);
      }
      const med = (xs: number[]) => percentile(Float64Array.from(xs).sort(), 50);
      const span = (xs: number[]) => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;
      console.log(
        `median B/A: p50 ${med(ratios.p50).toFixed(3)} (${span(ratios.p50)}), CPU per request ${med(ratios.cpu).toFixed(3)} (${span(ratios.cpu)}), req/s ${med(ratios.rps).toFixed(3)}`,
      );
    }
    await generator.stop();
  }
} finally {
  await children.stopAll();
  for (const schema of schemas) await schema.drop();
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);

interface TokenTarget {
  role: string;
  origin: string;
  call<T>(operation: string, args?: unknown, timeoutMs?: number): Promise<T>;
}

/**
 * The token endpoint, A against B in alternating slices: every slice gets codes of its own (a code is
 * used once), issued before the comparison starts so issuing costs no slice anything.
 */
async function compareTokenCases(a: TokenTarget, b: TokenTarget, cases: string[], sliceMs: number, connections: number) {
  const rounds = Number(values.rounds);
  const perSlice = Math.ceil(((sliceMs + 300) / 1000) * CODES_PER_SECOND);
  const batches = new Map<TokenTarget, Map<string, PreparedCodes[]>>();
  for (const target of [a, b]) {
    const byCase = new Map<string, PreparedCodes[]>();
    for (const name of cases) {
      const slices: PreparedCodes[] = [];
      for (let round = 0; round < rounds; round++) {
        const count = name === 'exchange' ? perSlice : connections;
        slices.push(await target.call<PreparedCodes>('issueCodes', { count, pkce: true }, 600_000));
      }
      byCase.set(name, slices);
    }
    batches.set(target, byCase);
  }
  const generator = await startLoadGenerator(children);
  const med = (xs: number[]) => percentile(Float64Array.from(xs).sort(), 50);
  const span = (xs: number[]) => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;
  for (const name of cases) {
    const ratios = { p50: [] as number[], cpu: [] as number[], rps: [] as number[] };
    console.log(`\n${name}: POST /oauth/token (${connections} connection(s), ${sliceMs} ms slices, ${values.db})`);
    console.log('round  A p50 ms  A cpu µs/req  A req/s | B p50 ms  B cpu µs/req  B req/s | B/A p50  B/A cpu  B/A req/s');
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [a, b] : [b, a];
      const got = new Map<TokenTarget, { p50: number; cpu: number; rps: number }>();
      for (const target of order) {
        const batch = batches.get(target)?.get(name)?.[round] as PreparedCodes;
        const cpu0 = await target.call<number>('cpuMicros');
        const result = await generator.run({
          origin: target.origin,
          connections,
          warmupMs: 300,
          durationMs: sliceMs,
          workload: {
            module: OAUTH_FORM,
            options: {
              mode: name as OAuthFormOptions['mode'],
              path: '/oauth/token',
              clientId: batch.clientId,
              clientSecret: batch.clientSecret,
              redirectUri: batch.redirectUri,
              codeVerifier: batch.codeVerifier as string,
              codes: batch.codes,
            } satisfies OAuthFormOptions,
          },
        });
        const cpu1 = await target.call<number>('cpuMicros');
        if (result.errors) throw new Error(`${target.role} ${name}: ${result.errors} errors (${result.firstError})`);
        const answered = result.requests / (sliceMs / (sliceMs + 300));
        got.set(target, { p50: result.latency.p50Ms, cpu: (cpu1 - cpu0) / answered, rps: result.requestsPerSecond });
      }
      const ga = got.get(a) as { p50: number; cpu: number; rps: number };
      const gb = got.get(b) as { p50: number; cpu: number; rps: number };
      ratios.p50.push(gb.p50 / ga.p50);
      ratios.cpu.push(gb.cpu / ga.cpu);
      ratios.rps.push(gb.rps / ga.rps);
      const f = (n: number, d = 3) => n.toFixed(d).padStart(8);
      console.log(
        `${String(round + 1).padStart(5)} ${f(ga.p50)} ${f(ga.cpu, 0).padStart(13)} ${f(ga.rps, 0)} | ${f(gb.p50)} ${f(gb.cpu, 0).padStart(13)} ${f(gb.rps, 0)} | ${f(gb.p50 / ga.p50)} ${f(gb.cpu / ga.cpu)} ${f(gb.rps / ga.rps)}`,
      );
    }
    console.log(
      `median B/A: p50 ${med(ratios.p50).toFixed(3)} (${span(ratios.p50)}), CPU per request ${med(ratios.cpu).toFixed(3)} (${span(ratios.cpu)}), req/s ${med(ratios.rps).toFixed(3)} (${span(ratios.rps)})`,
    );
  }
  await generator.stop();
}
