import { hostname } from 'node:os';
import type { Dispatcher } from 'undici';
import type { Clock } from '../core/clock.js';
import { epochSeconds } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { SecretBox } from '../core/secret-box.js';
import { DEFAULT_DISPATCHER_TUNING, type DispatcherTuning } from '../core/settings.js';
import type { Database } from '../storage/database.js';
import { type ClaimedDelivery, claimDueDeliveries } from './claim-queries.js';
import { type DeliveryJob, type FanOutReads, prepareJobs } from './delivery-jobs.js';
import { sendDelivery } from './delivery-request.js';
import { fanOutEvents } from './fan-out.js';
import { DEFAULT_LEASE_MS, LeaseKeeper } from './lease-keeper.js';
import { OpenedSecrets } from './opened-secrets.js';
import { sendDueAlerts } from './operational-alerts.js';
import { OriginQueues } from './origin-queues.js';
import { ResultRecorder } from './result-recorder.js';
import { type WebhookMetrics, webhookMetrics } from './webhook-metrics.js';
import { signingSecrets } from './webhook-secret.js';

export { DEFAULT_LEASE_MS };

/** How often the running loop looks for due operational webhooks: they are rare and not urgent to the second. */
const ALERT_POLL_MS = 1000;

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

/**
 * The operator's tuning (the settings schema's dispatcher group: each knob's meaning, default and bounds are
 * declared there), and what only tests and benchmarks change.
 */
export type WebhookDispatcherOptions = Partial<DispatcherTuning> & {
  /** Names this worker in leases and attempt records. */
  worker?: string;
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
  /** Finished attempts are recorded in one transaction once this many are waiting (default 1,000)… */
  flushBatch?: number;
  /** …or this long after the first of them finished (default 50 ms). */
  flushDelayMs?: number;
};

/**
 * What one claim or fan-out took. `full`: as many as it asked for, so more may be waiting; one that
 * took fewer saw all there was.
 */
interface Batch {
  taken: number;
  full: boolean;
}

/** A dispatcher's default name, in leases, attempt records and its connections' `application_name`: host, pid and a random tag. */
export function dispatcherWorkerName(random: Random): string {
  return `${hostname()}:${process.pid}:${random.uuid().slice(0, 8)}`;
}

/**
 * The webhook dispatcher (spec-notes W3–W6): fans outbox events out to
 * deliveries, claims due deliveries under a lease with a fencing token, sends
 * them with bounded concurrency per endpoint, and records every attempt.
 * Several dispatchers (threads of `feira start`, `feira dispatch` processes)
 * may share one database. Tests call `runOnce()`/`drain()` and move the clock;
 * `start()` runs the loop.
 *
 * This class is the loop and the wiring (D85): the leases it holds are kept by a
 * `LeaseKeeper` (lease-keeper.ts), claimed deliveries wait in `OriginQueues`
 * (origin-queues.ts), their subscriptions and bodies are read by `prepareJobs`
 * (delivery-jobs.ts), and results are written in batches by a `ResultRecorder`
 * (result-recorder.ts).
 */
export class WebhookDispatcher {
  readonly worker: string;
  readonly #deps: WebhookDispatcherDeps;
  readonly #batchSize: number;
  readonly #maxInFlight: number;
  readonly #timeoutMs: number;
  readonly #pollMs: number;
  readonly #maxPollMs: number;
  /**
   * The room a finished request must leave before the loop is woken to claim or fan out more:
   * waking at every finished request made a drain run one fan-out transaction per event.
   */
  readonly #refillAt: number;
  readonly #metrics: WebhookMetrics;
  readonly #secrets: OpenedSecrets;
  readonly #leases: LeaseKeeper;
  readonly #queues: OriginQueues<DeliveryJob>;
  readonly #results: ResultRecorder;
  #sent = 0;
  /** Passes the running loop has finished. */
  #passes = 0;
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
  /** When the loop last finished a pass: with the last renewal, the readiness heartbeat. */
  #lastPassAt = 0;
  /** Operational webhooks being sent beside the loop (they never hold up a pass), and when that last started. */
  #alerts: Promise<void> | null = null;
  #lastAlertsAt = Number.NEGATIVE_INFINITY;

  constructor(deps: WebhookDispatcherDeps, options: WebhookDispatcherOptions = {}) {
    this.#deps = deps;
    this.worker = options.worker ?? dispatcherWorkerName(deps.random);
    this.#batchSize = options.batchSize ?? DEFAULT_DISPATCHER_TUNING.batchSize;
    this.#maxInFlight = options.maxInFlight ?? DEFAULT_DISPATCHER_TUNING.maxInFlight;
    this.#timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.#pollMs = options.pollIntervalMs ?? 20;
    this.#maxPollMs = Math.max(this.#pollMs, options.maxPollIntervalMs ?? DEFAULT_DISPATCHER_TUNING.maxPollIntervalMs);
    this.#refillAt = Math.max(1, Math.floor(Math.min(this.#batchSize, this.#maxInFlight) / 4));
    this.#metrics = webhookMetrics(deps.metrics);
    this.#secrets = new OpenedSecrets(deps.box);
    this.#leases = new LeaseKeeper(deps, { worker: this.worker, leaseMs: options.leaseMs, renewMs: options.leaseRenewMs });
    this.#results = new ResultRecorder(
      { database: deps.database, random: deps.random, metrics: this.#metrics, log: deps.log },
      { flushBatch: options.flushBatch, flushDelayMs: options.flushDelayMs },
    );
    this.#queues = new OriginQueues<DeliveryJob>(options.perEndpointInFlight ?? DEFAULT_DISPATCHER_TUNING.perEndpointInFlight, {
      admit: (job) => {
        if (this.#leases.canSend(job.claim.id, job.leaseUntil)) return true;
        this.#giveBack(job.claim);
        return false;
      },
      send: (job) => this.#send(job),
      finished: () => {
        if (this.#waitingForCapacity && this.#room() >= this.#refillAt) this.#wake?.();
      },
      // An endpoint's queue is running low: claim more now (prefetch) rather than after the back-off,
      // once there is room for a refill worth a transaction (or nothing is left to send).
      low: () => {
        this.#idlePasses = 0;
        if (this.#room() >= this.#refillAt || this.#queues.inFlight === 0) this.#wake?.();
      },
    });
  }

  /** What this worker is doing now (for `feira dispatch` progress and diagnostics). */
  stats(): { inFlight: number; queued: number; sent: number; passes: number } {
    return { inFlight: this.#queues.inFlight, queued: this.#queues.queued, sent: this.#sent, passes: this.#passes };
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
    const capacity = this.#room();
    if (capacity <= 0) return { taken: 0, full: false };
    const now = this.#deps.clock.now();
    const leaseUntil = this.#leases.leaseUntil(now);
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
      const limit = Math.min(this.#batchSize, this.#room());
      if (limit <= 0) break;
      const now = this.#deps.clock.now();
      // Endpoints that already have a full queue here are left out: one slow receiver cannot fill this worker.
      const buffered = this.#queues.fullSubscriptions();
      const claims = await claimDueDeliveries(this.#deps.database.db, this.#deps.database.dialect, {
        worker: this.worker,
        limit,
        nowIso: now.toISOString(),
        leaseUntilIso: new Date(this.#leases.leaseUntil(now)).toISOString(),
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
      await this.#enqueue(claims, null, now, this.#leases.leaseUntil(now));
      claimed += claims.length;
    }
    return { taken: claimed, full };
  }

  /** Holds the claims' leases, queues them per endpoint origin and starts sending. */
  async #enqueue(claims: ClaimedDelivery[], fromFanOut: FanOutReads | null, now: Date, leaseUntil: number): Promise<void> {
    const { jobs, unsendable, origins } = await prepareJobs(this.#deps.database.db, claims, fromFanOut, leaseUntil);
    // Held from here only: a claim whose reads failed is not renewed, and runs out for any worker to take.
    for (const claim of claims) this.#leases.hold(claim);
    for (const { subscriptionId, origin } of origins) this.#queues.noteSubscription(subscriptionId, origin);
    for (const { claim, reason } of unsendable) {
      this.#leases.release(claim.id);
      this.#results.skipped({ claim, reason, at: now });
    }
    this.#queues.add(jobs);
  }

  /** One pass: fan out, claim, send, and wait until every attempt is recorded. For tests and `feira dispatch --once`. */
  async runOnce(): Promise<{ fannedOut: number; claimed: number }> {
    let fannedOut = 0;
    for (let n = await this.fanOut(); n > 0; n = await this.fanOut()) fannedOut += n;
    const claimed = await this.claimAndSend();
    await this.idle();
    await this.#sendAlerts();
    return { fannedOut, claimed };
  }

  /** Sends the operational webhooks due now (operational-alerts.ts); a failure is logged, never thrown into the loop. */
  async #sendAlerts(): Promise<void> {
    const { database, box, clock, random, outbound } = this.#deps;
    try {
      await sendDueAlerts({ db: database.db, box, clock, random, outbound, timeoutMs: this.#timeoutMs });
    } catch (error) {
      this.#deps.log?.error({ err: error }, 'operational webhooks pass failed');
    }
  }

  /** Starts a send of due operational webhooks beside the loop, at most one at a time and one a second. */
  #maybeSendAlerts(): void {
    if (this.#alerts || performance.now() - this.#lastAlertsAt < ALERT_POLL_MS) return;
    this.#lastAlertsAt = performance.now();
    this.#alerts = this.#sendAlerts().finally(() => {
      this.#alerts = null;
    });
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
    while (this.#queues.busy || this.#results.pending > 0) {
      await this.#queues.settled();
      await this.#results.flush();
    }
    await this.#results.flush();
  }

  start(): void {
    if (this.#loop) return;
    this.#stopping = false;
    this.#lastPassAt = this.#deps.clock.now().getTime();
    this.#leases.startRenewing();
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
    await this.#alerts;
    await this.idle();
    await this.#leases.stopRenewing();
  }

  /**
   * Extends the lease of every delivery this worker holds (queued or in
   * flight) by a full lease from now (lease-keeper.ts). Only rows still leased
   * to this worker move: one another worker took over keeps its new owner.
   */
  renewLeases(): Promise<void> {
    return this.#leases.renew();
  }

  /**
   * For `/health/ready`: null while the loop passes and the lease renewals are
   * recent (within one lease), else why not. A dispatcher that is not running says so.
   */
  readiness(): string | null {
    if (!this.#loop) return 'dispatcher not running';
    const { leaseMs } = this.#leases;
    const now = this.#deps.clock.now().getTime();
    const age = now - Math.min(this.#lastPassAt, this.#leases.lastRenewalAt);
    return age > leaseMs ? `dispatcher heartbeat ${Math.round(age / 1000)} s old (lease ${leaseMs / 1000} s)` : null;
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      let found = false;
      let full = false;
      try {
        // Due deliveries first (retries, and fan-out beyond this worker's room: the older work),
        // then new events, whose deliveries the fan-out leases to this worker and sends at once.
        // A pass the outbox signal started is for new events: due deliveries are looked for at most
        // once per poll interval, not once per committed event.
        const claimDue = !this.#signalled || performance.now() - this.#lastClaimAt >= this.#pollMs;
        this.#signalled = false;
        if (claimDue) this.#lastClaimAt = performance.now();
        const expired = claimDue && (this.#moreExpired || performance.now() - this.#lastExpiredClaimAt >= this.#leases.renewMs);
        if (expired) this.#lastExpiredClaimAt = performance.now();
        const claimed = claimDue ? await this.#claimBatch({ expired }) : { taken: 0, full: false };
        const fanned = await this.#fanOutBatch();
        this.#maybeSendAlerts();
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
      const noRoom = this.#room() <= 0;
      // The next pass comes at once only when a claim came back full. A pass that took less than it asked
      // for saw all there was: under a steady flow of orders, passing again at once cost each order an empty
      // fan-out and a look for due deliveries, two more transactions (docs/decisions.md D8).
      // A signal that came during the pass may be for events it did not see: no pause then.
      // Nor after stop() was called during the pass: it would wait a whole poll interval.
      if (!this.#stopping && (noRoom || (!full && !this.#signalled))) {
        this.#waitingForCapacity = noRoom;
        await this.#pause(
          noRoom
            ? this.#leases.renewMs
            : Math.min(this.#maxPollMs, this.#pollMs * 2 ** Math.min(Math.max(this.#idlePasses - 1, 0), 16)),
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
    return this.#maxInFlight - this.#queues.inFlight - this.#queues.queued;
  }

  /** A lease no longer renewed is given back unsent: the delivery is due again for any worker. */
  #giveBack(claim: ClaimedDelivery): void {
    this.#leases.release(claim.id);
    this.#results.released(claim);
  }

  async #send(job: DeliveryJob): Promise<void> {
    const { clock, outbound } = this.#deps;
    const startedAt = clock.now();
    let secrets: string[];
    try {
      secrets = job.subscription.version === 'v1' ? signingSecrets(job.subscription, this.#secrets, startedAt) : [];
    } catch {
      this.#leases.release(job.claim.id);
      this.#results.skipped({ claim: job.claim, reason: 'subscription secret unreadable (server key changed?)', at: startedAt });
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
    this.#leases.release(job.claim.id);
    this.#results.finished({ claim: job.claim, worker: this.worker, startedAt, finishedAt: clock.now(), result });
    this.#metrics.latency.observe({ outcome: result.ok ? 'succeeded' : 'failed' }, result.durationMs / 1000);
  }
}
