import { hostname } from 'node:os';
import type { Dispatcher } from 'undici';
import { BatchingWriter } from '../core/batching-writer.js';
import type { Clock } from '../core/clock.js';
import { epochSeconds } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { SecretBox } from '../core/secret-box.js';
import type { Database } from '../storage/database.js';
import { isForeignKeyViolation } from '../storage/database-errors.js';
import { writeIsolatingRefusals } from '../storage/refused-rows.js';
import { type ClaimedDelivery, claimDueDeliveries } from './claim-queries.js';
import { type FinishedAttempt, recordAttempts, type SkippedDelivery } from './delivery-log.js';
import { type DeliveryTarget, deliveryTarget, sendDelivery } from './delivery-request.js';
import { fanOutEvents } from './fan-out.js';
import { OpenedSecrets } from './opened-secrets.js';
import { webhookMetrics } from './webhook-metrics.js';
import { signingSecrets } from './webhook-secret.js';
import type { SubscriptionRow } from './webhook-tables.js';

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
  /** Events fanned out, and deliveries claimed, per query (default 500). */
  batchSize?: number;
  /** Requests in flight (or queued) in this worker, over all endpoints (default 1,000). */
  maxInFlight?: number;
  /** Requests in flight per endpoint origin, so one slow receiver cannot hold up the others. */
  perEndpointInFlight?: number;
  /**
   * How long a claim is exclusive unless renewed; after it, another worker may
   * take the delivery. The running loop renews the leases it holds every
   * `leaseRenewMs`, so this bounds how long deliveries wait after a crash.
   */
  leaseMs?: number;
  /** How often the running loop renews its leases (default a quarter of the lease). */
  leaseRenewMs?: number;
  /** spec-notes W4: success is a 2xx within 10 s (whole exchange). */
  requestTimeoutMs?: number;
  /**
   * How long the loop waits when there is nothing to do; it doubles while
   * passes find nothing, up to `maxPollIntervalMs`. A new event wakes the loop
   * sooner through the database's outbox signal (storage/outbox-signal.ts):
   * the poll only finds retries falling due and events whose signal was lost.
   */
  pollIntervalMs?: number;
  /** The longest idle wait (default 250 ms). */
  maxPollIntervalMs?: number;
  /** Finished attempts are recorded in one transaction once this many are waiting (default 1,000)… */
  flushBatch?: number;
  /** …or this long after the first of them finished (default 50 ms). */
  flushDelayMs?: number;
}

/**
 * What one claim or fan-out took. `full`: as many as it asked for, so more may be waiting; one that
 * took fewer saw all there was.
 */
interface Batch {
  taken: number;
  full: boolean;
}

/** What the dispatcher writes to the delivery log, in batches. */
type ResultRow =
  | { kind: 'finished'; attempt: FinishedAttempt }
  | { kind: 'skipped'; skip: SkippedDelivery }
  | { kind: 'released'; claim: ClaimedDelivery };

function resultClaim(row: ResultRow): ClaimedDelivery {
  return row.kind === 'finished' ? row.attempt.claim : row.kind === 'skipped' ? row.skip.claim : row.claim;
}

interface Job {
  claim: ClaimedDelivery;
  subscription: SubscriptionRow;
  body: string;
  target: DeliveryTarget;
  leaseUntil: number;
}

/**
 * Transactions one batch of results may spend isolating rows the database refuses (storage/refused-rows.ts):
 * enough to find a few such rows among 1,000 (about 20 each).
 */
const RESULT_SPLIT_BUDGET = 64;

/** The delivery log's error text for an attempt whose own could not be stored. */
const ANSWER_NOT_STORED = 'the answer could not be stored (the database refused its text)';

/** Deliveries of a crashed dispatcher are due again after at most this long (docs/deploy.md). */
export const DEFAULT_LEASE_MS = 10_000;

/**
 * Requests in flight (and queued) per dispatcher, over all endpoints. A worker
 * with room for a thousand leases fans out 500 events per transaction and
 * records up to 1,000 results per transaction: fewer, larger commits, and a
 * faster SQLite drain than with 256 and 200 (docs/decisions.md D6).
 */
export const DEFAULT_MAX_IN_FLIGHT = 1_000;
/** Requests in flight per endpoint origin (the bare-loop baseline gets as many connections). */
export const DEFAULT_PER_ENDPOINT_IN_FLIGHT = 32;
/** Outbox events fanned out, and deliveries claimed, per query. */
export const DEFAULT_BATCH_SIZE = 500;
/** The longest wait of an idle loop; new events wake it sooner, so this bounds only retries and lost signals. */
export const DEFAULT_MAX_POLL_INTERVAL_MS = 250;

/** A dispatcher's default name, in leases, attempt records and its connections' `application_name`: host, pid and a random tag. */
export function dispatcherWorkerName(random: Random): string {
  return `${hostname()}:${process.pid}:${random.uuid().slice(0, 8)}`;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The webhook dispatcher (spec-notes W3–W6): fans outbox events out to
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
  readonly #renewMs: number;
  readonly #timeoutMs: number;
  readonly #pollMs: number;
  readonly #maxPollMs: number;
  /**
   * The room a finished request must leave before the loop is woken to claim or fan out more:
   * waking at every finished request made a drain run one fan-out transaction per event.
   */
  readonly #refillAt: number;
  readonly #metrics;
  readonly #secrets: OpenedSecrets;
  #inFlight = 0;
  #sent = 0;
  /** Passes the running loop has finished. */
  #passes = 0;
  readonly #inFlightByOrigin = new Map<string, number>();
  readonly #queues = new Map<string, Job[]>();
  readonly #originBySubscription = new Map<string, string>();
  readonly #running = new Set<Promise<void>>();
  readonly #results: BatchingWriter<ResultRow>;
  #loop: Promise<void> | null = null;
  #stopping = false;
  #idlePasses = 0;
  #waitingForCapacity = false;
  #wake: (() => void) | null = null;
  /** Set when the outbox signal arrives during a pass: the next pause is skipped. */
  #signalled = false;
  /** When the running loop last looked for due deliveries (performance.now()). */
  #lastClaimAt = Number.NEGATIVE_INFINITY;
  /** …and last looked for deliveries under an expired lease. */
  #lastExpiredClaimAt = Number.NEGATIVE_INFINITY;
  /** The last look for expired leases filled its claim: look again at the next pass. */
  #moreExpired = false;
  #unsubscribe: (() => void) | null = null;
  /** Deliveries this worker holds a lease on (queued or in flight), by id: what a renewal extends. */
  readonly #held = new Map<string, ClaimedDelivery>();
  /** Until when the last successful renewal extended every held lease (epoch ms). */
  #renewedUntil = 0;
  #renewTimer: NodeJS.Timeout | null = null;
  #renewing: Promise<void> = Promise.resolve();
  /** When the loop last finished a pass, and the leases were last renewed: the readiness heartbeat. */
  #lastPassAt = 0;
  #lastRenewalAt = 0;

  constructor(deps: WebhookDispatcherDeps, options: WebhookDispatcherOptions = {}) {
    this.#deps = deps;
    this.worker = options.worker ?? dispatcherWorkerName(deps.random);
    this.#batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.#perEndpoint = options.perEndpointInFlight ?? DEFAULT_PER_ENDPOINT_IN_FLIGHT;
    this.#timeoutMs = options.requestTimeoutMs ?? 10_000;
    // The lease is short and renewed while held (spec-notes W6): a crashed worker's deliveries are due
    // again within one lease, not after a minute. It need not cover a whole request: renewals do.
    this.#leaseMs = Math.max(options.leaseMs ?? DEFAULT_LEASE_MS, 1_000);
    this.#renewMs = Math.min(options.leaseRenewMs ?? this.#leaseMs / 4, this.#leaseMs / 2);
    this.#pollMs = options.pollIntervalMs ?? 20;
    this.#maxPollMs = Math.max(this.#pollMs, options.maxPollIntervalMs ?? DEFAULT_MAX_POLL_INTERVAL_MS);
    this.#refillAt = Math.max(1, Math.floor(Math.min(this.#batchSize, this.#maxInFlight) / 4));
    // Results are written in batches: one transaction per `flushBatch` results, or after
    // `flushDelayMs`, whichever comes first. Every commit costs page writes to the WAL, so a
    // transaction per burst of a few results spent a visible share of a backlog drain's CPU in COMMIT
    // (docs/decisions.md D7).
    // The delay only postpones the bookkeeping: the receiver already has the message, and the
    // (renewed) lease keeps other workers off meanwhile.
    this.#results = new BatchingWriter((rows) => this.#record(rows), {
      maxRows: options.flushBatch ?? 1_000,
      maxDelayMs: options.flushDelayMs ?? 50,
    });
    this.#metrics = webhookMetrics(deps.metrics);
    this.#secrets = new OpenedSecrets(deps.box);
  }

  /** What this worker is doing now (for `feira dispatch` progress and diagnostics). */
  stats(): { inFlight: number; queued: number; sent: number; passes: number } {
    return { inFlight: this.#inFlight, queued: this.#queued(), sent: this.#sent, passes: this.#passes };
  }

  /**
   * Fans out one batch of outbox events; the new deliveries this worker has
   * room for are leased to it in the same transaction and sent at once.
   * Returns how many events were taken.
   */
  async fanOut(): Promise<number> {
    return (await this.#fanOutBatch()).taken;
  }

  async #fanOutBatch(): Promise<Batch> {
    // Events wait in the outbox until this worker has room for their deliveries (another worker with
    // room takes them meanwhile): fanned out without a lease they would only have to be claimed later.
    const capacity = this.#maxInFlight - this.#inFlight - this.#queued();
    if (capacity <= 0) return { taken: 0, full: false };
    const now = this.#deps.clock.now();
    const leaseUntil = now.getTime() + this.#leaseMs;
    const limit = Math.min(this.#batchSize, capacity);
    const { events, leased, subscriptions } = await fanOutEvents(this.#deps.database, this.#deps, limit, {
      worker: this.worker,
      leaseUntilIso: new Date(leaseUntil).toISOString(),
      max: capacity,
    });
    if (leased.length > 0) {
      await this.#enqueue(
        leased.map((l) => l.claim),
        { bodies: new Map(leased.map((l) => [l.claim.event_id, l.body])), subscriptions },
        now,
        leaseUntil,
      );
    }
    return { taken: events, full: events === limit };
  }

  /**
   * Claims due deliveries up to free capacity and starts sending them; returns
   * how many were claimed. Those under an expired lease are looked for too
   * unless `expired` is false (the running loop looks for them once per lease
   * renewal period: a crashed worker's deliveries wait a lease anyway).
   */
  async claimAndSend(options: { expired?: boolean } = {}): Promise<number> {
    return (await this.#claimBatch(options)).taken;
  }

  async #claimBatch(options: { expired?: boolean }): Promise<Batch> {
    let claimed = 0;
    let full = false;
    for (const which of options.expired === false ? (['unleased'] as const) : (['unleased', 'expired'] as const)) {
      const limit = Math.min(this.#batchSize, this.#maxInFlight - this.#inFlight - this.#queued());
      if (limit <= 0) break;
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
        which,
      });
      // A full claim of expired leases means more may be waiting (a crashed worker held up to its
      // whole room): the running loop looks again at its next pass instead of a renewal period later,
      // and keeps looking while endpoints it left out for their full queues may have more.
      if (which === 'expired' && (claims.length === limit || buffered.length === 0)) {
        this.#moreExpired = claims.length === limit;
      }
      if (claims.length === limit) full = true;
      if (claims.length === 0) continue;
      await this.#enqueue(claims, null, now, now.getTime() + this.#leaseMs);
      claimed += claims.length;
    }
    return { taken: claimed, full };
  }

  /**
   * Queues claimed deliveries per endpoint origin and starts sending. The bodies and subscriptions
   * of the deliveries are read here, except those a fan-out already read in its own statement (`fromFanOut`).
   */
  async #enqueue(
    claims: ClaimedDelivery[],
    fromFanOut: { bodies: Map<string, string>; subscriptions: readonly SubscriptionRow[] } | null,
    now: Date,
    leaseUntil: number,
  ): Promise<void> {
    const { db } = this.#deps.database;
    // Each subscription's URL is parsed once per claim, not once per delivery.
    const subscriptions = new Map<string, { row: SubscriptionRow; target: DeliveryTarget }>();
    const add = (row: SubscriptionRow) => {
      const target = deliveryTarget(row.url);
      subscriptions.set(row.id, { row, target });
      this.#originBySubscription.set(row.id, target.origin);
    };
    for (const row of fromFanOut?.subscriptions ?? []) add(row);
    const unreadSubscriptions = [...new Set(claims.map((c) => c.subscription_id))].filter((id) => !subscriptions.has(id));
    for (const ids of chunks(unreadSubscriptions, 500)) {
      for (const row of await db.selectFrom('webhook_subscriptions').selectAll().where('id', 'in', ids).execute()) add(row);
    }
    const bodies = fromFanOut?.bodies ?? new Map<string, string>();
    const unreadBodies = [...new Set(claims.map((c) => c.event_id))].filter((id) => !bodies.has(id));
    for (const ids of chunks(unreadBodies, 500)) {
      for (const row of await db.selectFrom('outbox_events').select(['id', 'body']).where('id', 'in', ids).execute()) {
        bodies.set(row.id, row.body);
      }
    }
    const touched = new Set<string>();
    for (const claim of claims) {
      this.#held.set(claim.id, claim);
      const found = subscriptions.get(claim.subscription_id);
      const body = bodies.get(claim.event_id);
      if (found?.row.state !== 'active' || body === undefined) {
        this.#held.delete(claim.id);
        this.#results.append({
          kind: 'skipped',
          skip: { claim, reason: found ? 'subscription disabled' : 'subscription removed', at: now },
        });
        continue;
      }
      const { origin } = found.target;
      const queue = this.#queues.get(origin) ?? [];
      queue.push({ claim, subscription: found.row, body, target: found.target, leaseUntil });
      this.#queues.set(origin, queue);
      touched.add(origin);
    }
    for (const origin of touched) this.#pump(origin);
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
    while (this.#running.size > 0 || this.#queued() > 0 || this.#results.pendingRows > 0) {
      await Promise.all([...this.#running]);
      await this.#results.flush();
    }
    await this.#results.flush();
  }

  start(): void {
    if (this.#loop) return;
    this.#stopping = false;
    const now = this.#deps.clock.now().getTime();
    this.#lastPassAt = now;
    this.#lastRenewalAt = now;
    this.#renewTimer = setInterval(() => {
      this.#renewing = this.#renewing.then(() => this.renewLeases());
    }, this.#renewMs);
    this.#renewTimer.unref();
    this.#unsubscribe = this.#deps.database.outboxSignal.subscribe(
      () => this.#onOutboxSignal(),
      () => !this.#stopping && this.#room() > 0,
    );
    this.#loop = this.#run();
  }

  /** New events committed: fan them out now rather than at the next poll (unless there is no room for them). */
  #onOutboxSignal(): void {
    this.#signalled = true;
    this.#idlePasses = 0;
    if (!this.#waitingForCapacity) this.#wake?.();
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#wake?.();
    await this.#loop;
    this.#loop = null;
    await this.idle();
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    this.#renewTimer = null;
    await this.#renewing;
  }

  /**
   * Extends the lease of every delivery this worker holds (queued or in
   * flight) by a full lease from now, in one statement per 500. Only rows
   * still leased to this worker move: one another worker took over after an
   * expiry keeps its new owner, and this worker's result is fenced out.
   */
  async renewLeases(): Promise<void> {
    const now = this.#deps.clock.now();
    const until = now.getTime() + this.#leaseMs;
    const untilIso = new Date(until).toISOString();
    try {
      for (const ids of chunks([...this.#held.keys()], 500)) {
        await this.#deps.database.db
          .updateTable('webhook_deliveries')
          .set({ lease_until: untilIso })
          .where('id', 'in', ids)
          .where('lease_owner', '=', this.worker)
          .where('state', '=', 'pending')
          .execute();
      }
      this.#renewedUntil = until;
      this.#lastRenewalAt = now.getTime();
    } catch (error) {
      this.#deps.log?.error({ err: error }, 'renewing webhook delivery leases failed');
    }
  }

  /**
   * For `/health/ready`: null while the loop passes and the lease renewals are
   * recent (within one lease), else why not. A dispatcher that is not running says so.
   */
  readiness(): string | null {
    if (!this.#loop) return 'dispatcher not running';
    const now = this.#deps.clock.now().getTime();
    const age = now - Math.min(this.#lastPassAt, this.#lastRenewalAt);
    return age > this.#leaseMs ? `dispatcher heartbeat ${Math.round(age / 1000)} s old (lease ${this.#leaseMs / 1000} s)` : null;
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      let found = false;
      let full = false;
      try {
        // Due deliveries first (retries, and fan-out beyond this worker's room: the older work),
        // then new events, whose deliveries the fan-out leases to this worker and sends at once.
        // A pass the outbox signal started is for new events: due deliveries are looked for at most
        // once per poll interval, not once per committed event (at 500 events/s that was 500 claim scans).
        const claimDue = !this.#signalled || performance.now() - this.#lastClaimAt >= this.#pollMs;
        this.#signalled = false;
        if (claimDue) this.#lastClaimAt = performance.now();
        const expired = claimDue && (this.#moreExpired || performance.now() - this.#lastExpiredClaimAt >= this.#renewMs);
        if (expired) this.#lastExpiredClaimAt = performance.now();
        const claimed = claimDue ? await this.#claimBatch({ expired }) : { taken: 0, full: false };
        const fanned = await this.#fanOutBatch();
        found = fanned.taken > 0 || claimed.taken > 0;
        full = fanned.full || claimed.full;
      } catch (error) {
        this.#deps.log?.error({ err: error }, 'webhook dispatcher pass failed');
      }
      // An empty claim still scans the due rows of saturated endpoints: back off (up to maxPollIntervalMs)
      // until something changes (new events, a claim that found work, an endpoint's queue running dry).
      this.#lastPassAt = this.#deps.clock.now().getTime();
      this.#passes += 1;
      this.#idlePasses = found ? 0 : this.#idlePasses + 1;
      const noRoom = this.#inFlight + this.#queued() >= this.#maxInFlight;
      // The next pass comes at once only when a claim came back full. A pass that took less than it asked
      // for saw all there was: under a steady flow of orders, passing again at once cost each order an empty
      // fan-out and a look for due deliveries, two more transactions (docs/decisions.md D8).
      // A signal that came during the pass may be for events it did not see: no pause then.
      // Nor after stop() was called during the pass: it would wait a whole poll interval.
      if (!this.#stopping && (noRoom || (!full && !this.#signalled))) {
        this.#waitingForCapacity = noRoom;
        await this.#pause(
          noRoom ? this.#renewMs : Math.min(this.#maxPollMs, this.#pollMs * 2 ** Math.min(Math.max(this.#idlePasses - 1, 0), 16)),
        );
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

  /** Deliveries this worker could take on now. */
  #room(): number {
    return this.#maxInFlight - this.#inFlight - this.#queued();
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
      // A job whose lease is no longer being renewed (renewals failing, or a stalled loop) could be
      // taken by another worker while its request runs: give the lease back instead of sending.
      if (Math.max(job.leaseUntil, this.#renewedUntil) - this.#deps.clock.now().getTime() < this.#leaseMs / 2) {
        this.#held.delete(job.claim.id);
        this.#results.append({ kind: 'released', claim: job.claim });
        continue;
      }
      this.#inFlight += 1;
      this.#inFlightByOrigin.set(origin, (this.#inFlightByOrigin.get(origin) ?? 0) + 1);
      const running: Promise<void> = this.#send(job).finally(() => {
        this.#running.delete(running);
        this.#inFlight -= 1;
        this.#inFlightByOrigin.set(origin, (this.#inFlightByOrigin.get(origin) ?? 1) - 1);
        this.#pump(origin);
        if (this.#waitingForCapacity && this.#room() >= this.#refillAt) this.#wake?.();
      });
      this.#running.add(running);
    }
    if (queue && queue.length < this.#perEndpoint) {
      if (queue.length === 0) this.#queues.delete(origin);
      // This endpoint's queue is running low: claim more now (prefetch) rather than after the back-off,
      // once there is room for a refill worth a transaction (or nothing is left to send).
      this.#idlePasses = 0;
      if (this.#room() >= this.#refillAt || this.#inFlight === 0) this.#wake?.();
    }
  }

  async #send(job: Job): Promise<void> {
    const { clock, outbound } = this.#deps;
    const startedAt = clock.now();
    let secrets: string[];
    try {
      secrets = job.subscription.version === 'v1' ? signingSecrets(job.subscription, this.#secrets, startedAt) : [];
    } catch {
      this.#held.delete(job.claim.id);
      this.#results.append({
        kind: 'skipped',
        skip: { claim: job.claim, reason: 'subscription secret unreadable (server key changed?)', at: startedAt },
      });
      return;
    }
    const result = await sendDelivery({
      target: job.target,
      body: job.body,
      webhookId: job.claim.id,
      secrets,
      standardWebhooks: job.subscription.standard_webhooks === 1,
      timestamp: epochSeconds(startedAt),
      timeoutMs: this.#timeoutMs,
      dispatcher: outbound,
      now: () => clock.now(),
    });
    this.#sent += 1;
    this.#held.delete(job.claim.id);
    this.#results.append({
      kind: 'finished',
      attempt: { claim: job.claim, worker: this.worker, startedAt, finishedAt: clock.now(), result },
    });
    this.#metrics.latency.observe({ outcome: result.ok ? 'succeeded' : 'failed' }, result.durationMs / 1000);
  }

  /**
   * One batch of results, one transaction (delivery-log.ts). A batch the database refuses for some row's
   * values is split down to the refused rows (storage/refused-rows.ts), so that one row cannot keep the rest
   * of its batch (up to 1,000 deliveries, other receivers' too) unrecorded, to be sent again when their
   * leases run out. What stays unrecorded is counted and logged once.
   */
  async #record(rows: ResultRow[]): Promise<void> {
    const { unwritten, cause } = await writeIsolatingRefusals(
      rows,
      async (part) => this.#countOutcomes(await this.#write(part)),
      { budget: RESULT_SPLIT_BUDGET, alone: (row, error) => this.#recordRefusedAlone(row, error) },
    );
    if (unwritten.length === 0) return;
    // Unrecorded results are not lost work: the leases expire and the deliveries are retried (at least once, W6).
    this.#metrics.unrecorded.inc(unwritten.length);
    const err = cause as { code?: unknown; message?: unknown };
    this.#deps.log?.error(
      {
        // Code and message only: a database's own detail can quote the refused row (answers, signed headers).
        err: { code: err?.code, message: String(err?.message ?? cause) },
        unrecorded: unwritten.length,
        deliveries: unwritten.slice(0, 10).map((row) => resultClaim(row).id),
      },
      'recording webhook attempts failed',
    );
  }

  /** Writes results in one transaction; the outcome of each. */
  #write(rows: readonly ResultRow[]): Promise<string[]> {
    const finished: FinishedAttempt[] = [];
    const skipped: SkippedDelivery[] = [];
    const released: ClaimedDelivery[] = [];
    for (const row of rows) {
      if (row.kind === 'finished') finished.push(row.attempt);
      else if (row.kind === 'skipped') skipped.push(row.skip);
      else released.push(row.claim);
    }
    return recordAttempts(this.#deps.database, finished, skipped, this.#deps.random, released);
  }

  #countOutcomes(outcomes: readonly string[]): void {
    const counts = new Map<string, number>();
    for (const outcome of outcomes) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    for (const [outcome, n] of counts) this.#metrics.deliveries.inc({ outcome }, n);
  }

  /**
   * A result the database refused on its own. Its delivery deleted meanwhile (a foreign key): there is
   * nothing left to record, as for any stale result. A finished attempt: written again without the
   * receiver's words (its answer and error text), the only values the dispatcher did not make itself, so
   * that the delivery does not go out again at every lease's end. True when it is settled either way.
   */
  async #recordRefusedAlone(row: ResultRow, error: unknown): Promise<boolean> {
    if (isForeignKeyViolation(error)) {
      this.#metrics.deliveries.inc({ outcome: 'stale' });
      return true;
    }
    if (row.kind !== 'finished') return false;
    const { result } = row.attempt;
    const withoutAnswer: ResultRow = {
      kind: 'finished',
      attempt: {
        ...row.attempt,
        result: { ...result, responseBody: null, error: result.error === null ? null : ANSWER_NOT_STORED },
      },
    };
    try {
      this.#countOutcomes(await this.#write([withoutAnswer]));
      return true;
    } catch {
      return false;
    }
  }
}
