import type { QuoteCallRecord } from './quote-log.js';
import type { QuoteLogStore } from './quote-log-store.js';

export interface QuoteLogWriterOptions {
  /** A batch is written as soon as it holds this many rows. */
  maxRows: number;
  /** …or this long after its first row, whichever comes first. */
  maxDelayMs: number;
}

/** Told about rows that could not be written (they are counted in /metrics already). */
export type QuoteLogErrorHandler = (error: unknown, rows: readonly QuoteCallRecord[]) => void;

export const QUOTE_LOG_BATCH: QuoteLogWriterOptions = { maxRows: 64, maxDelayMs: 5 };

/**
 * Writes the quote log (SPEC-DECISIONS Q7) in batches: one multi-row INSERT
 * every few milliseconds instead of one INSERT per quote. Measured on the
 * `quote` benchmark, the per-quote INSERT (statement build, run, WAL commit)
 * was the largest share of the platform's own CPU per storefront quote.
 *
 * Nothing is dropped: every appended row is written by the next flush, a read
 * of the log flushes first (`flush()`), and the app flushes on close. The
 * delay is bounded (`maxDelayMs`, `maxRows`); a crash inside that window is the
 * only way to lose a row. Batches are written one after the other, in order.
 */
export class QuoteLogWriter {
  private pending: QuoteCallRecord[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  private writing: Promise<void> = Promise.resolve();
  private errorHandler: QuoteLogErrorHandler = () => {};

  constructor(
    /** Where the rows go, and where readers of the log read them (quote-log-store.ts). */
    readonly store: QuoteLogStore,
    private readonly options: QuoteLogWriterOptions = QUOTE_LOG_BATCH,
  ) {}

  /** Where rows that cannot be written are reported (the shipping routes point it at the app's logger). */
  onError(handler: QuoteLogErrorHandler): void {
    this.errorHandler = handler;
  }

  /** Rows appended and not yet handed to the database. */
  get pendingRows(): number {
    return this.pending.length;
  }

  append(row: QuoteCallRecord): void {
    this.pending.push(row);
    if (this.pending.length >= this.options.maxRows) {
      void this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.options.maxDelayMs);
      // A pending batch must not keep a finished process alive; close() flushes it.
      this.timer.unref?.();
    }
  }

  /** Writes every row appended so far; resolves once they (and earlier batches) are in the database. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const rows = this.pending;
    if (rows.length > 0) {
      this.pending = [];
      this.writing = this.writing.then(() => this.write(rows));
    }
    return this.writing;
  }

  /** Flushes, then releases the store: the app's last word on the log. */
  async close(): Promise<void> {
    await this.flush();
    await this.store.close();
  }

  private async write(rows: QuoteCallRecord[]): Promise<void> {
    try {
      await this.store.write(rows);
    } catch {
      // One bad row (say, its tenant was deleted meanwhile) must not cost the
      // others their log entry: write them one by one and report the failures.
      for (const row of rows) {
        try {
          await this.store.write([row]);
        } catch (error) {
          this.errorHandler(error, [row]);
        }
      }
    }
  }
}
