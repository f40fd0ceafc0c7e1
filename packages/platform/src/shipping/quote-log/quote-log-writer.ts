import { type BatchingOptions, BatchingWriter } from '../../core/batching-writer.js';
import { writeIsolatingRefusals } from '../../storage/refused-rows.js';
import type { QuoteCallRecord } from './quote-call-rows.js';
import type { QuoteLogStore } from './quote-log-store.js';

/** How the quote log is batched (core/batching-writer.ts). */
export type QuoteLogWriterOptions = BatchingOptions;

/** Told about rows that could not be written (they are counted in /metrics already). */
export type QuoteLogErrorHandler = (error: unknown, rows: readonly QuoteCallRecord[]) => void;

export const QUOTE_LOG_BATCH: QuoteLogWriterOptions = { maxRows: 64, maxDelayMs: 5 };

/**
 * Writes the quote log (spec-notes Q7) in batches: one multi-row INSERT
 * every few milliseconds instead of one INSERT per quote. Measured on the
 * `quote` benchmark, the per-quote INSERT (statement build, run, WAL commit)
 * was the largest share of the platform's own CPU per storefront quote
 * (docs/decisions.md D7).
 *
 * Nothing is dropped: every appended row is written by the next flush, a read
 * of the log flushes first (`flush()`), and the app flushes on close. The
 * delay is bounded (`maxDelayMs`, `maxRows`); a crash inside that window is the
 * only way to lose a row. Batches are written one after the other, in order
 * (the shared "flush after N rows or T ms" of core/batching-writer.ts).
 */
export class QuoteLogWriter {
  private errorHandler: QuoteLogErrorHandler = () => {};
  readonly #batches: BatchingWriter<QuoteCallRecord>;

  constructor(
    /** Where the rows go, and where readers of the log read them (quote-log-store.ts). */
    readonly store: QuoteLogStore,
    options: QuoteLogWriterOptions = QUOTE_LOG_BATCH,
  ) {
    this.#batches = new BatchingWriter((rows) => this.write(rows), options);
  }

  /** Where rows that cannot be written are reported (the shipping routes point it at the app's logger). */
  onError(handler: QuoteLogErrorHandler): void {
    this.errorHandler = handler;
  }

  /** Rows appended and not yet handed to the database. */
  get pendingRows(): number {
    return this.#batches.pendingRows;
  }

  append(row: QuoteCallRecord): void {
    this.#batches.append(row);
  }

  /** Writes every row appended so far; resolves once they (and earlier batches) are in the database. */
  flush(): Promise<void> {
    return this.#batches.flush();
  }

  /** Flushes, then releases the store: the app's last word on the log. */
  async close(): Promise<void> {
    await this.flush();
    await this.store.close();
  }

  private async write(rows: QuoteCallRecord[]): Promise<void> {
    // One bad row (say, its tenant was deleted meanwhile) must not cost the others their log entry: a
    // refused batch is split down to it, as far as it takes (a batch is small). An outage is not split.
    const { unwritten, cause } = await writeIsolatingRefusals(rows, (part) => this.store.write(part), {
      budget: 2 * rows.length,
    });
    if (unwritten.length > 0) this.errorHandler(cause, unwritten);
  }
}
