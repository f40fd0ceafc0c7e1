// The peer of the webhook-delivery scenario: what a Node team would build
// instead of Feira's dispatcher. A BullMQ queue on Redis (127.0.0.1, port
// FEIRA_BENCH_REDIS_PORT, 6379 by default) and a
// worker with concurrency 32 that signs each message as Feira's v1 does
// (HMAC-SHA256 over `<timestamp>.<body>`, hex, `X-Signature-256: sha256=…`,
// `X-Timestamp`, `X-Webhook-Id`) and posts it with undici through an Agent of
// 32 keep-alive connections (the dispatcher's per-endpoint limit), over HTTPS,
// to the same receiver. Completed jobs are kept (BullMQ's default).
import { createHmac, randomUUID } from 'node:crypto';
import { DEFAULT_DISPATCHER_TUNING } from '@feira/platform';
import { testTls } from '@feira/platform/testing';
import { Queue, Worker } from 'bullmq';
import { Agent, request } from 'undici';
import { serveChild } from '../lib/child-protocol.js';

/** The dispatcher's per-endpoint limit: the peer gets as many connections and as much concurrency. */
const CONNECTIONS = DEFAULT_DISPATCHER_TUNING.perEndpointInFlight;
const connection = { host: '127.0.0.1', port: Number(process.env.FEIRA_BENCH_REDIS_PORT ?? 6379) };
const name = `feira-bench-${process.pid}-${Date.now()}`;
const queue = new Queue(name, { connection });
await queue.waitUntilReady();
const agent = new Agent({ connections: CONNECTIONS, connect: { ca: testTls.ca }, keepAliveTimeout: 60_000 });
let worker: Worker | null = null;
let enqueuedAt = new Map<string, number>();

interface Target {
  url: string;
  secret: string;
  tenantId: string;
}

function message(tenantId: string, id: string): string {
  return JSON.stringify({
    data: { status: 'CREATION', params: { id }, resource: `/v1/orders/${id}` },
    tenant_id: tenantId,
    topic: 'order',
  });
}

async function enqueue(tenantId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1000) {
    const jobs = [];
    for (let j = i; j < Math.min(count, i + 1000); j++) {
      const id = randomUUID();
      jobs.push({ name: 'webhook', data: { id, body: message(tenantId, id) } });
    }
    await queue.addBulk(jobs);
  }
}

serveChild(
  { queue: name },
  {
    async enqueue(args) {
      const { tenantId, count } = args as { tenantId: string; count: number };
      await enqueue(tenantId, count);
      return count;
    },
    start(args) {
      const { url, secret } = args as Target;
      const target = new URL(url);
      worker ??= new Worker(
        name,
        async (job) => {
          const { body } = job.data as { id: string; body: string };
          const timestamp = String(Math.floor(Date.now() / 1000));
          const signature = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
          const res = await request(target, {
            method: 'POST',
            dispatcher: agent,
            headers: {
              'content-type': 'application/json',
              'x-signature-256': `sha256=${signature}`,
              'x-timestamp': timestamp,
              'x-webhook-id': String(job.id),
            },
            body,
            headersTimeout: 10_000,
            bodyTimeout: 10_000,
          });
          await res.body.dump();
          if (res.statusCode < 200 || res.statusCode >= 300) throw new Error(`HTTP ${res.statusCode}`);
          return res.statusCode;
        },
        { connection, concurrency: CONNECTIONS },
      );
      return true;
    },
    /**
     * Open loop: `rate` jobs per second for `durationMs`, each noted with the time its enqueue was acknowledged
     * (`queue.add()` resolved): the peer's "commit", the same moment as Feira's acknowledged write (D87).
     */
    async produce(args) {
      const { tenantId, rate, durationMs } = args as { tenantId: string; rate: number; durationMs: number };
      enqueuedAt = new Map();
      const start = performance.now();
      let sent = 0;
      while (performance.now() - start < durationMs) {
        const due = Math.floor(((performance.now() - start) * rate) / 1000);
        const adds = [];
        for (; sent < due; sent++) {
          const id = randomUUID();
          adds.push(
            queue.add('webhook', { id, body: message(tenantId, id) }).then(() => {
              enqueuedAt.set(id, Date.now());
            }),
          );
        }
        await Promise.all(adds);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      return sent;
    },
    /**
     * Closed loop: `concurrency` producers each adding a job as soon as the last was acknowledged, for
     * `durationMs`, while the worker delivers; answers the jobs acknowledged per second.
     */
    async produceFlatOut(args) {
      const { tenantId, durationMs, concurrency } = args as { tenantId: string; durationMs: number; concurrency: number };
      const start = performance.now();
      let sent = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (performance.now() - start < durationMs) {
            const id = randomUUID();
            await queue.add('webhook', { id, body: message(tenantId, id) });
            sent++;
          }
        }),
      );
      return (sent * 1000) / (performance.now() - start);
    },
    enqueuedAt: () => Object.fromEntries(enqueuedAt),
  },
  async () => {
    await worker?.close();
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    await agent.close();
  },
);
