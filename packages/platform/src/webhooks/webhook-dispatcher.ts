import { hostname } from 'node:os';
import type { Selectable } from 'kysely';
import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import { epochSeconds } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { SecretBox } from '../core/secret-box.js';
import type { Database } from '../storage/database.js';
import { type ClaimedDelivery, claimDueDeliveries } from './claim-queries.js';
import { type FinishedAttempt, recordAttempts, type SkippedDelivery } from './delivery-log.js';
import { type DeliveryTarget, deliveryTarget, sendDelivery } from './delivery-request.js';
import { fanOutEvents } from './fan-out.js';
import { OpenedSecrets } from './opened-secrets.js';
import { webhookMetrics } from './webhook-metrics.js';
import { signingSecrets } from './webhook-secret.js';
import type { WebhookTables } from './webhook-tables.js';

export interface WebhookDispatcherDeps {
  database: Database;
  clock: Clock;
  random: Random;
  box: SecretBox;
  /** The pooled, SSRF-guarded undici Agent (keep-alive). */
  outbound: Dispatcher;
  metrics: import('prom-client').Registry;
  log?: { error(obj: object, message: string): void };
}

export interface WebhookDispatcherOptions {
  /** Names this worker in leases and attempt records. */
  worker?: string;
  /** Events fanned out, and deliveries claimed, per query. */
  batchSize?: number;
  /** Requests in flight in this worker, over all endpoints. */
  maxInFlight?: number;
  /** Requests in flight per endpoint origin, so one slow receiver cannot hold up the others. */
  perEndpointInFlight?: number;
  /** How long a claim is exclusive; after it, another worker may retry the delivery. At least 3 × the request timeout. */
  leaseMs?: number;
  /** SPEC-DECISIONS W4: success is a 2xx within 10 s (whole exchange). */
  requestTimeoutMs?: number;
  /** How long the loop waits when there is nothing to do. */
  pollIntervalMs?: number;
  /** Finished attempts are recorded in one transaction once this many are waiting… */
  flushBatch?: number;
  /** …or this long after the first of them finished. */
  flushDelayMs?: number;
}

type SubscriptionRow = Selectable<WebhookTables['webhook_subscriptions']>;

interface Job {
  claim: ClaimedDelivery;
  subscription: SubscriptionRow;
  body: string;
  target: DeliveryTarget;
  leaseUntil: number;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The webhook dispatcher (SPEC-DECISIONS W3–W6): fans outbox events out to
 * deliveries, claims due deliveries under a lease with a fencing token, sends
 * them with bounded concurrency per endpoint, and records every attempt.
 * Several dispatchers (threads of `feira start`, `feira dispatch` processes)
 * may share one database. Tests call `runOnce()`/`drain()` and move the clock;
 * `start()` runs the loop.
 */
export class WebhookDispatcher {
  readonly worker: string;
  readonly #deps: WebhookDispatcherDeps;
  readonly #batchSize: number;
  readonly #maxInFlight: number;
  readonly #perEndpoint: number;
  readonly #leaseMs: number;
  readonly #timeoutMs: number;
  readonly #pollMs: number;
  readonly #flushBatch: number;
  readonly #flushDelayMs: number;
  readonly #metrics;
  readonly #secrets: OpenedSecrets;
  #inFlight = 0;
  #sent = 0;
  readonly #inFlightByOrigin = new Map<string, number>();
  readonly #queues = new Map<string, Job[]>();
  readonly #originBySubscription = new Map<string, string>();
  readonly #running = new Set<Promise<void>>();
  #finished: FinishedAttempt[] = [];
  #skipped: SkippedDelivery[] = [];
  #released: ClaimedDelivery[] = [];
  #flushChain: Promise<void> = Promise.resolve();
  #flushScheduled = false;
  #flushTimer: NodeJS.Timeout | null = null;
  #loop: Promise<void> | null = null;
  #stopping = false;
  #idlePasses = 0;
  #waitingForCapacity = false;
  #wake: (() => void) | null = null;

  constructor(deps: WebhookDispatcherDeps, options: WebhookDispatcherOptions = {}) {
    this.#deps = deps;
    this.worker = options.worker ?? `${hostname()}:${process.pid}:${deps.random.uuid().slice(0, 8)}`;
    this.#batchSize = options.batchSize ?? 200;
    this.#maxInFlight = options.maxInFlight ?? 256;
    this.#perEndpoint = options.perEndpointInFlight ?? 32;
    this.#timeoutMs = options.requestTimeoutMs ?? 10_000;
    // A lease must cover a request and the write of its result, with room to wait in the local queue.
    this.#leaseMs = Math.max(options.leaseMs ?? 60_000, 3 * this.#timeoutMs);
    this.#pollMs = options.pollIntervalMs ?? 20;
    this.#flushBatch = options.flushBatch ?? 250;
    this.#flushDelayMs = options.flushDelayMs ?? 20;
    this.#metrics = webhookMetrics(deps.metrics);
    this.#secrets = new OpenedSecrets(deps.box);
  }

  /** What this worker is doing now (for `feira dispatch` progress and diagnostics). */
  stats(): { inFlight: number; queued: number; sent: number } {
    return { inFlight: this.#inFlight, queued: this.#queued(), sent: this.#sent };
  }

  /** Fans out one batch of outbox events; returns how many events were taken. */
  fanOut(): Promise<number> {
    return fanOutEvents(this.#deps.database, this.#deps, this.#batchSize);
  }

  /** Claims due deliveries up to free capacity and starts sending them; returns how many were claimed. */
  async claimAndSend(): Promise<number> {
    const limit = Math.min(this.#batchSize, this.#maxInFlight - this.#inFlight - this.#queued());
    if (limit <= 0) return 0;
    const now = this.#deps.clock.now();
    // Endpoints that already have a full queue here are left out: one slow receiver cannot fill this worker.
    const buffered = [...this.#originBySubscription]
      .filter(([, origin]) => (this.#queues.get(origin)?.length ?? 0) >= this.#perEndpoint)
      .map(([id]) => id);
    const claims = await claimDueDeliveries(this.#deps.database.db, this.#deps.database.dialect, {
      worker: this.worker,
      limit,
      nowIso: now.toISOString(),
      leaseUntilIso: new Date(now.getTime() + this.#leaseMs).toISOString(),
      skipSubscriptions: buffered,
    });
    if (claims.length === 0) return 0;
    const leaseUntil = now.getTime() + this.#leaseMs;
    const { db } = this.#deps.database;
    // Each subscription's URL is parsed once per claim, not once per delivery.
    const subscriptions = new Map<string, { row: SubscriptionRow; target: DeliveryTarget }>();
    for (const ids of chunks([...new Set(claims.map((c) => c.subscription_id))], 500)) {
      for (const row of await db.selectFrom('webhook_subscriptions').selectAll().where('id', 'in', ids).execute()) {
        const target = deliveryTarget(row.url);
        subscriptions.set(row.id, { row, target });
        this.#originBySubscription.set(row.id, target.origin);
      }
    }
    const bodies = new Map<string, string>();
    for (const ids of chunks([...new Set(claims.map((c) => c.event_id))], 500)) {
      for (const row of await db.selectFrom('outbox_events').select(['id', 'body']).where('id', 'in', ids).execute()) {
        bodies.set(row.id, row.body);
      }
    }
    const touched = new Set<string>();
    for (const claim of claims) {
      const found = subscriptions.get(claim.subscription_id);
      const body = bodies.get(claim.event_id);
      if (found?.row.state !== 'active' || body === undefined) {
        this.#skipped.push({ claim, reason: found ? 'subscription disabled' : 'subscription removed', at: now });
        continue;
      }
      const { origin } = found.target;
      const queue = this.#queues.get(origin) ?? [];
      queue.push({ claim, subscription: found.row, body, target: found.target, leaseUntil });
      this.#queues.set(origin, queue);
      touched.add(origin);
    }
    for (const origin of touched) this.#pump(origin);
    if (this.#skipped.length > 0) this.#scheduleFlush();
    return claims.length;
  }

  /** One pass: fan out, claim, send, and wait until every attempt is recorded. For tests and `feira dispatch --once`. */
  async runOnce(): Promise<{ fannedOut: number; claimed: number }> {
    let fannedOut = 0;
    for (let n = await this.fanOut(); n > 0; n = await this.fanOut()) fannedOut += n;
    const claimed = await this.claimAndSend();
    await this.idle();
    return { fannedOut, claimed };
  }

  /** Repeats `runOnce` until nothing is due at the clock's current time. */
  async drain(maxPasses = 1000): Promise<void> {
    for (let pass = 0; pass < maxPasses; pass++) {
      const { fannedOut, claimed } = await this.runOnce();
      if (fannedOut === 0 && claimed === 0) return;
    }
    throw new Error('dispatcher did not drain');
  }

  /** Resolves once nothing is in flight or queued and every result is written. */
  async idle(): Promise<void> {
    while (
      this.#running.size > 0 ||
      this.#queued() > 0 ||
      this.#finished.length > 0 ||
      this.#skipped.length > 0 ||
      this.#released.length > 0
    ) {
      await Promise.all([...this.#running]);
      await this.#flush();
    }
    await this.#flushChain;
  }

  start(): void {
    if (this.#loop) return;
    this.#stopping = false;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    this.#loop = null;
    await this.idle();
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      let busy = false;
      try {
        const fanned = await this.fanOut();
        const claimed = await this.claimAndSend();
        busy = fanned > 0 || claimed > 0;
      } catch (error) {
        this.#deps.log?.error({ err: error }, 'webhook dispatcher pass failed');
      }
      // An empty claim still scans the due rows of saturated endpoints: back off (up to 250 ms)
      // until something changes (new events, a claim that found work, an endpoint's queue running dry).
      this.#idlePasses = busy ? 0 : this.#idlePasses + 1;
      const full = this.#inFlight + this.#queued() >= this.#maxInFlight;
      if (!busy || full) {
        this.#waitingForCapacity = full;
        await this.#pause(full ? this.#leaseMs : Math.min(250, this.#pollMs * 2 ** Math.min(this.#idlePasses - 1, 8)));
      }
    }
  }

  /** Waits for the poll interval, or less when a finished request frees capacity or stop() is called. */
  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.#wake = null;
        resolve();
      }
      this.#wake = done;
    });
  }

  #queued(): number {
    let n = 0;
    for (const queue of this.#queues.values()) n += queue.length;
    return n;
  }

  #pump(origin: string): void {
    const queue = this.#queues.get(origin);
    while (queue && queue.length > 0 && (this.#inFlightByOrigin.get(origin) ?? 0) < this.#perEndpoint) {
      const job = queue.shift() as Job;
      // A job that waited too long in the queue could outlive its lease before its result is written
      // (request up to the timeout, then the batched write): give the lease back instead.
      if (job.leaseUntil - this.#deps.clock.now().getTime() < 2 * this.#timeoutMs) {
        this.#released.push(job.claim);
        this.#scheduleFlush();
        continue;
      }
      this.#inFlight += 1;
      this.#inFlightByOrigin.set(origin, (this.#inFlightByOrigin.get(origin) ?? 0) + 1);
      const running: Promise<void> = this.#send(job).finally(() => {
        this.#running.delete(running);
        this.#inFlight -= 1;
        this.#inFlightByOrigin.set(origin, (this.#inFlightByOrigin.get(origin) ?? 1) - 1);
        this.#pump(origin);
        if (this.#waitingForCapacity) this.#wake?.();
      });
      this.#running.add(running);
    }
    if (queue && queue.length < this.#perEndpoint) {
      if (queue.length === 0) this.#queues.delete(origin);
      // This endpoint's queue is running low: claim more now (prefetch) rather than after the back-off.
      this.#idlePasses = 0;
      this.#wake?.();
    }
  }

  async #send(job: Job): Promise<void> {
    const { clock, outbound } = this.#deps;
    const startedAt = clock.now();
    let secrets: string[];
    try {
      secrets = job.subscription.version === 'v1' ? signingSecrets(job.subscription, this.#secrets, startedAt) : [];
    } catch {
      this.#skipped.push({ claim: job.claim, reason: 'subscription secret unreadable (server key changed?)', at: startedAt });
      this.#scheduleFlush();
      return;
    }
    const result = await sendDelivery({
      target: job.target,
      body: job.body,
      webhookId: job.claim.id,
      secrets,
      timestamp: epochSeconds(startedAt),
      timeoutMs: this.#timeoutMs,
      dispatcher: outbound,
      now: () => clock.now(),
    });
    this.#sent += 1;
    this.#finished.push({ claim: job.claim, worker: this.worker, startedAt, finishedAt: clock.now(), result });
    this.#metrics.latency.observe({ outcome: result.ok ? 'succeeded' : 'failed' }, result.durationMs / 1000);
    this.#scheduleFlush();
  }

  /**
   * Results are written in batches: one transaction per `flushBatch` results, or
   * after `flushDelayMs`, whichever comes first. Every commit costs page writes to
   * the WAL, so a transaction per burst of a few results (about 17 per commit when
   * flushed on the next tick) spent ~10 % of a backlog drain's CPU in COMMIT.
   * The delay only postpones the bookkeeping: the receiver already has the message,
   * and the lease (≥ 3 × the request timeout) keeps other workers off meanwhile.
   */
  #scheduleFlush(): void {
    const pending = this.#finished.length + this.#skipped.length + this.#released.length;
    if (pending >= this.#flushBatch) {
      if (this.#flushTimer) clearTimeout(this.#flushTimer);
      this.#flushTimer = null;
      if (this.#flushScheduled) return;
      this.#flushScheduled = true;
      setImmediate(() => {
        this.#flushScheduled = false;
        void this.#flush();
      });
      return;
    }
    if (this.#flushTimer || this.#flushScheduled) return;
    this.#flushTimer = setTimeout(() => {
      this.#flushTimer = null;
      void this.#flush();
    }, this.#flushDelayMs);
    this.#flushTimer.unref();
  }

  #flush(): Promise<void> {
    this.#flushChain = this.#flushChain.then(async () => {
      const finished = this.#finished;
      const skipped = this.#skipped;
      const released = this.#released;
      if (finished.length === 0 && skipped.length === 0 && released.length === 0) return;
      this.#finished = [];
      this.#skipped = [];
      this.#released = [];
      try {
        const outcomes = await recordAttempts(this.#deps.database, finished, skipped, this.#deps.random, released);
        for (const outcome of outcomes) this.#metrics.deliveries.inc({ outcome });
      } catch (error) {
        // Unrecorded results are not lost work: the leases expire and the deliveries are retried (at least once, W6).
        this.#deps.log?.error({ err: error }, 'recording webhook attempts failed');
      }
    });
    return this.#flushChain;
  }
}
