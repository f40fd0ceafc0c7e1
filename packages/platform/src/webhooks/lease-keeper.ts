import type { Clock } from '../core/clock.js';
import { DEFAULT_DISPATCHER_TUNING } from '../core/settings.js';
import type { Database } from '../storage/database.js';
import type { ClaimedDelivery } from './claim-queries.js';

/** Deliveries of a crashed dispatcher are due again after at most this long (docs/deploy.md). */
export const DEFAULT_LEASE_MS = DEFAULT_DISPATCHER_TUNING.leaseMs;

/** Ids per renewal statement. */
const RENEWAL_CHUNK = 500;

export interface LeaseKeeperDeps {
  database: Database;
  clock: Clock;
  log?: { error(obj: object, message: string): void };
}

export interface LeaseKeeperOptions {
  /** The lease holder's name (the dispatcher's worker name). */
  worker: string;
  /** How long a claim is exclusive unless renewed (at least a second; default DEFAULT_LEASE_MS). */
  leaseMs?: number;
  /** How often `startRenewing` renews (default a quarter of the lease, at most half of it). */
  renewMs?: number;
}

/**
 * The leases one dispatcher holds (spec-notes W6): the deliveries it claimed
 * and has not finished (queued or in flight), renewed together every
 * `renewMs` so that a request longer than one lease is not taken over, while a
 * crashed worker's deliveries are due again within one lease. A job whose
 * lease is no longer being renewed is given back instead of sent (`canSend`).
 */
export class LeaseKeeper {
  readonly worker: string;
  readonly leaseMs: number;
  readonly renewMs: number;
  readonly #deps: LeaseKeeperDeps;
  /** Deliveries held, by id: what a renewal extends. */
  readonly #held = new Map<string, ClaimedDelivery>();
  /** Held deliveries a renewal found under another owner (taken over after an expiry): never sent from here. */
  readonly #lost = new Set<string>();
  /** Until when the last successful renewal extended every held lease (epoch ms). */
  #renewedUntil = 0;
  #lastRenewalAt = 0;
  #timer: NodeJS.Timeout | null = null;
  #renewing: Promise<void> = Promise.resolve();

  constructor(deps: LeaseKeeperDeps, options: LeaseKeeperOptions) {
    this.#deps = deps;
    this.worker = options.worker;
    // Short and renewed while held: it need not cover a whole request, renewals do.
    this.leaseMs = Math.max(options.leaseMs ?? DEFAULT_LEASE_MS, 1_000);
    this.renewMs = Math.min(options.renewMs ?? this.leaseMs / 4, this.leaseMs / 2);
  }

  /** Deliveries held now. */
  get size(): number {
    return this.#held.size;
  }

  /** When the leases were last renewed (epoch ms; the readiness heartbeat). */
  get lastRenewalAt(): number {
    return this.#lastRenewalAt;
  }

  /** A new lease's end for a claim made at `now` (epoch ms). */
  leaseUntil(now: Date): number {
    return now.getTime() + this.leaseMs;
  }

  hold(claim: ClaimedDelivery): void {
    this.#held.set(claim.id, claim);
  }

  /** The delivery is finished, skipped or given back: no longer renewed. */
  release(id: string): void {
    this.#held.delete(id);
    this.#lost.delete(id);
  }

  /**
   * Whether the job of delivery `id`, claimed with a lease until `leaseUntil`, may still be sent: its
   * lease (or the last renewal) has at least half a lease to run, and no renewal found the delivery under
   * another owner. One whose renewals have stopped (failing, a stalled loop, the database out of reach)
   * could be taken by another worker while its request runs; one a renewal did not find is another's.
   */
  canSend(id: string, leaseUntil: number): boolean {
    if (this.#lost.has(id)) return false;
    return Math.max(leaseUntil, this.#renewedUntil) - this.#deps.clock.now().getTime() >= this.leaseMs / 2;
  }

  /**
   * Extends the lease of every held delivery by a full lease from now, in one statement per 500. Only rows
   * still leased to this worker move: one another worker took over after an expiry keeps its new owner,
   * and this worker's result is fenced out, and its job is not sent (`canSend` refuses it): after a
   * partition, a renewal that succeeds again must not let this worker send what another now holds. A failed
   * renewal is logged; the leases run out as they were.
   */
  async renew(): Promise<void> {
    const now = this.#deps.clock.now();
    const until = this.leaseUntil(now);
    const untilIso = new Date(until).toISOString();
    const ids = [...this.#held.keys()];
    try {
      const renewed = new Set<string>();
      for (let i = 0; i < ids.length; i += RENEWAL_CHUNK) {
        const rows = await this.#deps.database.db
          .updateTable('webhook_deliveries')
          .set({ lease_until: untilIso })
          .where('id', 'in', ids.slice(i, i + RENEWAL_CHUNK))
          .where('lease_owner', '=', this.worker)
          .where('state', '=', 'pending')
          .returning('id')
          .execute();
        for (const row of rows) renewed.add(row.id);
      }
      // Still held but not renewed: taken over (or finished by another worker) while renewals failed.
      for (const id of ids) if (!renewed.has(id) && this.#held.has(id)) this.#lost.add(id);
      this.#renewedUntil = until;
      this.#lastRenewalAt = now.getTime();
    } catch (error) {
      this.#deps.log?.error({ err: error }, 'renewing webhook delivery leases failed');
    }
  }

  /** Renews every `renewMs` until `stopRenewing` (the timer does not keep the process alive). */
  startRenewing(): void {
    if (this.#timer) return;
    this.#lastRenewalAt = this.#deps.clock.now().getTime();
    this.#timer = setInterval(() => {
      this.#renewing = this.#renewing.then(() => this.renew());
    }, this.renewMs);
    this.#timer.unref();
  }

  /** Stops the timer; resolves once a renewal under way has finished. */
  async stopRenewing(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    await this.#renewing;
  }
}
