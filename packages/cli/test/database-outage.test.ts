import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../platform/src/storage/database.js';
import { createTestPlatform, pollUntil, TEST_ADMIN_TOKEN, type TestPlatform, testConfig } from '../../platform/src/testing.js';
import { type PrivatePostgres, startPrivatePostgres } from '../../platform/test/storage/private-postgres.js';
import { type LoopbackReceiver, startReceiver } from '../../platform/test/webhooks/loopback-receiver.js';
import { type Seller, sellerWithToken, signup, wallClock } from '../../platform/test/webhooks/webhook-kit.js';
import { childPids, type FeiraProcess, runFeira, servingWorkerPids } from './feira-process.js';

// A PostgreSQL server that dies must not take Feira down (docs/deploy.md, "What a database outage looks
// like"): while 6 writers create orders through the admin API and the dispatcher delivers their events, the
// test's own server has busy backends terminated and one SIGKILLed (a), then is stopped with
// `pg_ctl stop -m immediate` and started again on the same port (b). Feira is a real `feira start`, one
// process and then `--workers 2`.

const LISTENING = /Listening on http:\/\/127\.0\.0\.1:(\d+)/;
const WRITERS = 6;
/** Each writer's bound on its requests, whatever happens (the phases below end the writes much sooner). */
const MAX_WRITES_PER_WRITER = 5_000;
/**
 * No request may take longer than this: pg's connect timeout (5 s, storage/database.ts) plus a query and
 * the loaded machine's slack. A request waiting on a connection that never comes would take the client's
 * own timeout (60 s) instead.
 */
const REQUEST_BOUND_MS = 15_000;
/** The database URL carries a password (trust authentication ignores it): it must never reach a log line. */
const PASSWORD = 'outage-test-password-7f3a';

interface Answer {
  status: number;
  ms: number;
  retryAfter?: string;
  slug?: string;
}

/** Six writers POSTing orders until stopped: what each request got back, and the ids of the acknowledged ones. */
function startWriters(base: string, tenantId: string, diagnose: () => string) {
  const answers: Answer[] = [];
  const acknowledged: string[] = [];
  const failures: string[] = [];
  let stopped = false;
  const one = async (writer: number) => {
    for (let i = 0; i < MAX_WRITES_PER_WRITER && !stopped; i++) {
      const started = performance.now();
      try {
        // A connection per write: a POST cannot be retried blindly on a kept-alive connection the server closes.
        const res = await request(`${base}/admin/v1/tenants/${tenantId}/orders`, {
          method: 'POST',
          reset: true,
          headersTimeout: 60_000,
          bodyTimeout: 60_000,
          headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            customer: { id: `cust-${writer}`, name: 'Ana Silva' },
            items: [{ sku: 'SKU-1', quantity: 1, price: 10 }],
          }),
        });
        const body = (await res.body.json()) as { id?: string; slug?: string };
        const retryAfter = res.headers['retry-after'];
        answers.push({
          status: res.statusCode,
          ms: performance.now() - started,
          ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
          ...(body.slug ? { slug: body.slug } : {}),
        });
        if (res.statusCode === 201 && body.id) acknowledged.push(body.id);
        // A client told to retry later waits a little before it does (not the full Retry-After: the test is short).
        if (res.statusCode === 503) await new Promise((resolve) => setTimeout(resolve, 100));
      } catch (error) {
        failures.push(`writer ${writer}: ${(error as Error).message} after ${Math.round(performance.now() - started)} ms`);
      }
    }
  };
  const running = Promise.all(Array.from({ length: WRITERS }, (_, w) => one(w)));
  return {
    answers,
    acknowledged,
    failures,
    /** Resolves once `more` writes beyond those acknowledged now have been acknowledged. */
    progress: (what: string, more = 20, deadlineMs = 60_000) => {
      const target = acknowledged.length + more;
      return pollUntil(what, () => (acknowledged.length >= target ? true : undefined), { deadlineMs, intervalMs: 50 }).catch(
        (error) => {
          throw new Error(`${(error as Error).message}; last answers ${JSON.stringify(answers.slice(-3))}; ${diagnose()}`);
        },
      );
    },
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

describe('a PostgreSQL outage does not take Feira down; it answers 503 + Retry-After and recovers by itself', {
  timeout: 300_000,
}, () => {
  let server: PrivatePostgres | undefined;
  let platform: TestPlatform | undefined;
  let receiver: LoopbackReceiver | undefined;
  let feira: FeiraProcess | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    if (feira) {
      for (const pid of childPids(feira.child.pid as number)) process.kill(pid, 'SIGKILL');
      await feira.stop('SIGKILL');
    }
    await receiver?.close();
    await platform?.close();
    await server?.destroy();
    if (dir) rmSync(dir, { recursive: true, force: true });
    feira = undefined;
    receiver = undefined;
    platform = undefined;
    server = undefined;
    dir = undefined;
  });

  /** The private server, a seller with a token and a client, the receiver subscribed to orders, and `feira start`. */
  async function setUp(workers: number) {
    server = await startPrivatePostgres();
    const url = server.url.replace('postgres@', `postgres:${PASSWORD}@`);
    dir = mkdtempSync(join(tmpdir(), 'feira-outage-'));
    feira = runFeira(
      [
        'start',
        ...(workers > 1 ? ['--workers', String(workers)] : []),
        '--port',
        '0',
        '--seed',
        'none',
        '--data-dir',
        dir,
        '--log-level',
        'warn',
      ],
      { FEIRA_DATABASE: url, FEIRA_ADMIN_TOKEN: TEST_ADMIN_TOKEN, FEIRA_SECRET_KEY: testConfig().secretKey },
    );
    const base = `http://127.0.0.1:${(await feira.waitFor(LISTENING, 180_000))[1]}`;
    if (workers > 1) await servingWorkerPids(base, workers);
    await pollUntil('Feira ready', async () => ((await request(`${base}/health/ready`)).statusCode === 200 ? true : undefined), {
      deadlineMs: 60_000,
      intervalMs: 100,
    });
    // The seller, its token and the subscription, planted beside Feira with the same keys (same secret key),
    // once Feira has migrated the database and made its signing key; tokens name Feira's URL as their issuer.
    platform = await createTestPlatform(
      { dialect: 'postgres', open: () => openDatabase(url) },
      // `feira start` runs on the wall clock: so must the tokens minted here.
      { clock: wallClock(), config: testConfig({ publicUrl: base, authUrl: base }) },
    );
    const test = platform;
    receiver = await startReceiver({ answer: () => ({ status: 200 }) });
    const seller = await sellerWithToken(test);
    expect((await signup(test, seller, 'v0', `${receiver.url}/orders`, ['order'])).statusCode).toBe(200);
    const client = await test.createClient();
    const read = await request(`${base}/v1/orders?_limit=1`, {
      headers: { authorization: `Bearer ${seller.token}`, 'x-tenant-id': seller.tenantId },
    });
    expect(read.statusCode, await read.body.text()).toBe(200);
    return { base, seller, client, db: server, test, hooks: receiver, feira };
  }

  /** What an outage answers to each kind of caller: 503 + Retry-After in the uniform shape, RFC 6749 at the token endpoint. */
  async function expectOutageAnswers(
    base: string,
    port: number,
    seller: Seller,
    client: { clientId: string; clientSecret: string },
  ) {
    const health = await request(`${base}/health`);
    expect(health.statusCode).toBe(503);
    expect(health.headers['retry-after']).toBe('5');
    expect(await health.body.json()).toEqual({
      message: expect.any(String),
      slug: 'SERVICE_UNAVAILABLE',
      details: [],
      request_id: expect.any(String),
    });

    const anonymous = await request(`${base}/health/ready`);
    expect(anonymous.statusCode).toBe(503);
    const anonymousText = await anonymous.body.text();
    expect(JSON.parse(anonymousText).checks.database).toBe('unavailable');
    expect(anonymousText).not.toContain('ECONNREFUSED');
    expect(anonymousText).not.toContain(`127.0.0.1:${port}`);
    const operator = await request(`${base}/health/ready`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
    expect(operator.statusCode).toBe(503);
    const operatorChecks = ((await operator.body.json()) as { checks: Record<string, string> }).checks;
    expect(operatorChecks.database).not.toMatch(/^(ok|unavailable)$/);

    const read = await request(`${base}/v1/orders?_limit=1`, {
      headers: { authorization: `Bearer ${seller.token}`, 'x-tenant-id': seller.tenantId },
    });
    expect(read.statusCode).toBe(503);
    expect(read.headers['retry-after']).toBe('5');
    expect(((await read.body.json()) as { slug: string }).slug).toBe('SERVICE_UNAVAILABLE');

    const token = await request(`${base}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=refresh_token&refresh_token=not-a-real-refresh-token',
    });
    expect(token.statusCode).toBe(503);
    expect(token.headers['retry-after']).toBe('5');
    expect(token.headers['cache-control']).toBe('no-store');
    expect(await token.body.json()).toEqual({ error: 'temporarily_unavailable', error_description: expect.any(String) });
  }

  async function faultsWhileWriting(workers: number) {
    const { base, seller, client, db, test, hooks, feira: process } = await setUp(workers);
    const primaryPid = process.child.pid as number;
    const workerPids = workers > 1 ? childPids(primaryPid).sort() : [];
    expect(workerPids).toHaveLength(workers > 1 ? workers : 0);
    let exitedEarly = false;
    void process.exited.then(() => {
      exitedEarly = true;
    });
    const writers = startWriters(
      base,
      seller.tenantId,
      () => `feira ${exitedEarly ? `exited (${process.exitSignal()})` : 'running'}; stderr:\n${process.stderr().slice(-3000)}`,
    );
    try {
      await writers.progress('first writes', 30);

      // a) Busy backends terminated (57P01 to whoever used them), then one SIGKILLed (the postmaster cuts every
      // session and recovers, answering 57P03 meanwhile).
      const busy = await pollUntil('backends of Feira', async () => {
        const pids = await db.backendPids();
        return pids.length >= 3 ? pids : undefined;
      });
      for (const pid of busy.slice(0, 4)) await db.terminateBackend(pid);
      await writers.progress('writes after pg_terminate_backend');
      const [victim] = await pollUntil('a backend to kill', async () => {
        const pids = await db.backendPids();
        return pids.length > 0 ? pids : undefined;
      });
      db.killBackend(victim as number);
      await writers.progress('writes after the crash restart');

      // b) The server stopped at once, then started again on the same port.
      const before = writers.answers.length;
      await db.stopImmediately();
      await pollUntil(
        '503s during the outage',
        () => (writers.answers.slice(before).filter((a) => a.status === 503).length >= 3 ? true : undefined),
        { deadlineMs: 30_000, intervalMs: 50 },
      );
      await expectOutageAnswers(base, db.port, seller, client);
      await db.start();
      await writers.progress('writes after the restart');
    } finally {
      await writers.stop();
    }

    // The process (and in a cluster each worker) lived through it all: no exit, no restart.
    expect(exitedEarly, `feira exited: ${process.exitSignal()}\n${process.stderr()}`).toBe(false);
    if (workers > 1) expect(childPids(primaryPid).sort()).toEqual(workerPids);
    expect(process.stderr()).not.toMatch(/Unhandled 'error' event|exited unexpectedly|uncaught/i);
    // The lost connections are logged, naming the pool and the server, without the password.
    expect(process.stderr()).toContain('PostgreSQL connection lost');
    expect(process.stderr()).not.toContain(PASSWORD);

    // Every answer was a 201 or a 503 with Retry-After in the uniform shape, none slower than the bound.
    expect(writers.failures).toEqual([]);
    const unexpected = writers.answers.filter((a) => a.status !== 201 && a.status !== 503);
    expect(unexpected).toEqual([]);
    const refusals = writers.answers.filter((a) => a.status === 503);
    expect(refusals.length).toBeGreaterThanOrEqual(3);
    for (const refusal of refusals) expect(refusal).toMatchObject({ retryAfter: '5', slug: 'SERVICE_UNAVAILABLE' });
    const slowest = Math.max(...writers.answers.map((a) => a.ms));
    expect(slowest).toBeLessThan(REQUEST_BOUND_MS);

    // Every acknowledged write is there, and its event reached the receiver: deliveries resumed by themselves.
    const acknowledged = [...writers.acknowledged];
    const present = new Set<string>();
    for (let i = 0; i < acknowledged.length; i += 500) {
      const rows = await test.database.db
        .selectFrom('orders')
        .select('id')
        .where('id', 'in', acknowledged.slice(i, i + 500))
        .execute();
      for (const r of rows) present.add(r.id);
    }
    expect(acknowledged.filter((id) => !present.has(id))).toEqual([]);
    const deliveryIds = async () => {
      const out = new Map<string, string>();
      for (let i = 0; i < acknowledged.length; i += 500) {
        const rows = await test.database.db
          .selectFrom('webhook_deliveries as d')
          .innerJoin('outbox_events as e', 'e.id', 'd.event_id')
          .select(['e.record_id', 'd.id'])
          .where('e.record_id', 'in', acknowledged.slice(i, i + 500))
          .execute();
        for (const r of rows) out.set(r.record_id, r.id);
      }
      return out;
    };
    const undelivered = async () => {
      const received = new Set(hooks.received.map((r) => String(r.headers['x-webhook-id'])));
      const ids = await deliveryIds();
      return acknowledged.filter((id) => !received.has(ids.get(id) ?? ''));
    };
    // A delivery sent while its result could not be recorded goes out again once its lease (10 s) runs out.
    await pollUntil('every acknowledged write delivered', async () => ((await undelivered()).length === 0 ? true : undefined), {
      deadlineMs: 90_000,
      intervalMs: 250,
    }).catch(async (error) => {
      throw new Error(`${(error as Error).message}: ${(await undelivered()).length} of ${acknowledged.length} not delivered`);
    });
    console.info(
      `database outage (${workers} process${workers > 1 ? 'es' : ''}): ${acknowledged.length} writes acknowledged, ` +
        `${refusals.length} answered 503, slowest answer ${Math.round(slowest)} ms, ${hooks.received.length} deliveries received`,
    );
  }

  it('one process: backends terminated and SIGKILLed, then the server stopped and restarted on its port', async () => {
    await faultsWhileWriting(1);
  });

  it('feira start --workers 2: the same faults; no worker exits or restarts', async () => {
    await faultsWhileWriting(2);
  });
});
