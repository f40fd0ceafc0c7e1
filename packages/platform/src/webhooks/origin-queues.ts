/** What the queues ask of their owner (the dispatcher). */
export interface OriginQueueHooks<J> {
  /** Just before a job's request starts: false drops it unsent (the owner gives its lease back). */
  admit(job: J): boolean;
  /** Sends the job; the slot it takes is free again when the promise settles. */
  send(job: J): Promise<void>;
  /** A request finished and freed its slot (after its origin's queue was pumped again). */
  finished(): void;
  /** An origin's queue has fallen below the per-origin limit: a good moment to claim more. */
  low(): void;
}

/**
 * Per-origin queues with bounded concurrency: jobs wait in
 * their endpoint origin's queue and at most `perOrigin` requests run per
 * origin, so one slow receiver holds up only its own deliveries. The queues
 * also tell which subscriptions sit behind a full queue (`fullSubscriptions`),
 * so that a claim can leave them out.
 */
export class OriginQueues<J> {
  readonly perOrigin: number;
  readonly #hooks: OriginQueueHooks<J>;
  readonly #queues = new Map<string, J[]>();
  readonly #inFlightByOrigin = new Map<string, number>();
  readonly #originBySubscription = new Map<string, string>();
  readonly #running = new Set<Promise<void>>();
  #queued = 0;
  #inFlight = 0;

  constructor(perOrigin: number, hooks: OriginQueueHooks<J>) {
    this.perOrigin = perOrigin;
    this.#hooks = hooks;
  }

  /** Jobs waiting in a queue. */
  get queued(): number {
    return this.#queued;
  }

  /** Requests running. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Notes where a subscription's deliveries go (for `fullSubscriptions`). */
  noteSubscription(subscriptionId: string, origin: string): void {
    this.#originBySubscription.set(subscriptionId, origin);
  }

  /** Subscriptions whose origin's queue here is full: claiming more of theirs would only wait. */
  fullSubscriptions(): string[] {
    const out: string[] = [];
    for (const [id, origin] of this.#originBySubscription) {
      if ((this.#queues.get(origin)?.length ?? 0) >= this.perOrigin) out.push(id);
    }
    return out;
  }

  /** Queues each job behind its origin and starts what each origin has room for. */
  add(entries: Iterable<{ origin: string; job: J }>): void {
    const touched = new Set<string>();
    for (const { origin, job } of entries) {
      const queue = this.#queues.get(origin);
      if (queue) queue.push(job);
      else this.#queues.set(origin, [job]);
      this.#queued += 1;
      touched.add(origin);
    }
    for (const origin of touched) this.#pump(origin);
  }

  /** Resolves once every request running now has settled (rejects as the first of them does). */
  async settled(): Promise<void> {
    await Promise.all([...this.#running]);
  }

  /** Requests are running or jobs are waiting. */
  get busy(): boolean {
    return this.#running.size > 0 || this.#queued > 0;
  }

  #pump(origin: string): void {
    const queue = this.#queues.get(origin);
    while (queue && queue.length > 0 && (this.#inFlightByOrigin.get(origin) ?? 0) < this.perOrigin) {
      const job = queue.shift() as J;
      this.#queued -= 1;
      if (!this.#hooks.admit(job)) continue;
      this.#inFlight += 1;
      this.#inFlightByOrigin.set(origin, (this.#inFlightByOrigin.get(origin) ?? 0) + 1);
      const running: Promise<void> = this.#hooks.send(job).finally(() => {
        this.#running.delete(running);
        this.#inFlight -= 1;
        this.#inFlightByOrigin.set(origin, (this.#inFlightByOrigin.get(origin) ?? 1) - 1);
        this.#pump(origin);
        this.#hooks.finished();
      });
      this.#running.add(running);
    }
    if (queue && queue.length < this.perOrigin) {
      if (queue.length === 0) this.#queues.delete(origin);
      this.#hooks.low();
    }
  }
}
