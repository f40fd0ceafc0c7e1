import { BatchingWriter } from '../core/batching-writer.js';
import type { Random } from '../core/random.js';
import type { Database } from '../storage/database.js';
import { isForeignKeyViolation } from '../storage/database-errors.js';
import { writeIsolatingRefusals } from '../storage/refused-rows.js';
import type { ClaimedDelivery } from './claim-queries.js';
import { type FinishedAttempt, recordAttempts, type SkippedDelivery } from './delivery-log.js';
import type { WebhookMetrics } from './webhook-metrics.js';

/** What the dispatcher writes to the delivery log, in batches. */
export type ResultRow =
  | { kind: 'finished'; attempt: FinishedAttempt }
  | { kind: 'skipped'; skip: SkippedDelivery }
  | { kind: 'released'; claim: ClaimedDelivery };

function resultClaim(row: ResultRow): ClaimedDelivery {
  return row.kind === 'finished' ? row.attempt.claim : row.kind === 'skipped' ? row.skip.claim : row.claim;
}

/**
 * Transactions one batch of results may spend isolating rows the database refuses (storage/refused-rows.ts):
 * enough to find a few such rows among a full batch.
 */
const RESULT_SPLIT_BUDGET = 64;

/** The delivery log's error text for an attempt whose own could not be stored. */
const ANSWER_NOT_STORED = 'the answer could not be stored (the database refused its text)';

export interface ResultRecorderDeps {
  database: Database;
  random: Random;
  metrics: Pick<WebhookMetrics, 'deliveries' | 'unrecorded'>;
  log?: { error(obj: object, message: string): void };
}

export interface ResultRecorderOptions {
  /** Results are recorded in one transaction once this many are waiting (default 1,000)… */
  flushBatch?: number;
  /** …or this long after the first of them (default 50 ms). */
  flushDelayMs?: number;
}

/**
 * The dispatcher's result writing: finished attempts, skipped deliveries and
 * given-back leases go to the delivery log in batches, one transaction per
 * `flushBatch` results or after `flushDelayMs`, whichever comes first (D7:
 * a commit per few results spent a visible share of a drain's CPU in COMMIT).
 * The delay only postpones the bookkeeping: the receiver already has the
 * message, and the renewed lease keeps other workers off meanwhile.
 */
export class ResultRecorder {
  readonly #deps: ResultRecorderDeps;
  readonly #writer: BatchingWriter<ResultRow>;

  constructor(deps: ResultRecorderDeps, options: ResultRecorderOptions = {}) {
    this.#deps = deps;
    this.#writer = new BatchingWriter((rows) => this.#record(rows), {
      maxRows: options.flushBatch ?? 1_000,
      maxDelayMs: options.flushDelayMs ?? 50,
    });
  }

  /** Results waiting for their batch. */
  get pending(): number {
    return this.#writer.pendingRows;
  }

  finished(attempt: FinishedAttempt): void {
    this.#writer.append({ kind: 'finished', attempt });
  }

  /** No request was made (subscription disabled or removed, secret unreadable): the delivery becomes dead. */
  skipped(skip: SkippedDelivery): void {
    this.#writer.append({ kind: 'skipped', skip });
  }

  /** The lease is given back unsent: the delivery is due again for any worker. */
  released(claim: ClaimedDelivery): void {
    this.#writer.append({ kind: 'released', claim });
  }

  /** Writes what is waiting; resolves once it and every earlier batch is written. */
  flush(): Promise<void> {
    return this.#writer.flush();
  }

  /**
   * One batch of results, one transaction (delivery-log.ts). A batch the database refuses for some row's
   * values is split down to the refused rows (storage/refused-rows.ts), so that one row cannot keep the rest
   * of its batch (other receivers' deliveries too) unrecorded, to be sent again when their leases run out.
   * What stays unrecorded is counted and logged once.
   */
  async #record(rows: ResultRow[]): Promise<void> {
    const { unwritten, cause } = await writeIsolatingRefusals(
      rows,
      async (part) => this.#countOutcomes(await this.#write(part)),
      { budget: RESULT_SPLIT_BUDGET, alone: (row, error) => this.#recordRefusedAlone(row, error) },
    );
    if (unwritten.length === 0) return;
    // Unrecorded results are not lost work: the leases expire and the deliveries are retried (at least once, W6).
    this.#deps.metrics.unrecorded.inc(unwritten.length);
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
    for (const [outcome, n] of counts) this.#deps.metrics.deliveries.inc({ outcome }, n);
  }

  /**
   * A result the database refused on its own. Its delivery deleted meanwhile (a foreign key): there is
   * nothing left to record, as for any stale result. A finished attempt: written again without the
   * receiver's words (its answer and error text), the only values the dispatcher did not make itself, so
   * that the delivery does not go out again at every lease's end. True when it is settled either way.
   */
  async #recordRefusedAlone(row: ResultRow, error: unknown): Promise<boolean> {
    if (isForeignKeyViolation(error)) {
      this.#deps.metrics.deliveries.inc({ outcome: 'stale' });
      return true;
    }
    if (row.kind !== 'finished') return false;
    const { result } = row.attempt;
    const withoutAnswer: ResultRow = {
      kind: 'finished',
      attempt: {
        ...row.attempt,
        result: { ...result, responseBody: null, responseHeaders: null, error: result.error === null ? null : ANSWER_NOT_STORED },
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
